@testable import APICore
@testable import APICoreLive
@testable import APICoreSQLite
import APICoreTestServer
import Foundation
import GRDB
import StarWarsOperations
import Testing

@Suite("SQLite cache, offline reads and expiry")
struct PersistenceTests {
    @Test("written, closed, reopened, read: the SQLite cache survives a restart")
    func restart() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("nested/cache.sqlite")
        try await withCachingServer(cache: CacheConfiguration(storage: SQLiteCache.storage(at: file))) { _, client in
            _ = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))))
        }
        // A new client, with no server at all: everything comes from the file.
        let reopened = APICoreLive.makeClient(APIClientConfiguration(
            restBaseURL: URL(string: "http://127.0.0.1:9/")!, cache: CacheConfiguration(storage: SQLiteCache.storage(at: file))))
        let cached = try await reopened.fetch(HeroNameQuery(episode: .some(.init(.empire))), cachePolicy: .cacheOnly)
        #expect(cached.source == .cache)
        #expect(cached.value.hero?.name == "Luke Skywalker")
        #expect(cached.value.hero?.friends?.count == 4)
        try await reopened.cache.clear()
        let cleared = APICoreLive.makeClient(APIClientConfiguration(
            restBaseURL: URL(string: "http://127.0.0.1:9/")!, cache: CacheConfiguration(storage: SQLiteCache.storage(at: file))))
        await #expect(throws: APIError.self) { try await cleared.fetch(HeroNameQuery(episode: .some(.init(.empire))), cachePolicy: .cacheOnly) }
    }

    @Test("a corrupt SQLite file: a warning, the memory cache, and the file left untouched")
    func corruptFile() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: file)
        let log = LogCapture()
        let storage = SQLiteCache.storage(at: file, logger: log.logger)
        try await withCachingServer(cache: CacheConfiguration(storage: storage)) { _, client in
            _ = try await client.fetch(HumanQuery(id: "1000"))
            let cached = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly)
            #expect(cached.value.human?.name == "Luke Skywalker")
        }
        #expect(log.all.contains { $0.hasPrefix("[warning]") && $0.contains("cannot be used") && $0.contains("left as it is") })
        #expect(try Data(contentsOf: file) == garbage)
    }

    @Test("after the server has stopped: fresh data from the cache, expired data as an offline fallback")
    func offline() async throws {
        let server = try await TestServer.start()
        let client = APICoreLive.makeClient(APIClientConfiguration(restBaseURL: server.baseURL, timeout: .seconds(20), retryPolicy: nil))
        var request = GraphQLRequest(HumanQuery(id: "1000"))
        _ = try await client.fetch(request)
        await server.stop()

        let fresh = try await client.fetch(request)
        #expect(fresh.source == .cache)
        #expect(!fresh.metadata.isOfflineFallback)

        request.cacheMaxAge = .zero
        try await Task.sleep(for: .milliseconds(5))
        let fallback = try await client.fetch(request)
        #expect(fallback.source == .cache)
        #expect(fallback.metadata.isOfflineFallback)
        #expect(fallback.metadata.isStale)
        #expect(fallback.value.human?.name == "Luke Skywalker")

        await #expect(throws: APIError.self) { try await client.fetch(request, cachePolicy: .networkOnly) }
        // Nothing cached for this one: the transport error comes through.
        do throws(APIError) {
            _ = try await client.fetch(HumanQuery(id: "1001"))
            Issue.record("expected an error")
        } catch {
            guard case .transport(let failure) = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
            #expect(failure.isConnectivity)
        }
    }

    @Test("expiry: an expired record is a miss for cache-else-network and stale for cache-only")
    func expiry() async throws {
        let cache = CacheConfiguration(maxAge: ["Human": .seconds(1)])
        try await withCachingServer(cache: cache) { server, client in
            _ = try await client.fetch(HumanQuery(id: "1000"))
            #expect(try await client.fetch(HumanQuery(id: "1000")).source == .cache)
            try await Task.sleep(for: .milliseconds(1200))
            let stale = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly)
            #expect(stale.metadata.isStale)
            let refreshed = try await client.fetch(HumanQuery(id: "1000"))
            #expect(refreshed.source == .server)
            #expect(server.requests(to: "graphql").count == 2)
            #expect(try await client.fetch(HumanQuery(id: "1000")).metadata.isStale == false)
        }
    }

    @Test("a missing or mistyped field is a miss, never an error or a default")
    func missingField() async throws {
        try await withCachingServer { _, client in
            _ = try await client.fetch(HumanQuery(id: "1000"))
            try await client.cache.updateRecord("Human:1000") { $0["homePlanet"] = nil }
            await #expect(throws: APIError.self) { try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly) }
            try await client.cache.updateRecord("Human:1000") { $0["homePlanet"] = 42 }
            await #expect(throws: APIError.self) { try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly) }
            #expect(try await client.cache.readQuery(HumanQuery(id: "1000")) == nil)
        }
    }

    @Test("read and write a query's data through the client")
    func readWriteQuery() async throws {
        try await withCachingServer { server, client in
            let data = try HumanQuery.Data(validating: [
                "human": ["__typename": "Human", "id": "9999", "name": "Written by hand", "homePlanet": nil]
            ], variables: ["id": "9999"])
            try await client.cache.writeQuery(HumanQuery(id: "9999"), data: data)
            #expect(try await client.cache.readQuery(HumanQuery(id: "9999"))?.human?.name == "Written by hand")
            #expect(try await client.fetch(HumanQuery(id: "9999")).source == .cache)
            #expect(server.requests.isEmpty)
        }
    }

    @Test("a local cache mutation changes cached fields through its setters, and watchers see it")
    func localCacheMutation() async throws {
        try await withCachingServer { server, client in
            #expect(!(HumanNameLocalCacheMutation.self as Any.Type is any GraphQLOperation.Type))
            let miss = await #expect(throws: APIError.self) {
                try await client.cache.update(HumanNameLocalCacheMutation(id: "1000")) { $0.human?.name = "never" }
            }
            #expect(miss?.description == "cache miss: the cache has no complete data for HumanName")
            _ = try await client.fetch(HumanQuery(id: "1000"))
            let watch = Recorder(client.watch(GraphQLRequest(HumanQuery(id: "1000")), cachePolicy: .cacheOnly))
            defer { watch.stop() }
            #expect(await watch.waitFor(1))
            let written = try await client.cache.update(HumanNameLocalCacheMutation(id: "1000")) { data in
                data.human?.name = "Luke (renamed offline)"
            }
            #expect(written.human?.name == "Luke (renamed offline)")
            let read = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly).value.human
            #expect(read?.name == "Luke (renamed offline)")
            #expect(read?.homePlanet == "Tatooine")  // fields the mutation does not select stay
            #expect(await watch.waitFor(2))
            #expect(watch.values.last?.human?.name == "Luke (renamed offline)")
            #expect(server.requests.count == 1)
        }
    }

    @Test("many concurrent writers and readers, on SQLite, leave a consistent cache")
    func concurrency() async throws {
        let directory = try TemporaryDirectory()
        let storage = SQLiteCache.storage(at: directory.url.appendingPathComponent("cache.sqlite"))
        try await withCachingServer(cache: CacheConfiguration(storage: storage)) { _, client in
            _ = try await client.fetch(HumanQuery(id: "1000"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        if index % 2 == 0 {
                            try await client.cache.updateRecord("Human:1000") { $0["homePlanet"] = .string("Planet \(index)") }
                            let data = try HumanQuery.Data(validating: [
                                "human": ["__typename": "Human", "id": .string("w\(index)"), "name": .string("Writer \(index)"), "homePlanet": nil]
                            ])
                            try await client.cache.writeQuery(HumanQuery(id: "w\(index)"), data: data)
                        } else {
                            let read = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly)
                            #expect(read.value.human?.homePlanet?.hasPrefix("Planet") == true || read.value.human?.homePlanet == "Tatooine")
                        }
                    }
                }
                try await group.waitForAll()
            }
            for index in stride(from: 0, to: 40, by: 2) {
                #expect(try await client.cache.readQuery(HumanQuery(id: "w\(index)"))?.human?.name == "Writer \(index)")
            }
        }
    }
}
