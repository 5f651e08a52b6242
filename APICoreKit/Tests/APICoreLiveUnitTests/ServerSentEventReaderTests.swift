import APICore
@testable import APICoreLive
import Foundation
import Testing

/// The `text/event-stream` reader that graphql-sse subscriptions arrive through: any chunking gives
/// the same events, every line ending counts, comments are heartbeats, and a server cannot make
/// it hold more than the limit.
@Suite("text/event-stream reader")
struct ServerSentEventReaderTests {
    /// A stream as graphql-sse servers write it: a comment, two results, the end.
    static let stream = Array((
        ":\n\n"
            + "event: next\ndata: {\"data\":{\"counter\":1}}\n\n"
            + "event: next\r\ndata: {\"data\":\r\ndata: {\"counter\":2}}\r\n\r\n"
            + "event: complete\rdata:\r\r").utf8)

    static let expected = [
        ServerSentEvent(type: "next", data: Data(#"{"data":{"counter":1}}"#.utf8)),
        ServerSentEvent(type: "next", data: Data("{\"data\":\n{\"counter\":2}}".utf8)),
        ServerSentEvent(type: "complete", data: Data()),
    ]

    /// Reads `bytes` in chunks ending at `cuts`.
    static func read(_ bytes: [UInt8], cuts: [Int], limit: Int = .max) throws -> [ServerSentEvent] {
        var reader = ServerSentEventReader(maxEventSize: limit)
        var events: [ServerSentEvent] = []
        var from = 0
        for cut in cuts.sorted() + [bytes.count] where cut >= from {
            events += try reader.append(Data(bytes[from..<cut]))
            from = cut
        }
        return events
    }

    @Test("whole, byte by byte, and cut at every place: the same events (LF, CRLF and CR line ends; multi-line data)")
    func anyChunking() throws {
        let bytes = Self.stream
        #expect(try Self.read(bytes, cuts: []) == Self.expected)
        #expect(try Self.read(bytes, cuts: Array(1..<bytes.count)) == Self.expected)
        for cut in 1..<bytes.count {
            #expect(try Self.read(bytes, cuts: [cut]) == Self.expected, "cut at \(cut)")
        }
    }

    @Test("a byte order mark, fields without a space, ids, unknown fields and events without a type")
    func fields() throws {
        let text = "\u{FEFF}id: 7\nretry: 100\nfoo: bar\ndata:one\n\nevent:next\ndata\n\n: only a comment\n\n"
        let events = try Self.read(Array(text.utf8), cuts: [1, 2])
        #expect(events == [
            ServerSentEvent(type: "message", data: Data("one".utf8), id: "7"),
            ServerSentEvent(type: "next", data: Data(), id: "7"),
        ])
    }

    @Test("an event over the limit is refused, whether it comes in one line or many")
    func limit() throws {
        let long = Array(("event: next\ndata: " + String(repeating: "x", count: 200) + "\n\n").utf8)
        #expect(throws: ServerSentEventReader.TooLarge.self) { try Self.read(long, cuts: [], limit: 100) }
        #expect(throws: ServerSentEventReader.TooLarge.self) { try Self.read(long, cuts: Array(stride(from: 1, to: long.count, by: 7)), limit: 100) }
        let many = Array(("event: next\n" + String(repeating: "data: xxxxxxxxxx\n", count: 20) + "\n").utf8)
        #expect(throws: ServerSentEventReader.TooLarge.self) { try Self.read(many, cuts: [], limit: 100) }
        #expect(try Self.read(long, cuts: [], limit: 1_000).count == 1)
    }
}
