@_spi(Engine) import APICore
import APICoreLive
import APICoreSupport
@testable import APICoreSQLite
import APICoreTesting
import Foundation
import GRDB
import StarWarsOperations
import Synchronization
import Testing

/// The reader role: a client (an extension's, a widget's) that opens the app's cache file
/// read-only reads and watches it and hears of the app's writes, keeps its own answers in memory,
/// and never writes the file or takes its write lock; what would change the cache is refused.
@Suite("A read-only client of the cache file")
struct ReadOnlyCacheTests {
    /// Answers every request with a hero of the name it holds now, and counts the requests.
    final class HeroTransport: HTTPTransport {
        let name: Mutex<String>
        let requests = Mutex(0)

        init(name: String) { self.name = Mutex(name) }

        func send(_ request: TransportRequest) async throws(APIError) -> StreamedResponse {
            requests.withLock { $0 += 1 }
            let body = #"{"data":{"hero":{"__typename":"Droid","id":"2001","name":"\#(name.withLock { $0 })","primaryFunction":"Astromech","friends":[]}}}"#
            let head = TransportResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(), url: request.urlRequest.url)
            return StreamedResponse(head: head, body: .chunks(APIStream { continuation in
                continuation.yield(.success(Data(body.utf8)))
                continuation.finish()
            }))
        }
    }

    private static func client(_ storage: NormalizedCacheStorage, _ transport: HeroTransport) -> any APIClient {
        APICoreLive.makeClient(
            APIClientConfiguration(restBaseURL: URL(string: "http://app.invalid/")!, cache: CacheConfiguration(storage: storage), retryPolicy: nil),
            transport: transport)
    }

    /// The bytes of the database and of its write-ahead log.
    private static func contents(_ file: URL) -> [Data?] {
        ["", "-wal"].map { suffix in try? Data(contentsOf: URL(fileURLWithPath: file.path + suffix)) }
    }

    /// Every change the reader could make, each refused with a message that says why.
    private static func expectRefusals(_ reader: any APIClient) async {
        let review = CreateReviewMutation(episode: nil, review: ReviewInput(stars: 5))
        var refusals: [APIError?] = []
        refusals.append(await thrownError { () async throws(APIError) in try await reader.perform(review) })
        refusals.append(await thrownError { () async throws(APIError) in try await reader.performOrQueue(review) })
        refusals.append(await thrownError { () async throws(APIError) in try await reader.cache.clear() })
        refusals.append(await thrownError { () async throws(APIError) in try await reader.cache.removeRecord("Droid:2001") })
        refusals.append(await thrownError { () async throws(APIError) in try await reader.cache.updateRecord("Droid:2001") { $0["name"] = "X" } })
        refusals.append(await thrownError { () async throws(APIError) in try await reader.cacheMaintenance?.collectGarbage() })
        for refusal in refusals {
            guard case .invalidRequest(let message)? = refusal else {
                Issue.record("not refused as an invalid request: \(String(describing: refusal))")
                continue
            }
            #expect(message.contains("read-only"), "\(message)")
        }
    }

    @Test("it reads and watches what the app wrote and hears of its later writes, keeps its own answers in memory, refuses every change, and leaves the file's bytes and write lock alone")
    func readsNeverWrites() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let appTransport = HeroTransport(name: "R2-D2")
        let app = Self.client(SQLiteCache.storage(at: file), appTransport)
        _ = try await app.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        await app.cacheMaintenance?.persisted()

        // Another connection holds the write lock throughout: a reader that tried to write would wait for it.
        var lockConfiguration = Configuration()
        lockConfiguration.allowsUnsafeTransactions = true
        let lock = try DatabaseQueue(path: file.path, configuration: lockConfiguration)
        try await lock.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        let before = Self.contents(file)

        let storage = SQLiteCache.readOnlyStorage(at: file)
        #expect(storage.isReadOnly && storage.persistent != nil && storage.queue == nil)
        let readerTransport = HeroTransport(name: "Artoo")
        let reader = Self.client(storage, readerTransport)
        #expect(try await reader.fetch(HeroNameQuery(), cachePolicy: .cacheOnly).value.hero?.name == "R2-D2")
        var frames = reader.watch(GraphQLRequest(HeroNameQuery()), cachePolicy: .cacheOnly).makeAsyncIterator()
        #expect(try await frames.next()?.get().value.hero?.name == "R2-D2")
        // Its own fetch: in its memory, not in the file.
        #expect(try await reader.fetch(HeroNameQuery(), cachePolicy: .networkOnly).value.hero?.name == "Artoo")
        #expect(try await frames.next()?.get().value.hero?.name == "Artoo")
        await Self.expectRefusals(reader)
        #expect(readerTransport.requests.withLock { $0 } == 1)
        await reader.cacheMaintenance?.persisted()
        #expect(Self.contents(file) == before)
        try await lock.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }

        // The app's next write reaches the reader's watcher.
        appTransport.name.withLock { $0 = "R2" }
        _ = try await app.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        await app.cacheMaintenance?.persisted()
        // Bounded: a watcher that is never woken ends the test when its stream is given up.
        let next = Task { try await frames.next()?.get().value.hero?.name }
        let deadline = Task {
            try? await Task.sleep(for: .seconds(60))
            next.cancel()
        }
        #expect(try await next.value == "R2")
        deadline.cancel()
        let stored = try SQLiteRecordStore(url: file, readOnly: true).loadAll()
        #expect(stored.contains { $0.fields["name"] == "R2" } && !stored.contains { $0.fields["name"] == "Artoo" })
    }

    @Test("it reads a file no other process has open (the app is not running), and the file's data stays as it was")
    func appNotRunning() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        do {
            let app = Self.client(SQLiteCache.storage(at: file), HeroTransport(name: "R2-D2"))
            _ = try await app.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
            await app.cacheMaintenance?.persisted()
        }
        // The app's connections closed with it: the database is in its main file alone.
        let before = try Data(contentsOf: file)
        let reader = Self.client(SQLiteCache.readOnlyStorage(at: file), HeroTransport(name: "Artoo"))
        #expect(try await reader.fetch(HeroNameQuery(), cachePolicy: .cacheOnly).value.hero?.name == "R2-D2")
        #expect(try Data(contentsOf: file) == before)
    }

    @Test("a file it cannot read as it is (missing, empty, of another format version) gives a read-only cache in memory: the file is not made or changed, and changes are still refused")
    func unusableFiles() async throws {
        let directory = try TemporaryDirectory()
        let missing = directory.url.appendingPathComponent("missing.sqlite")
        let empty = directory.url.appendingPathComponent("empty.sqlite")
        _ = FileManager.default.createFile(atPath: empty.path, contents: Data())
        // A file of format version 3 (an app not yet updated wrote it): the reader does not migrate it.
        let older = directory.url.appendingPathComponent("older.sqlite")
        _ = try SQLiteRecordStore(url: older)
        try await DatabaseQueue(path: older.path).writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 3") }
        let later = directory.url.appendingPathComponent("later.sqlite")
        try await DatabaseQueue(path: later.path).writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 99") }

        for file in [missing, empty, older, later] {
            let before = Self.contents(file)
            let listing = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
            let storage = SQLiteCache.readOnlyStorage(at: file)
            #expect(storage.isReadOnly && storage.persistent == nil, "\(file.lastPathComponent)")
            let transport = HeroTransport(name: "R2-D2")
            let reader = Self.client(storage, transport)
            #expect(try await reader.fetch(HeroNameQuery(), cachePolicy: .cacheElseNetwork).value.hero?.name == "R2-D2")
            #expect(try await reader.fetch(HeroNameQuery(), cachePolicy: .cacheOnly).value.hero?.name == "R2-D2")
            await Self.expectRefusals(reader)
            #expect(Self.contents(file) == before, "\(file.lastPathComponent)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == listing, "\(file.lastPathComponent)")
        }
    }
}
