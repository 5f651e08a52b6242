import APICoreTesting
import ArgumentParser
import Foundation
import PantryCLI
import Testing

@Suite("pantry")
struct PantryCLITests {
    @Test("--help names the command and what it does")
    func help() {
        let help = PantryCommand.helpMessage()
        #expect(help.contains("USAGE: pantry"))
        #expect(help.contains("Households, members and products"))
    }

    @Test("an unknown argument is a usage error with a message and a non-zero exit code")
    func unknownArgument() {
        do {
            _ = try PantryCommand.parseAsRoot(["--bogus"])
            Issue.record("expected a parse error")
        } catch {
            #expect(PantryCommand.exitCode(for: error) != .success)
            #expect(PantryCommand.message(for: error).contains("--bogus"))
        }
    }

    @Test("the composition root hands one client to every kit")
    func environment() async throws {
        let client = MockAPIClient()
        client.stub(.get, "users/me", json: ["id": "u1", "displayName": "Ada", "email": "a@b.c", "createdAt": "2026-01-01T00:00:00Z"])
        client.stub(.get, "products/p1", json: ["id": "p1", "name": "Tea", "price": ["amount": "1.50", "currency": "EUR"]])
        client.stub(.get, "households", json: [["id": "h1", "name": "Home", "memberIDs": ["u1"]]])
        let environment = AppEnvironment(client: client)
        #expect(try await environment.users.currentUser().displayName == "Ada")
        #expect(try await environment.products.product(id: "p1").name == "Tea")
        #expect(try await environment.households.households().map(\.name) == ["Home"])
        #expect(client.sent.map(\.name) == ["GET users/me", "GET products/p1", "GET households"])
    }
}
