@_spi(Tools) import APICore
@testable import APICoreLive
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The HTTP cache's rules and store with a transport that answers what the test says: eviction in
/// memory and on disk, `Expires`/`Date`, `Last-Modified` revalidation, and an answer that may no
/// longer be kept replacing one that was.
@Suite("HTTP cache store")
struct HTTPCacheStoreTests {
    /// Answers each request with the next canned response, and keeps the requests.
    final class CannedTransport: HTTPTransport {
        let state = Locked<(responses: [TransportResponse], requests: [URLRequest])>(([], []))

        func answer(_ status: Int, _ headers: [String: String], _ body: String) {
            state.withLock { $0.responses.append(TransportResponse(statusCode: status, headers: headers, body: Data(body.utf8), url: nil)) }
        }

        var requests: [URLRequest] { state.withLock { $0.requests } }

        func send(_ request: TransportRequest) async throws(APIError) -> StreamedResponse {
            guard request.readsWholeBody else { throw .invalidRequest("not streamed here") }
            let next = state.withLock { state -> TransportResponse? in
                state.requests.append(request.urlRequest)
                return state.responses.isEmpty ? nil : state.responses.removeFirst()
            }
            guard let next else {
                throw .transport(TransportFailure(kind: .connectionRefused, url: request.urlRequest.url, underlying: "no canned answer"))
            }
            return StreamedResponse(whole: next)
        }
    }

    static func get(_ path: String) -> URLRequest {
        URLRequest(url: URL(string: "http://127.0.0.1:9/\(path)")!)
    }

    @Test("memory keeps the most recently used answers within its capacity")
    func memoryEviction() async throws {
        let base = CannedTransport()
        let cache = CachingTransport(base: base, cache: HTTPCache(memoryCapacity: 100, diskCapacity: 0))
        let body = String(repeating: "x", count: 40)
        for path in ["a", "b", "c"] {
            base.answer(200, ["cache-control": "max-age=600"], body)
            _ = try await cache.whole(Self.get(path), timeout: .seconds(5))
        }
        // 120 bytes do not fit in 100: "a", the least recently used, went.
        base.answer(200, ["cache-control": "max-age=600"], body)
        _ = try await cache.whole(Self.get("c"), timeout: .seconds(5))
        _ = try await cache.whole(Self.get("b"), timeout: .seconds(5))
        #expect(base.requests.count == 3)
        _ = try await cache.whole(Self.get("a"), timeout: .seconds(5))
        #expect(base.requests.count == 4)
    }

    @Test("the disk keeps the newest answers within its capacity, and they outlive the store")
    func diskEviction() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apicore-http-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = CannedTransport()
        let settings = HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 2_500, directory: directory)
        let cache = CachingTransport(base: base, cache: settings)
        for path in ["a", "b", "c", "d"] {
            base.answer(200, ["cache-control": "max-age=600"], String(repeating: path, count: 500))
            _ = try await cache.whole(Self.get(path), timeout: .seconds(5))
        }
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.fileSizeKey])
        let total = try files.reduce(0) { $0 + (try $1.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) }
        #expect(total <= 2_500, "\(total) bytes in \(files.count) files")
        #expect(files.count < 4)
        // A new store on the same directory: the last answer is there, the first is not.
        let later = CachingTransport(base: base, cache: settings)
        let d = try await later.whole(Self.get("d"), timeout: .seconds(5))
        #expect(String(decoding: d.body, as: UTF8.self) == String(repeating: "d", count: 500))
        #expect(base.requests.count == 4)
        base.answer(200, [:], "fresh a")
        _ = try await later.whole(Self.get("a"), timeout: .seconds(5))
        #expect(base.requests.count == 5)
    }

    @Test("Expires after Date is a lifetime; Last-Modified alone is revalidated with If-Modified-Since")
    func expiresAndLastModified() async throws {
        let base = CannedTransport()
        let cache = CachingTransport(base: base, cache: HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 0))
        base.answer(200, ["date": "Thu, 26 Nov 2026 00:00:00 GMT", "expires": "Thu, 26 Nov 2026 01:00:00 GMT"], "one hour")
        _ = try await cache.whole(Self.get("expires"), timeout: .seconds(5))
        let again = try await cache.whole(Self.get("expires"), timeout: .seconds(5))
        #expect(String(decoding: again.body, as: UTF8.self) == "one hour")
        #expect(base.requests.count == 1)

        base.answer(200, ["last-modified": "Wed, 25 Nov 2026 10:00:00 GMT"], "modified")
        _ = try await cache.whole(Self.get("modified"), timeout: .seconds(5))
        base.answer(304, [:], "")
        let revalidated = try await cache.whole(Self.get("modified"), timeout: .seconds(5))
        #expect(base.requests.last?.value(forHTTPHeaderField: "If-Modified-Since") == "Wed, 25 Nov 2026 10:00:00 GMT")
        #expect(revalidated.statusCode == 200 && String(decoding: revalidated.body, as: UTF8.self) == "modified")
    }

    @Test("a revalidation answered with an answer that may not be kept drops the kept one; errors pass through")
    func replacedAndErrors() async throws {
        let base = CannedTransport()
        let cache = CachingTransport(base: base, cache: HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 0))
        base.answer(200, ["etag": "\"1\""], "first")
        _ = try await cache.whole(Self.get("x"), timeout: .seconds(5))
        base.answer(200, ["cache-control": "no-store"], "second")
        let second = try await cache.whole(Self.get("x"), timeout: .seconds(5))
        #expect(String(decoding: second.body, as: UTF8.self) == "second")
        base.answer(503, [:], "down")
        let failed = try await cache.whole(Self.get("x"), timeout: .seconds(5))
        #expect(failed.statusCode == 503)
        // Nothing kept: the request carried no validator.
        #expect(base.requests.last?.value(forHTTPHeaderField: "If-None-Match") == nil)
        // POSTs are never looked up or kept.
        var post = Self.get("x")
        post.httpMethod = "POST"
        base.answer(200, ["cache-control": "max-age=600"], "posted")
        _ = try await cache.whole(post, timeout: .seconds(5))
        base.answer(200, ["cache-control": "max-age=600"], "posted again")
        let again = try await cache.whole(post, timeout: .seconds(5))
        #expect(String(decoding: again.body, as: UTF8.self) == "posted again")
    }
}
