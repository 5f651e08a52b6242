import Foundation

/// A minimal `multipart/form-data` reader, enough to check uploads byte for byte.
enum Multipart {
    struct Part {
        var name: String
        var filename: String?
        var contentType: String?
        var body: Data
    }

    static func parse(_ body: Data, contentType: String) -> [Part]? {
        guard let range = contentType.range(of: "boundary=") else { return nil }
        let boundary = Data(("--" + contentType[range.upperBound...].trimmingCharacters(in: .whitespaces)).utf8)
        let bytes = [UInt8](body)
        var parts: [Part] = []
        var cursor = 0
        func find(_ needle: [UInt8], from start: Int) -> Int? {
            guard needle.count <= bytes.count else { return nil }
            var index = start
            while index <= bytes.count - needle.count {
                if bytes[index] == needle[0] && Array(bytes[index..<index + needle.count]) == needle { return index }
                index += 1
            }
            return nil
        }
        guard var start = find([UInt8](boundary), from: cursor) else { return nil }
        while true {
            cursor = start + boundary.count
            if cursor + 2 <= bytes.count, bytes[cursor] == UInt8(ascii: "-"), bytes[cursor + 1] == UInt8(ascii: "-") { break }
            cursor += 2  // CRLF after the boundary
            guard let headerEnd = find([13, 10, 13, 10], from: cursor) else { return nil }
            let headers = String(decoding: bytes[cursor..<headerEnd], as: UTF8.self)
            let contentStart = headerEnd + 4
            guard let next = find([13, 10] + [UInt8](boundary), from: contentStart) else { return nil }
            var part = Part(name: "", filename: nil, contentType: nil, body: Data(bytes[contentStart..<next]))
            for line in headers.components(separatedBy: "\r\n") {
                let lowered = line.lowercased()
                if lowered.hasPrefix("content-disposition:") {
                    part.name = value(of: "name", in: line) ?? ""
                    part.filename = value(of: "filename", in: line)
                } else if lowered.hasPrefix("content-type:") {
                    part.contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
                }
            }
            parts.append(part)
            start = next + 2
        }
        return parts
    }

    static func value(of key: String, in header: String) -> String? {
        guard let range = header.range(of: "; \(key)=\"") else { return nil }
        let rest = header[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }
}
