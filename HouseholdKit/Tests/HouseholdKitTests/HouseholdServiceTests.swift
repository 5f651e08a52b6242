import APICore
import APICoreTesting
import Foundation
import HouseholdKit
import SharedKit
import Testing

@Suite("HouseholdService")
struct HouseholdServiceTests {
    func fixture(_ name: String) throws -> URL {
        try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
    }

    @Test("lists households by name with their member counts")
    func households() async throws {
        let client = MockAPIClient()
        try client.stub(operation: "Households", fixture: fixture("households"))
        let households = try await HouseholdService(client: client).households()
        #expect(households == [HouseholdSummary(id: "hh-1", name: "Home", memberCount: 2), HouseholdSummary(id: "hh-2", name: "office", memberCount: 1)])
    }

    @Test("maps a household in full: budget as exact money, members, invitations, unknown roles kept")
    func household() async throws {
        let client = MockAPIClient()
        try client.stub(operation: "Household", fixture: fixture("household"))
        let household = try #require(try await HouseholdService(client: client).household(id: "hh-1"))
        #expect(household.monthlyBudget == Money(amount: Decimal(string: "450.50")!, currency: "EUR"))
        #expect(household.members.map(\.role) == [.owner, .other("TEENAGER")])
        #expect(household.members[1].joinedAt == (try DateTime(iso8601: "2026-03-02T10:00:00.5Z")))
        #expect(household.invitations.first?.status == .pending)
        #expect(client.sent("Household").first?.payload == ["id": "hh-1"])
        #expect(client.sent("Household").first?.cachePolicy == .cacheElseNetwork)
        _ = try await HouseholdService(client: client).household(id: "hh-1", refresh: true)
        #expect(client.sent("Household").last?.cachePolicy == .networkOnly)
    }

    @Test("watching a household yields it, then each change the client publishes, as domain models")
    func watch() async throws {
        let client = MockAPIClient()
        try client.stub(operation: "Household", fixture: fixture("household"))
        var iterator = HouseholdService(client: client).watchHousehold(id: "hh-1").makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(try first.get()?.name == "Home")
        let renamed = try String(contentsOf: fixture("household"), encoding: .utf8).replacingOccurrences(of: "\"Home\"", with: "\"Cabin\"")
        client.publish(operation: "Household", response: try JSONValue(parsing: renamed))
        let second = try #require(await iterator.next())
        #expect(try second.get()?.name == "Cabin")
        #expect(try second.get()?.members.count == 2)
    }

    @Test("household changes arrive as domain values until the server completes the subscription")
    func changes() async throws {
        let client = MockAPIClient()
        let changes = HouseholdService(client: client).householdChanges(id: "hh-1")
        let consumer = Task {
            var seen: [HouseholdChange] = []
            for try await change in changes { seen.append(change) }
            return seen
        }
        #expect(client.subscriberCount("HouseholdChanged") == 1)
        #expect(client.sent("HouseholdChanged").first?.payload == ["id": "hh-1"])
        let household = try #require(try JSONValue(parsing: String(contentsOf: fixture("household"), encoding: .utf8))["data"]?["household"])
        for kind in ["MEMBER_ADDED", "ARCHIVED"] {
            client.publish(subscription: "HouseholdChanged", response: ["data": ["householdChanged": [
                "__typename": "HouseholdEvent", "kind": .string(kind), "occurredAt": "2026-03-02T10:00:00Z", "household": household,
            ]]])
        }
        client.finishSubscriptions("HouseholdChanged")
        let seen = try await consumer.value
        #expect(seen.map(\.kind) == [.memberAdded, .other("ARCHIVED")])
        #expect(seen.first?.household.name == "Home")
    }

    @Test("member changes send only what changes; a role the server does not know is refused before sending")
    func updateMember() async throws {
        let client = MockAPIClient()
        client.stub(operation: "UpdateMember", data: ["updateMember": [
            "__typename": "Member", "id": "m-2", "userId": "user-2", "displayName": "Bo", "role": "ADULT", "joinedAt": "2026-03-02T10:00:00Z",
        ]])
        let service = HouseholdService(client: client)
        let member = try await service.updateMember(id: "m-2", displayName: nil, role: .adult)
        #expect(member.role == .adult)
        #expect(client.sent("UpdateMember").first?.payload == ["input": ["memberId": "m-2", "role": "ADULT"]])

        await #expect {
            try await service.updateMember(id: "m-2", displayName: nil, role: .other("TEENAGER"))
        } throws: { error in
            guard case APIError.invalidRequest(let reason) = error else { return false }
            return reason.contains("TEENAGER")
        }
        #expect(client.sent("UpdateMember").count == 1)
    }

    @Test("a budget amount that is not a decimal is an invalid response naming the field")
    func badAmount() async throws {
        let client = MockAPIClient()
        let text = try String(contentsOf: fixture("household"), encoding: .utf8).replacingOccurrences(of: "\"450.50\"", with: "\"lots\"")
        client.stub(operation: "Household", response: try JSONValue(parsing: text))
        do {
            _ = try await HouseholdService(client: client).household(id: "hh-1")
            Issue.record("expected an error")
        } catch {
            guard case .invalidResponse(let failure) = error, case .wrongShape(let shape) = failure.kind else {
                Issue.record("expected a wrong shape, got \(error)")
                return
            }
            #expect(shape.path == ["data", "household", "monthlyBudget", "amount"])
        }
    }

    @Test("removing a member performs the mutation; a failing server's error passes through")
    func removeMember() async throws {
        let client = MockAPIClient()
        client.stub(operation: "RemoveMember", data: ["removeMember": "m-2"])
        try await HouseholdService(client: client).removeMember(id: "m-2")
        #expect(client.sent("RemoveMember").first?.payload == ["memberId": "m-2"])

        client.stub(operation: "Households", error: .httpStatus(HTTPFailure(statusCode: 503, headers: [:], body: Data(), url: nil)))
        await #expect {
            try await HouseholdService(client: client).households()
        } throws: { error in
            (error as? APIError)?.recovery == .retry
        }
    }
}
