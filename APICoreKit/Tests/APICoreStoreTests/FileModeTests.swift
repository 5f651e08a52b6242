@testable import APICoreLive
import APICoreSQLite
import APICoreSupport
import APICoreTesting
import Foundation
import Logging
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every file the client writes holds its users' data: files 0600, the folders it creates 0700,
/// whatever the process's umask lets through (022 here, as on most systems).
@Suite("Files the client writes are its owner's alone")
struct FileModeTests {
    private static func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try #require(attributes[.posixPermissions] as? NSNumber).intValue & 0o777
    }

    @Test("the SQLite cache (queued mutations included) and its -wal and -shm are 0600, the folders made for it 0700")
    func sqliteCache() async throws {
        let directory = try TemporaryDirectory()
        let folder = directory.url.appendingPathComponent("pantry/cache")
        let file = folder.appendingPathComponent("cache.sqlite")
        let storage = SQLiteCache.storage(at: file)
        let store = NormalizedStore(persistent: storage.persistent, logger: Logger(label: "test"))
        await CacheWriter(store: store).write(records: ["Human:1": ["__typename": "Human", "name": "Luke", "email": "luke@example.com"]])
        let queue = try #require(storage.queue)
        try queue.enqueue(StoredMutation(
            id: "1", operationName: "Rename", document: "mutation Rename { rename }", variables: [:], optimistic: nil, enqueuedAt: Date()))
        // The pool is open: the write-ahead log and the shared memory are there beside the file.
        for name in ["cache.sqlite", "cache.sqlite-wal", "cache.sqlite-shm"] {
            #expect(try Self.mode(folder.appendingPathComponent(name)) == 0o600, "\(name)")
        }
        #expect(try Self.mode(folder) == 0o700)
        #expect(try Self.mode(folder.deletingLastPathComponent()) == 0o700)
    }

    @Test("a cache an earlier version left readable by others (0644, its -wal too) is made owner-only when opened")
    func existingCacheTightened() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        do {
            let store = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
            await CacheWriter(store: store).write(records: ["Human:1": ["__typename": "Human", "name": "Luke"]])
        }
        for name in ["cache.sqlite", "cache.sqlite-wal"] {
            let url = directory.url.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        }
        let reopened = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        #expect(await reopened.record("Human:1")?.fields["name"] == "Luke")
        #expect(try Self.mode(file) == 0o600)
        let wal = directory.url.appendingPathComponent("cache.sqlite-wal")
        if FileManager.default.fileExists(atPath: wal.path) { #expect(try Self.mode(wal) == 0o600) }
    }

    @Test("the HTTP cache's folder is 0700 and each answer kept on disk 0600")
    func httpCache() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.url.appendingPathComponent("http-cache")
        let cache = HTTPCacheStore(HTTPCache(directory: folder))
        let request = URLRequest(url: URL(string: "https://example.com/products/1")!)
        let answer = TransportResponse(statusCode: 200, headers: ["cache-control": "max-age=60"], body: Data(#"{"name":"Flour"}"#.utf8), url: request.url)
        let entry = try #require(CachingTransport.Entry(answer, request: request, storedAt: Date()))
        cache.save(entry, for: "GET https://example.com/products/1")
        #expect(try Self.mode(folder) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.count == 1)
        for name in files { #expect(try Self.mode(folder.appendingPathComponent(name)) == 0o600, "\(name)") }
        // Read back from disk by a store with an empty memory.
        #expect(HTTPCacheStore(HTTPCache(directory: folder)).entry(for: "GET https://example.com/products/1")?.body == entry.body)
    }

    @Test("the token file is 0600 and its folder 0700, also when it replaces a token file others could read")
    func tokenFile() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("pantry/token.json")
        let store = FileTokenStore(url: url)
        try await store.save(AuthToken(accessToken: "first"))
        #expect(try Self.mode(url) == 0o600)
        #expect(try Self.mode(url.deletingLastPathComponent()) == 0o700)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        try await store.save(AuthToken(accessToken: "second"))
        #expect(try Self.mode(url) == 0o600)
        #expect(try await store.load()?.accessToken == "second")
        // Nothing is left beside it from the write.
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["token.json"])
    }
}
