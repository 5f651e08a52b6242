import APICore
import Foundation

/// One part of a `multipart/mixed` body: its header fields (names lowercased) and its body.
package struct MultipartPart: Sendable, Equatable {
    package var headers: [String: String]
    package var body: [UInt8]
}

/// Reads a `multipart/mixed` body (RFC 2046) as it streams in, whatever the chunking: a boundary
/// split across chunks, a preamble before the first boundary, transport padding after a boundary,
/// parts without headers, an epilogue after the last boundary. Each byte is looked at a bounded
/// number of times, so a long part arriving one byte at a time costs linear time.
///
/// How incremental delivery (`@defer`) and multipart subscriptions arrive.
package struct MultipartReader {
    private enum State {
        /// Before the first boundary; what is there is a preamble.
        case preamble
        /// Just after a boundary: `--` ends the body, else padding, then CRLF, then a part.
        case afterBoundary
        /// Inside a part, looking for the next boundary.
        case part
        /// After the closing boundary; the rest is an epilogue.
        case closed
    }

    /// `CRLF--boundary`: what ends every part (the first boundary may come without the CRLF).
    private let delimiter: [UInt8]
    private var buffer: [UInt8]
    /// Where in `buffer` unread bytes start.
    private var start = 0
    /// Where the next search for `delimiter` begins: bytes before it cannot start one.
    private var searchFrom = 0
    private var state = State.preamble

    /// The boundary of a `Content-Type` such as `multipart/mixed; boundary="-"; deferSpec=20220824`.
    package static func boundary(ofContentType contentType: String) -> String? {
        let parameters = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parameters.first?.lowercased() == "multipart/mixed" else { return nil }
        for parameter in parameters.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty || value.utf8.count > 70 ? nil : value
        }
        return nil
    }

    /// A reader for parts separated by `boundary`.
    package init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
        // A boundary at the very start has no CRLF before it: read as if there were one.
        buffer = [13, 10]
    }

    /// Whether the closing boundary has been read.
    package var isClosed: Bool { state == .closed }

    /// How many bytes are held that no returned part took: at most one part in the making.
    package var unreadCount: Int { buffer.count - start }

    /// Takes the next bytes and returns the parts they complete, in order.
    package mutating func append(_ bytes: some Sequence<UInt8>) -> [MultipartPart] {
        guard state != .closed else { return [] }
        buffer.append(contentsOf: bytes)
        var parts: [MultipartPart] = []
        while let part = nextPart() {
            parts.append(part)
        }
        compact()
        return parts
    }

    /// Checks that the body ended after its closing boundary: a body cut off mid-way is an error.
    package func finish() throws(APIError) {
        switch state {
        case .closed: return
        case .preamble, .afterBoundary, .part:
            let excerpt = String(decoding: buffer[start...].prefix(120), as: UTF8.self)
            throw .transport(TransportFailure(
                kind: .connectionLost, url: nil,
                underlying: "the multipart response ended before its closing boundary" + (excerpt.isEmpty ? "" : " (after \"\(excerpt)\")")))
        }
    }

    private mutating func nextPart() -> MultipartPart? {
        while true {
            switch state {
            case .closed:
                return nil
            case .preamble:
                guard let found = findDelimiter() else { return nil }
                start = found + delimiter.count
                searchFrom = start
                state = .afterBoundary
            case .afterBoundary:
                // `--` closes the body; else optional padding, then CRLF.
                let available = buffer.count - start
                guard available >= 2 else { return nil }
                if buffer[start] == 45, buffer[start + 1] == 45 {
                    state = .closed
                    return nil
                }
                var index = start
                while index < buffer.count, buffer[index] == 32 || buffer[index] == 9 { index += 1 }
                guard index + 1 < buffer.count else { return nil }
                if buffer[index] == 13, buffer[index + 1] == 10 {
                    start = index + 2
                } else {
                    // Not a boundary line after all (a part that merely starts alike): read on.
                    start = index
                }
                // An empty part shares this CRLF with the delimiter that ends it.
                searchFrom = max(start - 2, 0)
                state = .part
            case .part:
                let partStart = start
                guard let found = findDelimiter() else { return nil }
                let body = found >= partStart ? Array(buffer[partStart..<found]) : []
                start = found + delimiter.count
                searchFrom = start
                state = .afterBoundary
                return Self.split(body)
            }
        }
    }

    /// The index of the next delimiter at or after `searchFrom`, or `nil`, remembering where a
    /// later search must start.
    private mutating func findDelimiter() -> Int? {
        var index = searchFrom
        let last = buffer.count - delimiter.count
        let first = delimiter[0]
        while index <= last {
            if buffer[index] == first, buffer[index..<(index + delimiter.count)].elementsEqual(delimiter) { return index }
            index += 1
        }
        searchFrom = max(index, 0)
        return nil
    }

    /// Drops what was read, now and then, so the buffer holds little more than one part.
    private mutating func compact() {
        let drop = min(start, searchFrom)
        guard drop > 4096, drop * 2 > buffer.count else { return }
        buffer.removeFirst(drop)
        start -= drop
        searchFrom -= drop
    }

    /// Header lines up to the first empty line, then the body.
    private static func split(_ part: [UInt8]) -> MultipartPart {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        if part.starts(with: [13, 10]) {
            headerEnd = 0
        } else if part.count >= 4 {
            for index in 0...(part.count - 4) where part[index] == 13 && part[index..<(index + 4)].elementsEqual(separator) {
                headerEnd = index
                break
            }
        }
        guard let headerEnd else { return MultipartPart(headers: [:], body: part) }
        var headers: [String: String] = [:]
        for line in String(decoding: part[0..<headerEnd], as: UTF8.self).split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] =
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let bodyStart = headerEnd == 0 ? 2 : headerEnd + 4
        return MultipartPart(headers: headers, body: Array(part[min(bodyStart, part.count)...]))
    }
}
