import APICore
import Foundation

/// One event of a `text/event-stream` body.
struct ServerSentEvent: Sendable, Equatable {
    /// The `event` field; `message` when the event names none.
    var type: String
    /// The `data` lines, joined by line feeds.
    var data: Data
    /// The last `id` field seen, if any.
    var id: String?

    init(type: String, data: Data, id: String? = nil) {
        self.type = type
        self.data = data
        self.id = id
    }
}

/// Reads a `text/event-stream` body as it arrives, in chunks cut anywhere, as the Server-Sent
/// Events specification interprets an event stream: lines end with CRLF, LF or CR; a blank line
/// ends an event; `event`, `data` and `id` fields are kept (`retry` and unknown fields are
/// ignored); a line that starts with `:` is a comment (a heartbeat). Events and lines are bounded
/// by `maxEventSize`, so that a server cannot make the reader hold an unbounded buffer.
struct ServerSentEventReader {
    /// An event (or a line) longer than the limit: the stream cannot be read on.
    struct TooLarge: Error, Equatable {
        var size: Int
        var limit: Int
    }

    private let maxEventSize: Int
    /// Bytes of the current line not yet ended.
    private var line: [UInt8] = []
    /// A CR ended the last line: an LF right after it belongs to it.
    private var afterCR = false
    /// A line has ended already (a byte order mark opens only the first).
    private var started = false
    private var type = ""
    private var data: [UInt8] = []
    private var hasData = false
    private var lastID: String?

    init(maxEventSize: Int = .max) { self.maxEventSize = maxEventSize }

    /// The events that `chunk` completes.
    mutating func append(_ chunk: Data) throws(TooLarge) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        var index = chunk.startIndex
        // A CR that ended the last chunk and an LF that opens this one are one line break.
        if afterCR, index < chunk.endIndex, chunk[index] == 0x0A { index += 1 }
        afterCR = false
        while index < chunk.endIndex {
            guard let end = chunk[index...].firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) else {
                line.append(contentsOf: chunk[index...])
                if unreadCount > maxEventSize { throw TooLarge(size: unreadCount, limit: maxEventSize) }
                break
            }
            line.append(contentsOf: chunk[index..<end])
            if unreadCount > maxEventSize { throw TooLarge(size: unreadCount, limit: maxEventSize) }
            if let event = endLine() { events.append(event) }
            index = end + 1
            if chunk[end] == 0x0D {
                if index == chunk.endIndex {
                    afterCR = true
                } else if chunk[index] == 0x0A {
                    index += 1
                }
            }
        }
        return events
    }

    /// Bytes held for an event not yet ended.
    var unreadCount: Int { line.count + data.count }

    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        if !started {
            // A byte order mark may open the stream.
            started = true
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
        }
        guard !line.isEmpty else { return dispatch() }
        if line[0] == UInt8(ascii: ":") { return nil }  // a comment
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = String(decoding: line[..<(colon ?? line.endIndex)], as: UTF8.self)
        var valueStart = colon.map { $0 + 1 } ?? line.endIndex
        if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = line[valueStart...]
        switch name {
        case "event":
            type = String(decoding: value, as: UTF8.self)
        case "data":
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        case "id":
            if !value.contains(0) { lastID = String(decoding: value, as: UTF8.self) }
        default:
            break  // `retry` and fields this reader does not know
        }
        return nil
    }

    /// The event the blank line ends: one with data or a type (graphql-sse's `complete` may come
    /// without data), nothing for a blank line alone.
    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            type = ""
            data.removeAll(keepingCapacity: true)
            hasData = false
        }
        guard hasData || !type.isEmpty else { return nil }
        return ServerSentEvent(type: type.isEmpty ? "message" : type, data: Data(data), id: lastID)
    }
}
