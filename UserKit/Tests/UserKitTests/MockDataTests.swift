import APICore
import APICoreTesting
import Foundation
import SharedKit
import Testing
@testable import UserKit  // the generated enums the mocks take are internal

/// Service paths answered from the generated test mocks (`Tests/UserKitTests/Mocks`, from
/// `output.testMocks`) instead of JSON fixtures.
@Suite("UserService with generated mocks")
struct MockDataTests {
    func ada(roles: [GraphQLEnum<UserAPI.UserRole>], avatar: String? = nil) throws -> Mock.User {
        Mock.User(
            id: "user-1", email: "ada@example.com", displayName: "Ada", roles: roles, avatarURL: avatar,
            createdAt: try DateTime(iso8601: "2026-01-02T03:04:05Z"))
    }

    @Test("the current user from a mock: roles, including one this app does not know, and no avatar")
    func currentUser() async throws {
        let client = MockAPIClient()
        client.stub(operation: "CurrentUser", mock: Mock.Query(me: try ada(roles: [.init(.member), "AUDITOR"])))
        let user = try #require(try await UserService(client: client).currentUser())
        #expect(user.roles == [.member, .other("AUDITOR")])
        #expect(user.avatarURL == nil)
        #expect(user.displayName == "Ada")
    }

    @Test("a user by id from a mock, and the profile a mutation answers")
    func userAndUpdate() async throws {
        let client = MockAPIClient()
        client.stub(operation: "UserByID", mock: Mock.Query(user: try ada(roles: [.init(.admin)], avatar: "https://example.com/a.png")))
        client.stub(operation: "UpdateProfile", mock: Mock.Mutation(updateProfile: try ada(roles: [.init(.admin)])))
        let service = UserService(client: client)
        #expect(try await service.user(id: "user-1")?.avatarURL == URL(string: "https://example.com/a.png"))
        #expect(try await service.updateProfile(ProfileChanges(displayName: "Ada")).roles == [.admin])
    }
}
