@_spi(Generated) import APICore
@testable import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Synchronization
import Testing

@Suite("Typed cache updates and optimistic layers")
struct OptimisticTests {
    /// Luke, as the test server has him.
    static let luke = ("Human:1000", "Luke Skywalker")

    @Test("a fragment updated on a cache key wakes the watchers of that record once, and keeps its other fields")
    func fragmentUpdate() async throws {
        try await withCachingServer { server, client in
            let store = try store(of: client)
            let miss = await thrownError { () async throws(APIError) in
                try await client.cache.update(fragment: CharacterNameFragment.self, key: "Human:9999") { $0.name = "nobody" }
            }
            #expect(miss?.description == "cache miss: the cache has no complete data for CharacterNameFragment at Human:9999")

            _ = try await client.fetch(HumanQuery(id: "1000"))
            let watch = Recorder(client.watch(GraphQLRequest(HumanQuery(id: "1000")), cachePolicy: .cacheOnly))
            defer { watch.stop() }
            #expect(await watch.waitFor(1))
            #expect(await eventually { await store.watcherCounts.watchers == 1 })
            let rereads = await store.rereadCount

            let written = try await client.cache.update(fragment: CharacterNameFragment.self, key: Self.luke.0) { $0.name += " (edited)" }
            #expect(written.name == "Luke Skywalker (edited)")
            #expect(await watch.waitFor(2))
            #expect(await store.rereadCount - rereads == 1)
            #expect(watch.values.map { $0.human?.name } == ["Luke Skywalker", "Luke Skywalker (edited)"])
            #expect(watch.values.last?.human?.homePlanet == "Tatooine")
            #expect(server.requests.count == 1)

            // Data that no longer fits the selections is refused, and nothing is written.
            let invalid = await thrownError { () async throws(APIError) in
                try await client.cache.update(fragment: CharacterNameFragment.self, key: Self.luke.0) { $0.__data._data["name"] = .null }
            }
            #expect(invalid?.description.contains("does not match its selections") == true)
            #expect(try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly).value.human?.name == "Luke Skywalker (edited)")
        }
    }

