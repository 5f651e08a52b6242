@_spi(Engine) import APICore
@testable import APICoreLive
import Foundation
import Testing

/// The streaming `multipart/mixed` reader that incremental delivery and multipart subscriptions
/// arrive through: any chunking gives the same parts, and a body cut off is an error.
@Suite("multipart/mixed reader")
struct MultipartReaderTests {
    /// An answer to a deferred query as Apollo Server writes it (2022 format, boundary `-`).
    static let recorded = Array((
        "\r\n---\r\ncontent-type: application/json; charset=utf-8\r\n\r\n"
            + #"{"data":{"hero":{"__typename":"Droid","id":"2001"}},"hasNext":true}"#
            + "\r\n---\r\ncontent-type: application/json; charset=utf-8\r\n\r\n"
            + #"{"incremental":[{"data":{"name":"R2-D2"},"path":["hero"]}],"hasNext":false}"#
            + "\r\n-----\r\n").utf8)

    static let recordedBodies = [
        #"{"data":{"hero":{"__typename":"Droid","id":"2001"}},"hasNext":true}"#,
        #"{"incremental":[{"data":{"name":"R2-D2"},"path":["hero"]}],"hasNext":false}"#,
    ]

    /// Reads `bytes` in chunks ending at `cuts`, and says whether the reader was closed.
    static func read(_ bytes: [UInt8], boundary: String = "-", cuts: [Int]) -> (bodies: [String], headers: [[String: String]], closed: Bool) {
        var reader = MultipartReader(boundary: boundary)
        var parts: [MultipartPart] = []
        var from = 0
        for cut in cuts.sorted() + [bytes.count] where cut >= from {
            parts += reader.append(bytes[from..<cut])
            from = cut
        }
        return (parts.map { String(decoding: $0.body, as: UTF8.self) }, parts.map(\.headers), reader.isClosed)
    }

    @Test("a recorded deferred answer: two JSON parts with their content type, then closed")
    func whole() {
        let read = Self.read(Self.recorded, cuts: [])
        #expect(read.bodies == Self.recordedBodies)
        #expect(read.headers.allSatisfy { $0 == ["content-type": "application/json; charset=utf-8"] })
        #expect(read.closed)
    }

    @Test("one byte at a time, and cut in two at every byte: the same parts")
    func everyChunking() {
        #expect(Self.read(Self.recorded, cuts: Array(0..<Self.recorded.count)).bodies == Self.recordedBodies)
        for cut in 0...Self.recorded.count {
            let read = Self.read(Self.recorded, cuts: [cut])
            #expect(read.bodies == Self.recordedBodies, "cut at \(cut)")
            #expect(read.closed, "cut at \(cut)")
        }
    }

    @Test("a 256 KB part arriving one byte at a time reads back whole")
    func longPartByteByByte() {
        let payload = String(repeating: "{\"a\":\"-\\r\\n\"}", count: 256 * 1024 / 16)
        let bytes = Array(("\r\n---\r\n\r\n" + payload + "\r\n-----").utf8)
        var reader = MultipartReader(boundary: "-")
        var parts: [MultipartPart] = []
        for byte in bytes { parts += reader.append(CollectionOfOne(byte)) }
        #expect(parts.map(\.body) == [Array(payload.utf8)])
        #expect(reader.isClosed)
    }

    @Test("a preamble, a boundary at the very start, padding after a boundary, a part without headers, an empty part, an epilogue")
    func edges() {
        let body = Array((
            "This is a preamble.\r\n--abc  \t\r\nX-Part: one\r\n\r\nfirst\r\n--abc\r\n\r\nno headers\r\n--abc\r\n\r\n--abc--\r\nepilogue --abc\r\n").utf8)
        let read = Self.read(body, boundary: "abc", cuts: [])
        #expect(read.bodies == ["first", "no headers", ""])
        #expect(read.headers.first == ["x-part": "one"])
        #expect(read.closed)
        let atStart = Self.read(Array("--abc\r\n\r\nonly\r\n--abc--".utf8), boundary: "abc", cuts: [3])
        #expect(atStart.bodies == ["only"] && atStart.closed)
    }

    @Test("a body cut off before its closing boundary is an error naming where it stopped; a closed one is not")
    func cutOff() throws {
        var reader = MultipartReader(boundary: "-")
        _ = reader.append(Self.recorded.prefix(90))
        #expect(throws: APIError.self) { try reader.finish() }
        do throws(APIError) {
            try reader.finish()
        } catch {
            #expect(error.description.contains("ended before its closing boundary"))
        }
        var whole = MultipartReader(boundary: "-")
        _ = whole.append(Self.recorded)
        try whole.finish()
    }

