import APICore
import APICoreTesting
import Foundation
import Observation
import StarWarsOperations
import Testing

@MainActor
@Suite("WatchedQuery, the observable model of a watch")
struct WatchedQueryTests {
    static func answer(_ name: String) -> JSONValue {
        ["data": ["hero": ["__typename": "Droid", "name": .string(name)], "failingField": "fine"]]
    }

    static let request = GraphQLRequest(HeroAndFailingQuery()) { $0.hero?.name }

    @Test("the model shows the watch's first value, then each change; stop ends the watch and keeps the value")
    func updates() async {
        let client = MockAPIClient()
        client.stub(operation: "HeroAndFailing", response: Self.answer("R2-D2"))
        let model = WatchedQuery(Self.request, client: client)
        #expect(model.isLoading && model.value == nil)
        #expect(await observed { model.value == .some("R2-D2") })
        #expect(!model.isLoading && model.error == nil && model.source == .server)

        client.publish(operation: "HeroAndFailing", response: Self.answer("Artoo"))
        #expect(await observed { model.value == .some("Artoo") })

        model.stop()
        #expect(await eventually { @Sendable in client.watcherCount("HeroAndFailing") == 0 })
        #expect(model.value == .some("Artoo") && !model.isLoading)
    }

    @Test("a failure is the model's error; a refetch that succeeds shows its value and clears the error")
    func errorThenRefetch() async {
        let client = MockAPIClient()
        client.stub(operation: "HeroAndFailing", error: .transport(TransportFailure(kind: .connectionRefused, url: nil, underlying: "refused")))
        client.stub(operation: "HeroAndFailing", response: Self.answer("R2-D2"))
        let model = WatchedQuery(Self.request, client: client)
        #expect(await observed { model.error != nil })
        #expect(model.value == nil && !model.isLoading)

        await model.refetch()
        #expect(model.value == .some("R2-D2") && model.error == nil && !model.isLoading)
        model.stop()
    }

    @Test("a model that goes away ends its watch")
    func deinitStops() async {
        let client = MockAPIClient()
        client.stub(operation: "HeroAndFailing", response: Self.answer("R2-D2"))
        var model: WatchedQuery<HeroAndFailingQuery, String?>? = WatchedQuery(Self.request, client: client)
        #expect(await observed { model?.value == .some("R2-D2") })
        #expect(client.watcherCount("HeroAndFailing") == 1)
        model = nil
        #expect(await eventually { @Sendable in client.watcherCount("HeroAndFailing") == 0 })
    }

    @Test("data written to the mock's cache is the model's value as soon as it is made; a network-only policy waits for the watch")
    func firstValueFromTheMocksCache() async throws {
        let client = MockAPIClient()
        let data = try HeroAndFailingQuery.Data(validating: ["hero": ["__typename": "Droid", "name": "Written"], "failingField": "fine"])
        try await client.cache.writeQuery(HeroAndFailingQuery(), data: data)
        client.stub(operation: "HeroAndFailing", response: Self.answer("R2-D2"))
        let model = WatchedQuery(Self.request, client: client)
        #expect(model.value == .some("Written") && model.source == .cache && !model.isLoading)
        #expect(await observed { model.value == .some("R2-D2") })
        model.stop()

        let fromServer = WatchedQuery(Self.request, client: client, cachePolicy: .networkOnly)
        #expect(fromServer.value == nil && fromServer.isLoading)
        #expect(await observed { fromServer.value == .some("R2-D2") })
        fromServer.stop()
    }

    @Test("a fragment model over the mock: the kept data at once, each update, a miss as its error, stop ends the watch")
    func fragmentModel() async throws {
        let client = MockAPIClient()
        let empty = WatchedFragment(CharacterNameFragment.self, key: "Human:1000", in: client.cache)
        #expect(empty.value == nil)
        #expect(await observed { empty.error != nil })
        guard case .cacheMiss? = empty.error else {
            Issue.record("expected a cache miss, got \(String(describing: empty.error))")
            return
        }

        client.writeFragment(try CharacterNameFragment(validating: ["__typename": "Human", "id": "1000", "name": "Luke"]), key: "Human:1000")
        #expect(await observed { empty.value?.name == "Luke" && empty.error == nil })
        let model = WatchedFragment(CharacterNameFragment.self, key: "Human:1000", in: client.cache)
        #expect(model.value?.name == "Luke" && !model.isLoading && model.key == "Human:1000")

        _ = try await client.cache.update(fragment: CharacterNameFragment.self, key: "Human:1000") { $0.name = "Red Five" }
        #expect(await observed { model.value?.name == "Red Five" && empty.value?.name == "Red Five" })
        model.stop()
        empty.stop()
        _ = try await client.cache.update(fragment: CharacterNameFragment.self, key: "Human:1000") { $0.name = "Luke" }
        #expect(model.value?.name == "Red Five")
    }
}
