@_spi(Tools) import APICore
import APICoreSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A private HTTP cache (RFC 9111) in front of a transport, for `GET`s: what the client's
/// ``HTTPCache`` does, the same on every platform (FoundationNetworking's URLSession does not
/// answer from a URL cache, and its `URLCache` keys entries without the URL's query):
///
/// - a `200` answer to a `GET` is kept when it has a lifetime (`max-age`, else `Expires` after
///   `Date`) or a validator (`ETag`, `Last-Modified`), unless it says `no-store` or `Vary: *`;
/// - while fresh (its age, the `Age` it came with plus the time since, under its lifetime) it is
///   answered without the network, with its current `Age`;
/// - once stale (or with `no-cache`) the request goes with `If-None-Match`/`If-Modified-Since`, and a
///   `304` answers with the kept body and the new headers;
/// - a request's own `Cache-Control: no-store` bypasses the cache, `no-cache` or `max-age=0`
///   revalidates;
/// - answers are kept apart by the request's `Authorization` and `Cookie` (one user never gets
///   another's), and by the values of the headers their `Vary` names.
final class CachingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let store: HTTPCacheStore

    init(base: any HTTPTransport, cache: HTTPCache) {
        self.base = base
        store = HTTPCacheStore(cache)
    }

    /// A body read whole goes through the cache; one that streams goes past it.
    func send(_ request: TransportRequest) async throws(APIError) -> StreamedResponse {
        guard request.readsWholeBody else { return try await base.send(request) }
        return StreamedResponse(whole: try await cached(request.urlRequest, timeout: request.timeout, limit: request.maxBodySize))
    }

    private func cached(_ request: URLRequest, timeout: Duration, limit: Int) async throws(APIError) -> TransportResponse {
        let directives = CacheControl(request.value(forHTTPHeaderField: "Cache-Control"))
        guard (request.httpMethod ?? "GET") == "GET", let url = request.url, !directives.noStore else {
            return try await base.whole(request, timeout: timeout, limit: limit)
        }
        let key = Self.key(for: request, url: url)
        let now = Date()
        let kept = store.entry(for: key).flatMap { $0.varies(from: request) ? nil : $0 }
        var sent = request
        if let kept {
            if !directives.noCache, directives.maxAge != 0, kept.isFresh(at: now) { return kept.response(at: now, url: url) }
            if let etag = kept.headers["etag"] { sent.setValue(etag, forHTTPHeaderField: "If-None-Match") }
            if let modified = kept.headers["last-modified"] { sent.setValue(modified, forHTTPHeaderField: "If-Modified-Since") }
        }
        let response = try await base.whole(sent, timeout: timeout, limit: limit)
        if response.statusCode == 304, var kept {
            // The kept answer, still good: its headers brought up to date, its age restarted.
            for (name, value) in response.headers where !["content-length", "content-type", "content-encoding"].contains(name) {
                kept.headers[name] = value
            }
            kept.storedAt = now
            kept.ageAtStore = Int(response.headers["age"] ?? "") ?? 0
            store.save(kept, for: key)
            return kept.response(at: now, url: url)
        }
        if let entry = Entry(response, request: request, storedAt: now) {
            store.save(entry, for: key)
        } else if kept != nil {
            store.remove(key)
        }
        return response
    }

    /// The key an answer is kept under: the request's URL, with the credentials it carried hashed
    /// after it.
    static func key(for request: URLRequest, url: URL) -> String {
        let credentials = ["Authorization", "Cookie"].compactMap { request.value(forHTTPHeaderField: $0) }
        guard !credentials.isEmpty else { return url.absoluteString }
        return url.absoluteString + " " + SHA256.hexDigest(credentials.joined(separator: "\n")).prefix(32)
    }

    /// A kept answer.
    struct Entry: Codable, Sendable {
        var headers: [String: String]
        var body: Data
        var storedAt: Date
        /// The `Age` the answer came with.
        var ageAtStore: Int
        /// The request's values of the headers the answer's `Vary` names.
        var vary: [String: String]

        /// An answer worth keeping, or `nil`.
        init?(_ response: TransportResponse, request: URLRequest, storedAt: Date) {
            let directives = CacheControl(response.headers["cache-control"])
            guard response.statusCode == 200, !directives.noStore else { return nil }
            let varyNames = (response.headers["vary"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                .filter { !$0.isEmpty }
            guard !varyNames.contains("*") else { return nil }
            headers = response.headers
            body = response.body
            self.storedAt = storedAt
            ageAtStore = Int(response.headers["age"] ?? "") ?? 0
            vary = Dictionary(varyNames.map { ($0, request.value(forHTTPHeaderField: $0) ?? "") }, uniquingKeysWith: { first, _ in first })
            guard lifetime > 0 || headers["etag"] != nil || headers["last-modified"] != nil else { return nil }
        }

        /// Seconds it stays fresh from when it was made: `max-age`, else `Expires` after `Date`;
        /// `no-cache` is none.
        var lifetime: Int {
            let directives = CacheControl(headers["cache-control"])
            if directives.noCache { return 0 }
            if let maxAge = directives.maxAge { return maxAge }
            guard let expires = headers["expires"].flatMap(HTTPDate.parse), let date = headers["date"].flatMap(HTTPDate.parse) else { return 0 }
            return max(0, Int(expires.timeIntervalSince(date)))
        }

        func age(at now: Date) -> Int { ageAtStore + max(0, Int(now.timeIntervalSince(storedAt))) }

        func isFresh(at now: Date) -> Bool { age(at: now) < lifetime }

        /// Whether `request` differs from the one it answered in a header its `Vary` names.
        func varies(from request: URLRequest) -> Bool {
            vary.contains { request.value(forHTTPHeaderField: $0.key) ?? "" != $0.value }
        }

        func response(at now: Date, url: URL) -> TransportResponse {
            var headers = self.headers
            headers["age"] = String(age(at: now))
            return TransportResponse(statusCode: 200, headers: headers, body: body, url: url)
        }
    }
}

/// The `Cache-Control` directives the engine acts on (its HTTP cache, and the normalized cache's
/// expiry), in any case and order; a malformed one is ignored, and of several `max-age`s the
/// shortest holds.
struct CacheControl {
    var noStore = false
    var noCache = false
    /// Seconds.
    var maxAge: Int?

    init(_ header: String?) {
        for directive in (header ?? "").split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            switch (parts.first?.lowercased(), parts.count) {
            case ("no-store", 1): noStore = true
            case ("no-cache", 1): noCache = true
            case ("max-age", 2):
                if let seconds = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))), seconds >= 0 {
                    maxAge = min(maxAge ?? seconds, seconds)
                }
            default: break
            }
        }
    }
}