    @Test("random parts in random chunks read back exactly", arguments: 0..<20)
    func randomChunking(_ seed: Int) {
        var generator = SeededGenerator(seed: UInt64(seed))
        let alphabet = Array("ab-\r\n{}\":,xyz0123456789 ".utf8)
        let bodies = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
            String(decoding: (0..<Int.random(in: 0...300, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
        }.filter { !$0.contains("\r\n--zz") }
        var text = "preamble\r\n"
        for body in bodies { text += "--zz\r\nContent-Type: text/plain\r\n\r\n" + body + "\r\n" }
        text += "--zz--\r\n"
        let bytes = Array(text.utf8)
        let cuts = (0..<Int.random(in: 0...40, using: &generator)).map { _ in Int.random(in: 0...bytes.count, using: &generator) }
        let read = Self.read(bytes, boundary: "zz", cuts: cuts)
        #expect(read.bodies == bodies, "seed \(seed), cuts \(cuts.sorted())")
        #expect(read.closed)
    }

    @Test("the boundary from a Content-Type, quoted or not; none from other types")
    func boundaryParameter() {
        #expect(MultipartReader.boundary(ofContentType: #"multipart/mixed; boundary="-"; deferSpec=20220824"#) == "-")
        #expect(MultipartReader.boundary(ofContentType: "multipart/mixed;boundary=graphql;subscriptionSpec=1.0") == "graphql")
        #expect(MultipartReader.boundary(ofContentType: "Multipart/Mixed; Boundary=abc") == "abc")
        #expect(MultipartReader.boundary(ofContentType: "application/json") == nil)
        #expect(MultipartReader.boundary(ofContentType: "multipart/mixed") == nil)
        #expect(MultipartReader.boundary(ofContentType: #"multipart/mixed; boundary="""#) == nil)
        // strawberry's, with a second media type run into the last parameter.
        #expect(MultipartReader.boundary(ofContentType: "multipart/mixed;boundary=graphql;subscriptionSpec=1.0,application/json") == "graphql")
    }

    /// A multipart subscription's body as Apollo Router writes it: a heartbeat, an event, a
    /// heartbeat, the end.
    static let subscriptionBody = Data((
        "\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{}"
            + "\r\n--graphql\r\ncontent-type: application/json\r\n\r\n" + #"{"payload":{"data":{"counter":1}}}"#
            + "\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{}"
            + "\r\n--graphql--\r\n").utf8)

    static func payloads(_ body: Data, heartbeats: Bool, maxPartSize: Int = .max) async -> [Result<JSONObject, APIError>] {
        let chunks = APIStream<Result<Data, APIError>> { continuation in
            // Three bytes at a time, so parts and limits are met mid-chunk.
            for start in stride(from: 0, to: body.count, by: 3) { continuation.yield(.success(body[start..<min(start + 3, body.count)])) }
            continuation.finish()
        }
        var results: [Result<JSONObject, APIError>] = []
        for await result in IncrementalParts.payloads(
            of: chunks, boundary: "graphql", operationName: "Counter", heartbeats: heartbeats, maxPartSize: maxPartSize)
        {
            results.append(result)
        }
        return results
    }

    @Test("heartbeats are skipped for @defer and kept, as empty objects, for subscriptions")
    func heartbeats() async throws {
        let skipped = try await Self.payloads(Self.subscriptionBody, heartbeats: false).map { try $0.get() }
        #expect(skipped == [["payload": ["data": ["counter": 1]]]])
        let kept = try await Self.payloads(Self.subscriptionBody, heartbeats: true).map { try $0.get() }
        #expect(kept == [[:], ["payload": ["data": ["counter": 1]]], [:]])
    }

    @Test("a part over the size limit stops the stream with an error, whole or still arriving")
    func partSizeLimit() async {
        let whole = await Self.payloads(Self.subscriptionBody, heartbeats: true, maxPartSize: 50)
        #expect(whole.count == 2)  // the heartbeat, then the error
        guard case .failure(.invalidResponse(let failure)) = whole.last else {
            Issue.record("expected an invalid response, got \(whole)")
            return
        }
        #expect(failure.kind == .tooLarge(limit: 50))
        #expect(failure.description.contains("bound of 50 bytes"))
        // A part that never ends: the limit stops it before the body is all held.
        let endless = Data(("\r\n--graphql\r\n\r\n" + String(repeating: "x", count: 10_000)).utf8)
        let cut = await Self.payloads(endless, heartbeats: true, maxPartSize: 1_000)
        #expect(cut.count == 1)
        if case .failure(.invalidResponse(let failure)) = cut.first {
            #expect(failure.kind == .tooLarge(limit: 1_000))
        } else {
            Issue.record("expected an invalid response, got \(cut)")
        }
    }
}

/// A small deterministic generator (SplitMix64), so a failing seed can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
