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
        try await reopened.clearCache()
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

    @Test("rows of the wrong types (a file another program wrote): read as missing, never a crash")
    func mistypedRows() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        // Before: GRDB's row subscripts trapped on NULL or a value of another type.
        let database = try DatabaseQueue(path: file.path)
        try database.write { db in
            try db.execute(sql: "CREATE TABLE apicore_records (key, fields, received_at)")
            try db.execute(sql: """
                INSERT INTO apicore_records VALUES
                  ('Human:1', NULL, 0), ('Human:2', x'7b7d', 'yesterday'), (3, x'7b7d', 0),
                  ('Human:4', 'not json', 0), ('Human:5', '{"name":"Leia"}', 12.5)
                """)
        }
        try database.close()
        let storage = SQLiteCache.storage(at: file, logger: LogCapture().logger)
        let store = try #require(storage.persistent)
        let records = try store.load(["Human:1", "Human:2", "3", "Human:4", "Human:5"])
        // NULL fields and fields that are not a JSON object are missing; a date written as text
        // reads as SQLite converts it (a very old record), which is no harm.
        #expect(records["Human:1"] == nil && records["Human:4"] == nil)
        #expect(Set(records.keys).isSubset(of: ["Human:2", "Human:5"]))
        #expect(records["Human:5"]?.fields["name"] == "Leia")
    }

    @Test("clearing leaves nothing of the old data in any file of the store (database, WAL, shared memory), and the file shrinks")
    func secureClear() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let secret = "secret-\(UUID().uuidString)"
        let store = try #require(SQLiteCache.storage(at: file, logger: LogCapture().logger).persistent)
        // Some records checkpointed into the main file, more still in the WAL.
        func records(_ range: Range<Int>) -> [CacheRecord] {
            range.map { CacheRecord(key: "Note:\($0)", fields: ["text": .string("\(secret) \($0) " + String(repeating: "x", count: 300))], receivedAt: Date()) }
        }
        try store.save(records(0..<1500), fields: [], removing: [], used: [], keeping: .none)
        let checkpoint = try DatabaseQueue(path: file.path)
        try checkpoint.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try checkpoint.close()
        try store.save(records(1500..<2000), fields: [], removing: [], used: [], keeping: .none)
        let files = { try FileManager.default.contentsOfDirectory(at: directory.url, includingPropertiesForKeys: nil) }
        let holding = try files().filter { try Data(contentsOf: $0).range(of: Data(secret.utf8)) != nil }
        #expect(Set(holding.map(\.lastPathComponent)) == ["cache.sqlite", "cache.sqlite-wal"])  // the test can see it
        let sizeBefore = try Data(contentsOf: file).count

        try store.removeAll()
        for url in try files() {
            #expect(try Data(contentsOf: url).range(of: Data(secret.utf8)) == nil, "\(url.lastPathComponent) still holds the secret")
        }
        #expect(try Data(contentsOf: file).count < sizeBefore / 10)
        // The store goes on.
        try store.save(records(0..<1), fields: [], removing: [], used: [], keeping: .none)
        #expect(try store.load(["Note:0"]).count == 1)
    }

    @Test("a store file of another format version: one warning, the memory cache, the file left alone")
    func otherFormatVersion() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let database = try DatabaseQueue(path: file.path)
        try database.write { db in
            try db.execute(sql: "CREATE TABLE apicore_records (key TEXT PRIMARY KEY, fields BLOB, received_at DOUBLE, expires_at DOUBLE)")
            try db.execute(sql: "PRAGMA user_version = 7")
        }
        try database.close()
        let before = try Data(contentsOf: file)
        let log = LogCapture()
        let storage = SQLiteCache.storage(at: file, logger: log.logger)
        #expect(storage.persistent == nil)
        let warnings = log.all.filter { $0.hasPrefix("[warning]") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("format version 7") == true)
        #expect(try Data(contentsOf: file) == before)
    }

    @Test("a store file from before format versions (version 0, the same table) is read and marked as the current version")
    func unversionedFile() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let database = try DatabaseQueue(path: file.path)
        try database.write { db in
            try db.execute(sql: "CREATE TABLE apicore_records (key TEXT PRIMARY KEY NOT NULL, fields BLOB NOT NULL, received_at DOUBLE NOT NULL) WITHOUT ROWID")
            try db.execute(sql: #"INSERT INTO apicore_records VALUES ('Human:1', '{"name":"Luke"}', 0)"#)
        }
        try database.close()
        let log = LogCapture()
        let store = try #require(SQLiteCache.storage(at: file, logger: log.logger).persistent)
        #expect(try store.load(["Human:1"])["Human:1"]?.fields["name"] == "Luke")
        #expect(!log.all.contains { $0.hasPrefix("[warning]") })
        let version = try DatabaseQueue(path: file.path).read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(version == SQLiteRecordStore.formatVersion)
    }

    @Test("a device, a folder or an empty file at the cache path: nothing created beside it, nothing changed without a word")
    func filesItDidNotCreate() throws {
        // Before: /dev/null got -journal/-wal/-shm files beside it, and an empty file silently became a database.
        let sidecars = ["-wal", "-shm", "-journal"].map { "/dev/null" + $0 }
        let existing = sidecars.filter { FileManager.default.fileExists(atPath: $0) }
        let log = LogCapture()
        let device = SQLiteCache.storage(at: URL(fileURLWithPath: "/dev/null"), logger: log.logger)
        #expect(device.persistent == nil)
        #expect(sidecars.filter { FileManager.default.fileExists(atPath: $0) } == existing)
        #expect(log.all.contains { $0.hasPrefix("[warning]") && $0.contains("/dev/null") && $0.contains("not a regular file") })

        let directory = try TemporaryDirectory()
        let folder = SQLiteCache.storage(at: directory.url, logger: log.logger)
        #expect(folder.persistent == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)

        let empty = directory.url.appendingPathComponent("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: empty.path, contents: Data()))
        let made = SQLiteCache.storage(at: empty, logger: log.logger)
        #expect(made.persistent != nil)
        #expect(log.all.contains { $0.hasPrefix("[notice]") && $0.contains("empty.sqlite") && $0.contains("becomes the SQLite cache") })
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
            try await client.updateRecord("Human:1000") { $0["homePlanet"] = nil }
            await #expect(throws: APIError.self) { try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly) }
            try await client.updateRecord("Human:1000") { $0["homePlanet"] = 42 }
            await #expect(throws: APIError.self) { try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly) }
            #expect(try await client.readQuery(HumanQuery(id: "1000")) == nil)
        }
    }

    @Test("read and write a query's data through the client")
    func readWriteQuery() async throws {
        try await withCachingServer { server, client in
            let data = try HumanQuery.Data(validating: [
                "human": ["__typename": "Human", "id": "9999", "name": "Written by hand", "homePlanet": nil]
            ], variables: ["id": "9999"])
            try await client.writeQuery(HumanQuery(id: "9999"), data: data)
            #expect(try await client.readQuery(HumanQuery(id: "9999"))?.human?.name == "Written by hand")
            #expect(try await client.fetch(HumanQuery(id: "9999")).source == .cache)
            #expect(server.requests.isEmpty)
        }
    }

    @Test("a local cache mutation changes cached fields through its setters, and watchers see it")
    func localCacheMutation() async throws {
        try await withCachingServer { server, client in
            #expect(!(HumanNameLocalCacheMutation.self as Any.Type is any GraphQLOperation.Type))
            let miss = await #expect(throws: APIError.self) {
                try await client.updateCache(HumanNameLocalCacheMutation(id: "1000")) { $0.human?.name = "never" }
            }
            #expect(miss?.description == "cache miss: the cache has no complete data for HumanName")
            _ = try await client.fetch(HumanQuery(id: "1000"))
            let watch = Recorder(client.watch(GraphQLRequest(HumanQuery(id: "1000")), cachePolicy: .cacheOnly))
            defer { watch.stop() }
            #expect(await watch.waitFor(1))
            let written = try await client.updateCache(HumanNameLocalCacheMutation(id: "1000")) { data in
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
                            try await client.updateRecord("Human:1000") { $0["homePlanet"] = .string("Planet \(index)") }
                            let data = try HumanQuery.Data(validating: [
                                "human": ["__typename": "Human", "id": .string("w\(index)"), "name": .string("Writer \(index)"), "homePlanet": nil]
                            ])
                            try await client.writeQuery(HumanQuery(id: "w\(index)"), data: data)
                        } else {
                            let read = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly)
                            #expect(read.value.human?.homePlanet?.hasPrefix("Planet") == true || read.value.human?.homePlanet == "Tatooine")
                        }
                    }
                }
                try await group.waitForAll()
            }
            for index in stride(from: 0, to: 40, by: 2) {
                #expect(try await client.readQuery(HumanQuery(id: "w\(index)"))?.human?.name == "Writer \(index)")
            }
        }
    }
}
