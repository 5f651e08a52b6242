import APICore
import APICoreTesting
import Foundation
import SharedKit
import Testing
import UserKit

@Suite("UserService")
struct UserServiceTests {
    func fixture(_ name: String) throws -> URL {
        try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
    }

    @Test("maps the current user: roles (unknown ones kept), avatar URL, date with fractional seconds")
    func currentUser() async throws {
        let client = MockAPIClient()
        try client.stub(operation: "CurrentUser", fixture: fixture("current-user"))
        let user = try #require(try await UserService(client: client).currentUser())
        #expect(user.id == "user-1")
        #expect(user.roles == [.admin, .member, .other("AUDITOR")])
        #expect(user.avatarURL == URL(string: "https://example.com/ada.png"))
        #expect(user.createdAt == (try DateTime(iso8601: "2026-01-02T03:04:05.250Z")))
    }

    @Test("nobody signed in is nil, not an error")
    func signedOut() async throws {
        let client = MockAPIClient()
        client.stub(operation: "CurrentUser", data: ["me": nil])
        #expect(try await UserService(client: client).currentUser() == nil)
    }

    @Test("a date the backend should not send is an invalid response naming the field")
    func badDate() async throws {
        let client = MockAPIClient()
        try client.stub(operation: "CurrentUser", fixture: fixture("current-user-bad-date"))
        do {
            _ = try await UserService(client: client).currentUser()
            Issue.record("expected an error")
        } catch {
            guard case .invalidResponse(let failure) = error, case .wrongShape(let shape) = failure.kind else {
                Issue.record("expected a wrong shape, got \(error)")
                return
            }
            #expect(shape.path == ["data", "me", "createdAt"])
            #expect(shape.message.contains("'yesterday'"))
        }
    }

    @Test("profile changes send only what changes; removing the avatar sends null")
    func updateProfile() async throws {
        let client = MockAPIClient()
        client.stub(operation: "UpdateProfile", response: try JSONValue(parsing: 
            Data(contentsOf: fixture("current-user")).replacingMe()))
        let service = UserService(client: client)
        _ = try await service.updateProfile(ProfileChanges(displayName: "Ada L."))
        _ = try await service.updateProfile(ProfileChanges(avatar: .remove))
        let sent = client.sent("UpdateProfile").map(\.payload)
        #expect(sent == [["input": ["displayName": "Ada L."]], ["input": ["avatarURL": nil]]])
    }

    @Test("errors pass through as APIError: GraphQL errors keep their code")
    func errors() async {
        let client = MockAPIClient()
        client.stub(operation: "UserByID", response: [
            "data": ["user": nil], "errors": [["message": "log in first", "extensions": ["code": "UNAUTHENTICATED"]]],
        ])
        await #expect {
            try await UserService(client: client).user(id: "user-2")
        } throws: { error in
            (error as? APIError)?.recovery == .reauthenticate
        }
    }
}

extension Data {
    /// The current-user fixture answered as the `updateProfile` mutation.
    func replacingMe() -> Data {
        Data(String(decoding: self, as: UTF8.self).replacingOccurrences(of: "\"me\"", with: "\"updateProfile\"").utf8)
    }
}
