import APICore
import APICoreTesting
import Foundation
@testable import HouseholdKit  // the generated enums the mocks take are internal
import SharedKit
import Testing

/// The same service paths as the JSON-fixture tests, answered from the generated test mocks
/// (`Tests/HouseholdKitTests/Mocks`, from `output.testMocks`).
@Suite("HouseholdService with generated mocks")
struct MockDataTests {
    let created = try! DateTime(iso8601: "2026-03-01T12:00:00Z")

    @Test("a household with members, a budget and an invitation, built from mocks")
    func household() async throws {
        let client = MockAPIClient()
        let owner = Mock.Member(id: "m-1", userId: "u-1", displayName: "Ada", role: .init(.owner), joinedAt: created)
        let child = Mock.Member(id: "m-2", userId: "u-2", displayName: "Kit", role: "GUARDIAN", joinedAt: created)
        client.stub(operation: "Household", mock: Mock.Query(household: Mock.Household(
            id: "h-1", name: "Home", createdAt: created, members: [owner, child],
            invitations: [Mock.Invitation(id: "i-1", email: "bo@example.com", role: .init(.adult), status: .init(.pending), expiresAt: created)],
            monthlyBudget: Mock.Budget(amount: Decimal(string: "450.25"), currency: .init(.eur)))))
        let household = try #require(try await HouseholdService(client: client).household(id: "h-1"))
        #expect(household.members.map(\.role) == [.owner, .other("GUARDIAN")])
        #expect(household.monthlyBudget == Money(amount: Decimal(string: "450.25")!, currency: "EUR"))
        #expect(household.invitations.map(\.status) == [.pending])
        #expect(household.createdAt == created)
    }

    @Test("the household list counts members; a mock missing a selected field fails naming it")
    func households() async throws {
        let client = MockAPIClient()
        client.stub(operation: "Households", mock: Mock.Query(households: [
            Mock.Household(id: "h-1", name: "Home", members: [Mock.Member(id: "m-1"), Mock.Member(id: "m-2")]),
            Mock.Household(id: "h-2", name: "Cabin", members: []),
        ]))
        let summaries = try await HouseholdService(client: client).households()
        #expect(Dictionary(uniqueKeysWithValues: summaries.map { ($0.name, $0.memberCount) }) == ["Home": 2, "Cabin": 0])

        let incomplete = MockAPIClient()
        incomplete.stub(operation: "Households", mock: Mock.Query(households: [Mock.Household(id: "h-1", members: [])]))
        await #expect {
            try await HouseholdService(client: incomplete).households()
        } throws: { error in
            "\(error)".contains("households.0.name: Mock.Household has no value for 'name'")
        }
    }
}
