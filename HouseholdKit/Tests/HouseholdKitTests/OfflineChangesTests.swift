import APICore
import APICoreTesting
import Foundation
@testable import HouseholdKit
import SharedKit
import Testing

@Suite("HouseholdService: optimistic and queued changes")
struct OfflineChangesTests {
    static let unreachable = APIError.transport(TransportFailure(kind: .connectionRefused, url: nil, underlying: "server down"))

    static func householdResponse() throws -> JSONValue {
        let url = try #require(Bundle.module.url(forResource: "household", withExtension: "json", subdirectory: "Fixtures"))
        return try JSONValue(parsing: Data(contentsOf: url))
    }

    static let bo = Member(
        id: "m-2", userID: "user-2", displayName: "Bo", role: .adult, joinedAt: try! DateTime(iso8601: "2026-03-02T10:00:00Z"))

    @Test("an optimistic rename sends the cached household, renamed, as its optimistic response; none when it is not cached")
    func optimisticRename() async throws {
        let client = MockAPIClient()
        let response = try Self.householdResponse()
        var renamed = try #require(response["data"]?["household"]?.objectValue)
        renamed["name"] = "Cabin"
        client.stub(operation: "RenameHousehold", data: ["updateHousehold": .object(renamed)])
        let service = HouseholdService(client: client)

        #expect(try await service.renameHouseholdOptimistically(id: "hh-1", to: "Cabin").name == "Cabin")
        #expect(client.sent("RenameHousehold").first?.optimisticResponse == nil)

        let cached = try HouseholdQuery.Data(validating: try #require(response["data"]?.objectValue))
        try await client.cache.writeQuery(HouseholdQuery(id: "hh-1"), data: cached)
        _ = try await service.renameHouseholdOptimistically(id: "hh-1", to: "Cabin")
        let optimistic = try #require(client.sent("RenameHousehold").last?.optimisticResponse?["updateHousehold"]?.objectValue)
        #expect(optimistic["name"] == "Cabin")
        #expect(optimistic["members"]?.arrayValue?.count == 2)
        #expect(optimistic["id"] == "hh-1")
    }

    @Test("a member changed optimistically is sent with the member as the server will answer")
    func optimisticMember() async throws {
        let client = MockAPIClient()
        client.stub(operation: "UpdateMember", data: ["updateMember": [
            "__typename": "Member", "id": "m-2", "userId": "user-2", "displayName": "Bo B.", "role": "ADULT", "joinedAt": "2026-03-02T10:00:00Z",
        ]])
        let member = try await HouseholdService(client: client).updateMemberOptimistically(Self.bo, displayName: "Bo B.", role: nil)
        #expect(member.displayName == "Bo B.")
        let sent = try #require(client.sent("UpdateMember").first)
        #expect(sent.payload == ["input": ["memberId": "m-2", "displayName": "Bo B."]])
        #expect(sent.optimisticResponse == ["updateMember": [
            "__typename": "Member", "id": "m-2", "userId": "user-2", "displayName": "Bo B.", "role": "ADULT", "joinedAt": "2026-03-02T10:00:00Z",
        ]])
    }

    @Test("with the server out of reach a rename and a member change are queued, and sent in order when replayed")
    func queued() async throws {
        let client = MockAPIClient()
        var renamed = try #require(try Self.householdResponse()["data"]?["household"]?.objectValue)
        renamed["name"] = "Cabin"
        // The first attempt finds the server out of reach; the replay finds it back.
        client.stub(operation: "RenameHousehold", error: Self.unreachable)
        client.stub(operation: "RenameHousehold", data: ["updateHousehold": .object(renamed)])
        client.stub(operation: "UpdateMember", data: ["updateMember": [
            "__typename": "Member", "id": "m-2", "userId": "user-2", "displayName": "Bo", "role": "CHILD", "joinedAt": "2026-03-02T10:00:00Z",
        ]])
        let service = HouseholdService(client: client)
        guard case .queued(let rename) = try await service.renameHouseholdOrQueue(id: "hh-1", to: "Cabin"),
            case .queued(let member) = try await service.updateMemberOrQueue(Self.bo, displayName: nil, role: .child)
        else {
            Issue.record("not queued with the server out of reach")
            return
        }
        #expect(try await client.offlineQueue.mutations().map(\.id) == [rename.id, member.id])
        #expect(try await client.offlineQueue.mutations().map(\.operationName) == ["RenameHousehold", "UpdateMember"])
        // The member change waited behind the rename without being sent.
        #expect(client.sent("UpdateMember").isEmpty)

        await client.offlineQueue.replay()
        #expect(try await client.offlineQueue.mutations().isEmpty)
        #expect(client.sent("RenameHousehold").count == 2)
        #expect(client.sent("UpdateMember").last?.payload == ["input": ["memberId": "m-2", "role": "CHILD"]])

        // Online, the change is saved at once.
        guard case .sent(let response) = try await service.renameHouseholdOrQueue(id: "hh-1", to: "Cabin") else {
            Issue.record("queued with the server up")
            return
        }
        #expect(response.value.name == "Cabin")
    }

    @Test("making a service registers nothing; the app registers the mutations it may queue with one explicit call")
    func registration() {
        let client = MockAPIClient()
        _ = HouseholdService(client: client)
        #expect(client.registeredMutations.isEmpty)
        HouseholdService.registerQueuedMutations(with: client.offlineQueue)
        #expect(client.registeredMutations == ["RenameHousehold", "UpdateMember"])
    }

    @Test("the generated local cache mutations change a household's name through their setters")
    func typedCacheUpdates() async throws {
        let client = MockAPIClient()
        client.stub(operation: "HouseholdName", data: ["household": ["__typename": "Household", "id": "hh-1", "name": "Home"]])
        let query = try await client.cache.update(HouseholdNameLocalCacheMutation(id: "hh-1")) { $0.household?.name = "Cabin" }
        #expect(query.household?.name == "Cabin")

        client.writeFragment(try HouseholdNameFields(validating: ["__typename": "Household", "id": "hh-1", "name": "Home"]), key: "Household:hh-1")
        let fragment = try await client.cache.update(fragment: HouseholdNameFields.self, key: "Household:hh-1") { $0.name += " (edited)" }
        #expect(fragment.name == "Home (edited)")
        #expect(client.cacheOperations == ["update HouseholdName", "update Household:hh-1"])
    }
}
