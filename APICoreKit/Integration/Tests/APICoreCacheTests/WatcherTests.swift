import APICore
@testable import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

@Suite("Watchers")
struct WatcherTests {
    @Test("a mutation that changes a record wakes exactly the watchers that depend on it")
    func mutationWakesDependents() async throws {
        try await withCachingServer { _, client in
            let r2 = Recorder(client.watch(GraphQLRequest(HeroNameQuery(episode: .some(.init(.jedi)))) { $0.hero?.name }))
            let tarkin = Recorder(client.watch(GraphQLRequest(HumanQuery(id: "1004")) { $0.human?.name }))
            #expect(await r2.waitFor(1))
            #expect(await tarkin.waitFor(1))
            let store = try store(of: client)
            #expect(await eventually { await store.watcherCounts.watchers == 2 })
            let before = await store.rereadCount

            let renamed = try await client.perform(RenameCharacterMutation(id: "2001", name: "Artoo-Detoo"))
            #expect(renamed.value.renameCharacter?.name == "Artoo-Detoo")
            #expect(await r2.waitFor(2))
            #expect(r2.values == ["R2-D2", "Artoo-Detoo"])
            // Only the watcher that read Droid:2001 read the store again.
            #expect(await store.rereadCount - before == 1)
            #expect(tarkin.values == ["Wilhuff Tarkin"])
            r2.stop()
            tarkin.stop()
        }
    }

    @Test("a query written for the first time wakes no watcher of other queries; a field a watcher missed wakes it when it comes")
    func rootFieldsAreDependedOnOneByOne() async throws {
        try await withCachingServer { _, client in
            let store = try store(of: client)
            let luke = Recorder(client.watch(GraphQLRequest(HumanQuery(id: "1000")) { $0.human?.name }))
            let han = Recorder(client.watch(GraphQLRequest(HumanQuery(id: "1002")) { $0.human?.name }, cachePolicy: .cacheOnly))
            #expect(await luke.waitFor(1))
            #expect(await han.waitFor(1))  // a miss: nothing of it is cached yet
            #expect(await eventually { await store.watcherCounts.watchers == 2 })
            let before = await store.rereadCount

            // Adds human(id:"1003") to the query root: neither watcher reads it.
            _ = try await client.fetch(HumanQuery(id: "1003"))
            #expect(await store.rereadCount == before)

            // Adds human(id:"1002"), the field the second watcher missed: it alone reads again.
            _ = try await client.fetch(HumanQuery(id: "1002"))
            #expect(await han.waitFor(2))
            #expect(han.values.last == "Han Solo")
            #expect(await store.rereadCount - before == 1)

            // The whole root removed wakes both.
            try await client.cache.removeRecord("QUERY_ROOT")
            #expect(await luke.waitFor(2))
            #expect(await han.waitFor(3))
            luke.stop()
            han.stop()
        }
    }

