import APICore
import APICoreTesting
import HouseholdKit
import Testing

@Suite("HouseholdService")
struct HouseholdServiceTests {
    @Test("maps and sorts households by name")
    func households() async throws {
        let client = MockAPIClient()
        client.stub(.get, "households", json: [
            ["id": "h2", "name": "Office", "memberIDs": ["u1"]],
            ["id": "h1", "name": "Home", "memberIDs": ["u1", "u2", "u3"]],
        ])
        let households = try await HouseholdService(client: client).households()
        #expect(households == [Household(id: "h1", name: "Home", memberCount: 3), Household(id: "h2", name: "Office", memberCount: 1)])
    }

    @Test("a response of the wrong shape is an invalid-response error")
    func wrongShape() async {
        let client = MockAPIClient()
        client.stub(.get, "households", json: ["id": "h1"])
        await #expect {
            try await HouseholdService(client: client).households()
        } throws: { error in
            guard case APIError.invalidResponse = error else { return false }
            return true
        }
    }
}
