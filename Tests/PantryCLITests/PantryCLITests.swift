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
        client.stub(operation: "CurrentUser", data: ["me": [
            "__typename": "User", "id": "u1", "email": "a@b.c", "displayName": "Ada", "roles": ["MEMBER"], "avatarURL": nil,
            "createdAt": "2026-01-01T00:00:00Z",
        ]])
        client.stub(operation: "Households", data: ["households": [["__typename": "Household", "id": "h1", "name": "Home", "members": []]]])
        client.stub(operation: "Categories", data: ["categories": [["__typename": "Category", "id": "c1", "name": "Drinks", "parent": nil]]])
        let environment = AppEnvironment(client: client)
        #expect(try await environment.users.currentUser()?.displayName == "Ada")
        #expect(try await environment.households.households().map(\.name) == ["Home"])
        #expect(try await environment.products.categories().map(\.name) == ["Drinks"])
        #expect(client.sent.map(\.name) == ["CurrentUser", "Households", "Categories"])
    }
}
