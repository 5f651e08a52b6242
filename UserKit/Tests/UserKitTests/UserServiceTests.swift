import APICore
import APICoreTesting
import SharedKit
import Testing
import UserKit

@Suite("UserService")
struct UserServiceTests {
    @Test("maps the current user, dates included")
    func currentUser() async throws {
        let client = MockAPIClient()
        client.stub(.get, "users/me", json: ["id": "u1", "displayName": "Ada", "email": "ada@example.com", "createdAt": "2026-01-02T03:04:05Z"])
        let user = try await UserService(client: client).currentUser()
        #expect(user == User(id: "u1", displayName: "Ada", email: "ada@example.com", createdAt: try DateTime(iso8601: "2026-01-02T03:04:05Z")))
    }

    @Test("a date the backend should not send is a mapping error naming the field")
    func badDate() async {
        let client = MockAPIClient()
        client.stub(.get, "users/me", json: ["id": "u1", "displayName": "Ada", "email": "a@b.c", "createdAt": "yesterday"])
        await #expect {
            try await UserService(client: client).currentUser()
        } throws: { error in
            guard case APIError.mapping(let reason) = error else { return false }
            return reason.contains("createdAt") && reason.contains("'yesterday'")
        }
    }

    @Test("errors from the client pass through unchanged")
    func unauthorized() async {
        let client = MockAPIClient()
        client.stub(.get, "users/me", error: .unauthorized(HTTPFailure(statusCode: 401, headers: [:], body: .init(), url: nil)))
        await #expect {
            try await UserService(client: client).currentUser()
        } throws: { error in
            (error as? APIError)?.recovery == .reauthenticate
        }
    }
}