/// Where ``CachingTransport`` keeps answers: in memory, least recently used first out past its
/// capacity, and with a directory, on disk too (one file per answer, named by the SHA-256 of its
/// key, oldest first out past the disk capacity), so that answers outlive the process.
final class HTTPCacheStore: Sendable {
    private struct Memory {
        var entries: [String: (entry: CachingTransport.Entry, used: UInt64)] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        /// The disk's files and sizes, read once.
        var disk: [String: Int]?
    }

    private let memory = Locked(Memory())
    private let memoryCapacity: Int
    private let diskCapacity: Int
    private let directory: URL?

    init(_ cache: HTTPCache) {
        memoryCapacity = cache.memoryCapacity
        diskCapacity = cache.diskCapacity
        directory = cache.directory
        if let directory { try? PrivateFiles.createFolder(directory) }
    }

    func entry(for key: String) -> CachingTransport.Entry? {
        let inMemory = memory.withLock { state -> CachingTransport.Entry? in
            guard let found = state.entries[key] else { return nil }
            state.clock += 1
            state.entries[key]?.used = state.clock
            return found.entry
        }
        if let inMemory { return inMemory }
        guard let file = file(for: key), let data = try? Data(contentsOf: file),
            let stored = try? JSONDecoder().decode(Stored.self, from: data), stored.key == key
        else { return nil }
        remember(stored.entry, for: key)
        return stored.entry
    }

    func save(_ entry: CachingTransport.Entry, for key: String) {
        remember(entry, for: key)
        guard let file = file(for: key), diskCapacity > 0, let data = try? JSONEncoder().encode(Stored(key: key, entry: entry)),
            data.count <= diskCapacity
        else { return }
        try? PrivateFiles.write(data, to: file)
        let name = file.lastPathComponent
        let evicted = memory.withLock { state -> [String] in
            var disk = state.disk ?? Self.scan(directory)
            disk[name] = data.count
            var evicted: [String] = []
            var total = disk.values.reduce(0, +)
            if total > diskCapacity {
                // Oldest first, by modification date; never the one just written.
                let dates = Dictionary(uniqueKeysWithValues: disk.keys.map { ($0, Self.modified(directory, $0)) })
                for candidate in disk.keys.sorted(by: { dates[$0]! < dates[$1]! }) where candidate != name && total > diskCapacity {
                    total -= disk.removeValue(forKey: candidate) ?? 0
                    evicted.append(candidate)
                }
            }
            state.disk = disk
            return evicted
        }
        for name in evicted { try? FileManager.default.removeItem(at: directory!.appendingPathComponent(name)) }
    }

    func remove(_ key: String) {
        memory.withLock { state in
            if let gone = state.entries.removeValue(forKey: key) { state.bytes -= gone.entry.body.count }
        }
        if let file = file(for: key) {
            try? FileManager.default.removeItem(at: file)
            memory.withLock { _ = $0.disk?.removeValue(forKey: file.lastPathComponent) }
        }
    }

    private func remember(_ entry: CachingTransport.Entry, for key: String) {
        guard entry.body.count <= memoryCapacity else { return }
        memory.withLock { state in
            state.clock += 1
            if let old = state.entries[key] { state.bytes -= old.entry.body.count }
            state.entries[key] = (entry, state.clock)
            state.bytes += entry.body.count
            while state.bytes > memoryCapacity, let oldest = state.entries.min(by: { $0.value.used < $1.value.used }) {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.entry.body.count
            }
        }
    }

    private struct Stored: Codable {
        var key: String
        var entry: CachingTransport.Entry
    }

    private func file(for key: String) -> URL? {
        directory?.appendingPathComponent(SHA256.hexDigest(key) + ".json")
    }

    private static func scan(_ directory: URL?) -> [String: Int] {
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [:] }
        var sizes: [String: Int] = [:]
        for name in names where name.hasSuffix(".json") {
            let size = (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.size] as? Int) ?? 0
            sizes[name] = size
        }
        return sizes
    }

    private static func modified(_ directory: URL?, _ name: String) -> Date {
        guard let directory else { return .distantPast }
        let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
        return attributes?[.modificationDate] as? Date ?? .distantPast
    }
}

/// HTTP dates (RFC 9110's IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