    @Test("another query's answer, a manual update and a removal wake the watcher too (refetching off: the removal is a miss)")
    func anyWriterWakes() async throws {
        try await withCachingServer(cache: CacheConfiguration(refetchesIncompleteWatches: false)) { _, client in
            let luke = Recorder(client.watch(GraphQLRequest(HumanQuery(id: "1000")) { $0.human?.name }))
            #expect(await luke.waitFor(1))
            let store = try store(of: client)
            #expect(await eventually { await store.watcherCounts.watchers == 1 })

            try await client.cache.updateRecord("Human:1000") { $0["name"] = "Red Five" }
            #expect(await luke.waitFor(2))
            // A query that selects Luke again writes the server's name back.
            _ = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))), cachePolicy: .networkOnly)
            #expect(await luke.waitFor(3))
            try await client.cache.removeRecord("Human:1000")
            #expect(await luke.waitFor(4))
            #expect(luke.values == ["Luke Skywalker", "Red Five", "Luke Skywalker"])
            guard case .failure(.cacheMiss)? = luke.elements.last else {
                Issue.record("expected a cache miss after the removal, got \(String(describing: luke.elements.last))")
                return
            }
            luke.stop()
        }
    }

    @Test("a removal that leaves the watched query incomplete fetches it again once: the watcher yields the server's data, not a miss")
    func refetchesAfterRemoval() async throws {
        try await withCachingServer { server, client in
            let luke = Recorder(client.watch(GraphQLRequest(HumanQuery(id: "1000")) { $0.human?.name }))
            #expect(await luke.waitFor(1))
            #expect(await eventually { await (try? store(of: client))?.watcherCounts.watchers == 1 })
            #expect(server.requests(to: "graphql").count == 1)

            try await client.cache.removeRecord("Human:1000")
            #expect(await luke.waitFor(2))
            #expect(luke.values == ["Luke Skywalker", "Luke Skywalker"])
            #expect(server.requests(to: "graphql").count == 2)
            // The data is whole again: another change that keeps it whole asks the server nothing.
            try await client.cache.updateRecord("Human:1000") { $0["name"] = "Red Five" }
            #expect(await luke.waitFor(3))
            #expect(luke.values.last == "Red Five")
            #expect(server.requests(to: "graphql").count == 2)
            luke.stop()
        }
    }

    @Test("a refetch whose answer leaves the query incomplete yields its error once, and the server is not asked again")
    func refetchThatDoesNotComplete() async throws {
        try await withCachingServer { server, client in
            let luke = Recorder(client.watch(GraphQLRequest(HumanQuery(id: "1000")) { $0.human?.name }))
            #expect(await luke.waitFor(1))
            #expect(await eventually { await (try? store(of: client))?.watcherCounts.watchers == 1 })
            // From now on the server answers with the human nulled by an error: nothing of it is cached.
            let partial = #"{"data":{"human":null},"errors":[{"message":"the archive is down","path":["human","name"]}]}"#
            server.respond("graphql", with: [TestServer.Canned(status: 200, body: partial)])

            try await client.cache.removeRecord("Human:1000")
            #expect(await luke.waitFor(2))
            guard case .failure(.graphQL(let failure))? = luke.elements.last else {
                Issue.record("expected the refetch's GraphQL error, got \(String(describing: luke.elements.last))")
                return
            }
            #expect(failure.errors.first?.message == "the archive is down")
            #expect(server.requests(to: "graphql").count == 2)
            // Another change while the data is still incomplete does not ask the server again.
            try await client.cache.removeRecord("Human:1000")
            _ = try? await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly)
            #expect(server.requests(to: "graphql").count == 2)
            luke.stop()
        }
    }

    @Test("the observable model over the engine: the server's value, then a cache change, as they come")
    func observableModel() async throws {
        try await withCachingServer { _, client in
            let model = await WatchedQuery(GraphQLRequest(HumanQuery(id: "1000")) { $0.human?.name }, client: client)
            #expect(await eventually { await model.value == .some("Luke Skywalker") })
            #expect(await model.source == .server)
            #expect(await !model.isLoading)
            #expect(await eventually { await (try? store(of: client))?.watcherCounts.watchers == 1 })
            try await client.cache.updateRecord("Human:1000") { $0["name"] = "Red Five" }
            #expect(await eventually { await model.value == .some("Red Five") })
            #expect(await model.source == .cache)
            await model.stop()
            #expect(await eventually { await (try? store(of: client))?.watcherCounts.watchers == 0 })
        }
    }

    @Test("a watcher whose first fetch failed still watches, and yields once the data arrives")
    func firstFetchFailed() async throws {
        try await withCachingServer { _, client in
            let watcher = Recorder(client.watch(GraphQLRequest(HumanQuery(id: "1002")) { $0.human?.name }, cachePolicy: .cacheOnly))
            #expect(await watcher.waitFor(1))
            guard case .failure(.cacheMiss)? = watcher.elements.first else {
                Issue.record("expected a miss first")
                return
            }
            let store = try store(of: client)
            #expect(await eventually { await store.watcherCounts.watchers == 1 })
            _ = try await client.fetch(HumanQuery(id: "1002"))
            #expect(await watcher.waitFor(2))
            #expect(watcher.values == ["Han Solo"])
            watcher.stop()
        }
    }

    @Test("ending the iteration cancels the watcher; nothing stays registered")
    func cancellation() async throws {
        try await withCachingServer { _, client in
            let store = try store(of: client)
            for _ in 0..<20 {
                let watcher = Recorder(client.watch(GraphQLRequest(HumanQuery(id: "1000"))))
                #expect(await watcher.waitFor(1))
                watcher.stop()
            }
            // A consumer that breaks out of its loop ends the watch as well, through a map too.
            for await _ in client.watch(GraphQLRequest(HumanQuery(id: "1000"))) { break }
            for await name in client.watch(GraphQLRequest(HumanQuery(id: "1000")) { $0.human?.name }).map({ try? $0.get().value }) {
                #expect(name == "Luke Skywalker")
                break
            }
            #expect(await eventually { await store.watcherCounts == (0, 0) })
        }
    }
}