    @Test("concurrent typed updates of one record lose none of each other's changes")
    func concurrentUpdates() async throws {
        try await withCachingServer { _, client in
            _ = try await client.fetch(HumanQuery(id: "1000"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        if index.isMultiple(of: 2) {
                            _ = try await client.cache.update(fragment: CharacterNameFragment.self, key: Self.luke.0) { $0.name += "+" }
                        } else {
                            _ = try await client.cache.update(HumanNameLocalCacheMutation(id: "1000")) { $0.human?.name += "+" }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let name = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly).value.human?.name
            #expect(name == "Luke Skywalker" + String(repeating: "+", count: 20))
        }
    }

    @Test("an optimistic response is shown at once, marked, then replaced by the server's answer")
    func optimisticThenServer() async throws {
        try await withCachingServer { server, client in
            let store = try store(of: client)
            _ = try await client.fetch(HumanQuery(id: "1002"))
            let watch = Recorder(client.watch(GraphQLRequest(HumanQuery(id: "1002")), cachePolicy: .cacheOnly))
            defer { watch.stop() }
            #expect(await watch.waitFor(1))
            #expect(await eventually { await store.watcherCounts.watchers == 1 })

            let response = try await client.perform(
                RenameCharacterMutation(id: "1002", name: "Han (server)"), optimisticResponse: Self.renamed("Human", "1002", "Han (optimistic)"))
            #expect(response.value.renameCharacter?.name == "Han (server)")
            #expect(response.source == .server)
            #expect(await watch.waitFor(3))
            let seen = watch.elements.compactMap { try? $0.get() }.map { ($0.value.human?.name ?? "-", $0.metadata.isOptimistic) }
            #expect(seen.map(\.0) == ["Han Solo", "Han (optimistic)", "Han (server)"])
            #expect(seen.map(\.1) == [false, true, false])
            #expect(await store.layerCount == 0)

            // The same data confirmed by the server still ends the optimistic state.
            _ = try await client.perform(
                RenameCharacterMutation(id: "1002", name: "Han again"), optimisticResponse: Self.renamed("Human", "1002", "Han again"))
            #expect(await watch.waitFor(5))
            let confirmed = watch.elements.suffix(2).compactMap { try? $0.get() }
            #expect(confirmed.map { $0.value.human?.name } == ["Han again", "Han again"])
            #expect(confirmed.map(\.metadata.isOptimistic) == [true, false])
            #expect(server.requests.count == 3)

            // An optimistic response that does not fit the mutation's selections is refused before anything is sent.
            let invalid = await thrownError { () async throws(APIError) in
                try await client.perform(
                    RenameCharacterMutation(id: "1002", name: "x"),
                    optimisticResponse: RenameCharacterMutation.Data(_dataDict: DataDict(_data: ["renameCharacter": ["id": "1002"]])))
            }
            #expect(invalid?.description.contains("the optimistic response of RenameCharacter does not match its selections") == true)
            #expect(server.requests.count == 3)
        }
    }

    @Test("with two mutations in flight, the one that fails takes away only its own layer")
    func failureRollsBackOwnLayer() async throws {
        try await withCachingServer { server, client in
            let store = try store(of: client)
            _ = try await client.fetch(HumanQuery(id: "1000"))
            _ = try await client.fetch(HumanQuery(id: "1002"))
            let luke = Recorder(client.watch(GraphQLRequest(HumanQuery(id: "1000")), cachePolicy: .cacheOnly))
            let han = Recorder(client.watch(GraphQLRequest(HumanQuery(id: "1002")), cachePolicy: .cacheOnly))
            defer {
                luke.stop()
                han.stop()
            }
            #expect(await luke.waitFor(1))
            #expect(await han.waitFor(1))
            #expect(await eventually { await store.watcherCounts.watchers == 2 })

            let gate = TestServer.Gate()
            server.respond("graphql", with: [
                .init(status: 200, body: #"{"errors":[{"message":"that name is taken","path":["renameCharacter"]}],"data":{"renameCharacter":null}}"#, gate: gate),
                .init(status: 200, body: #"{"data":{"renameCharacter":{"__typename":"Human","id":"1002","name":"Han (server)"}}}"#, gate: gate),
            ])
            let failing = Task { () async throws(APIError) in
                try await client.perform(
                    RenameCharacterMutation(id: "1000", name: "Luke?"), optimisticResponse: Self.renamed("Human", "1000", "Luke (optimistic)"))
            }
            #expect(await eventually { server.requests.count == 3 })
            let succeeding = Task { () async throws(APIError) in
                try await client.perform(
                    RenameCharacterMutation(id: "1002", name: "Han?"), optimisticResponse: Self.renamed("Human", "1002", "Han (optimistic)"))
            }
            #expect(await eventually { server.requests.count == 4 })
            #expect(await store.layerCount == 2)
            // A write under the failing layer while it is in flight: hidden by the layer, kept after it.
            try await client.cache.updateRecord(Self.luke.0) { $0["homePlanet"] = .string("Dagobah") }
            #expect(await luke.waitFor(3))
            #expect(luke.values.last?.human?.name == "Luke (optimistic)")
            #expect(luke.values.last?.human?.homePlanet == "Dagobah")

            gate.open()
            let failure = await failing.result
            #expect(throws: APIError.self) { try failure.get() }
            #expect(try await succeeding.value.value.renameCharacter?.name == "Han (server)")
            #expect(await store.layerCount == 0)

            let lukeNow = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly)
            #expect(lukeNow.value.human?.name == "Luke Skywalker")
            #expect(lukeNow.value.human?.homePlanet == "Dagobah")
            #expect(!lukeNow.metadata.isOptimistic)
            let hanNow = try await client.fetch(HumanQuery(id: "1002"), cachePolicy: .cacheOnly)
            #expect(hanNow.value.human?.name == "Han (server)")
            #expect(!hanNow.metadata.isOptimistic)
            #expect(await eventually { luke.values.last?.human?.name == "Luke Skywalker" })
            #expect(await eventually { han.values.last?.human?.name == "Han (server)" })
        }
    }

    @Test("optimistic layers stack: a later layer shows over an earlier one, and each leaves on its own")
    func layersStack() async throws {
        let store = NormalizedStore(persistent: nil, logger: .init(label: "test"))
        let human = CacheSelection(
            key: "Human:1", selections: CharacterNameFragment.__selections, parent: CharacterNameFragment.__parentType, variables: [:])
        await CacheWriter(store: store).write(records: ["Human:1": ["__typename": "Human", "id": "1", "name": "base"]])
        let first = try #require(await CacheWriter(store: store).lay(records: ["Human:1": ["name": "first"]]))
        let second = try #require(await CacheWriter(store: store).lay(records: ["Human:1": ["name": "second"], "Human:2": ["__typename": "Human", "id": "2", "name": "new"]]))
        #expect(await store.read(human).data?["name"] == "second")
        #expect(await store.read(human).optimistic)
        #expect(await store.read(human, layered: false).data?["name"] == "base")
        await CacheWriter(store: store).removeLayer(second)
        #expect(await store.read(human).data?["name"] == "first")
        await CacheWriter(store: store).write(records: ["Human:1": ["name": "server"]], removingLayer: first)
        let read = await store.read(human)
        #expect(read.data?["name"] == "server")
        #expect(!read.optimistic)
        #expect(await store.record("Human:2") == nil)
        await CacheWriter(store: store).removeLayer(first)  // gone already: no error, no change
        #expect(await store.layerCount == 0)
    }

    @Test("garbage collection keeps the records an optimistic layer lies over, and collects them once it is gone")
    func collectionKeepsLayered() async throws {
        let store = NormalizedStore(persistent: nil, logger: .init(label: "test"))
        // Reached from no root: garbage, but for the layer over it.
        await CacheWriter(store: store).write(records: ["Human:1": ["__typename": "Human", "id": "1", "name": "base"]])
        let layer = try #require(await CacheWriter(store: store).lay(records: ["Human:1": ["name": "optimistic"]]))
        #expect(await CacheWriter(store: store).collectGarbage(maxStaleness: .zero).unreachableRecords == 0)
        let human = CacheSelection(
            key: "Human:1", selections: CharacterNameFragment.__selections, parent: CharacterNameFragment.__parentType, variables: [:])
        #expect(await store.read(human, layered: false).data?["name"] == "base")
        await CacheWriter(store: store).removeLayer(layer)
        #expect(await CacheWriter(store: store).collectGarbage(maxStaleness: .zero).unreachableRecords == 1)
        #expect(await store.record("Human:1") == nil)
    }

    /// The optimistic data of `renameCharacter`.
    static func renamed(_ typename: String, _ id: String, _ name: String) -> RenameCharacterMutation.Data {
        RenameCharacterMutation.Data(_dataDict: DataDict(_data: [
            "renameCharacter": ["__typename": .string(typename), "id": .string(id), "name": .string(name)]
        ]))
    }
}
