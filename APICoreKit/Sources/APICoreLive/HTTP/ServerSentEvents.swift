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

    /// The events that `chunk` completes. The chunk is scanned in place: a line that lies whole
    /// in it is read from it without a copy; only a line cut by the chunk's end is kept.
    mutating func append(_ chunk: Data) throws(TooLarge) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        let tooLarge = chunk.withUnsafeBytes { bytes in scan(bytes, into: &events) }
        if let tooLarge { throw tooLarge }
        return events
    }

    private mutating func scan(_ bytes: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) -> TooLarge? {
        var index = 0
        let count = bytes.count
        // A CR that ended the last chunk and an LF that opens this one are one line break.
        if afterCR, index < count, bytes[index] == 0x0A { index += 1 }
        afterCR = false
        while index < count {
            var end = index
            while end < count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            let piece = UnsafeRawBufferPointer(rebasing: bytes[index..<end])
            guard end < count else {
                line.append(contentsOf: piece)
                return unreadCount > maxEventSize ? TooLarge(size: unreadCount, limit: maxEventSize) : nil
            }
            if line.isEmpty {
                if piece.count + data.count > maxEventSize { return TooLarge(size: piece.count + data.count, limit: maxEventSize) }
                if let event = endLine(piece) { events.append(event) }
            } else {
                line.append(contentsOf: piece)
                if unreadCount > maxEventSize { return TooLarge(size: unreadCount, limit: maxEventSize) }
                // The line is read out of its buffer, which is emptied and kept for the next one.
                var whole: [UInt8] = []
                swap(&whole, &line)
                if let event = whole.withUnsafeBytes({ endLine($0) }) { events.append(event) }
                whole.removeAll(keepingCapacity: true)
                swap(&whole, &line)
            }
            index = end + 1
            if bytes[end] == 0x0D {
                if index == count {
                    afterCR = true
                } else if bytes[index] == 0x0A {
                    index += 1
                }
            }
        }
        return nil
    }

    /// Bytes held for an event not yet ended.
    var unreadCount: Int { line.count + data.count }

    private mutating func endLine(_ whole: UnsafeRawBufferPointer) -> ServerSentEvent? {
        var line = whole[...]
        if !started {
            // A byte order mark may open the stream.
            started = true
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
        }
        guard let first = line.first else { return dispatch() }
        if first == UInt8(ascii: ":") { return nil }  // a comment
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = line[..<(colon ?? line.endIndex)]
        var valueStart = colon.map { $0 + 1 } ?? line.endIndex
        if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = line[valueStart...]
        if name.elementsEqual("data".utf8) {
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        } else if name.elementsEqual("event".utf8) {
            type = String(decoding: value, as: UTF8.self)
        } else if name.elementsEqual("id".utf8) {
            if !value.contains(0) { lastID = String(decoding: value, as: UTF8.self) }
        }
        // `retry` and fields this reader does not know are ignored.
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
