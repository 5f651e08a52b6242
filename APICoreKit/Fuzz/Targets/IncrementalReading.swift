@_spi(Tools) import APICore
import APICoreLive
import Foundation

/// A `multipart/mixed` body of incremental delivery (`@defer`, `@stream`) as the engine reads it. The first
/// byte picks a chunk size (1 to 256), the rest is the body under boundary `-`. Read in those
/// chunks and read in one piece, the parts and the end must agree; each part's JSON then goes
/// through the assembly of the result, which may refuse a payload but never trap.
enum IncrementalReading {
    static func run(_ input: Data) {
        guard let first = input.first else { return }
        let body = Array(input.dropFirst())
        let chunkSize = Int(first) + 1
        var whole = MultipartReader(boundary: "-")
        let parts = whole.append(body)
        var chunked = MultipartReader(boundary: "-")
        var chunkedParts: [MultipartPart] = []
        var start = 0
        while start < body.count {
            chunkedParts += chunked.append(body[start..<min(start + chunkSize, body.count)])
            start += chunkSize
        }
        check(chunkedParts == parts, "in chunks of \(chunkSize): \(chunkedParts.count) parts; in one piece: \(parts.count)")
        check(chunked.isClosed == whole.isClosed, "in chunks of \(chunkSize) the body is \(chunked.isClosed ? "" : "not ")closed")
        do {
            try whole.finish()
            check(whole.isClosed, "finish accepted a body without its closing boundary")
        } catch {
            check(!whole.isClosed, "finish refused a closed body")
        }

        var result: IncrementalResult?
        for part in parts {
            guard let payload = try? JSONParser.parse(Data(part.body)).objectValue else { continue }
            if var assembling = result {
                if (try? assembling.apply(payload)) != nil { result = assembling }
            } else {
                result = try? IncrementalResult(initial: payload)
            }
        }
        if let result {
            // What was assembled is JSON that reads back as itself.
            let text = JSONSerializer.data(.object(result.data))
            check((try? JSONParser.parse(text)) == .object(result.data), "the assembled data does not read back")
        }
    }

    static var seeds: [Data] {
        let recorded2022 = "\r\n---\r\ncontent-type: application/json; charset=utf-8\r\n\r\n"
            + #"{"data":{"hero":{"__typename":"Droid","id":"2001","friends":[{"id":"1000"},{"id":"1002"}]}},"hasNext":true}"#
            + "\r\n---\r\ncontent-type: application/json; charset=utf-8\r\n\r\n"
            + #"{"incremental":[{"data":{"name":"R2-D2"},"path":["hero"],"label":"Name"},{"data":{"name":"Luke"},"path":["hero","friends",0]}],"hasNext":true}"#
            + "\r\n---\r\ncontent-type: application/json\r\n\r\n"
            + #"{"incremental":[{"data":{"name":null},"path":["hero","friends",1],"errors":[{"message":"no name","path":["hero","friends",1,"name"]}]}],"hasNext":false}"#
            + "\r\n-----\r\n"
        let current = "preamble\r\n---\r\n\r\n"
            + #"{"data":{"hero":{"id":"2001"}},"pending":[{"id":"0","path":["hero"],"label":"D"}],"hasNext":true}"#
            + "\r\n---  \r\nContent-Type: application/json\r\n\r\n"
            + #"{"incremental":[{"id":"0","data":{"name":"R2-D2","appearsIn":["JEDI"]}},{"id":"0","subPath":["appearsIn"],"data":{}}],"completed":[{"id":"0"}],"hasNext":false}"#
            + "\r\n-----"
        let cut = String(recorded2022.prefix(150))
        // @stream: 2022's items from the index their path ends with; the current format's by pending id.
        let streamed2022 = "\r\n---\r\n\r\n" + #"{"data":{"heroes":[{"id":"1"}]},"hasNext":true}"#
            + "\r\n---\r\n\r\n" + #"{"incremental":[{"items":[{"id":"2"},{"id":"3"}],"path":["heroes",1],"label":"s"}],"hasNext":false}"#
            + "\r\n-----"
        let streamedCurrent = "\r\n---\r\n\r\n" + #"{"data":{"heroes":[]},"pending":[{"id":"0","path":["heroes"]}],"hasNext":true}"#
            + "\r\n---\r\n\r\n" + #"{"incremental":[{"id":"0","items":["a","b"]}],"completed":[{"id":"0"}],"hasNext":false}"#
            + "\r\n-----"
        return [
            (0, recorded2022), (6, recorded2022), (255, recorded2022), (2, current), (0, cut),
            (1, "\r\n---\r\n\r\n{}\r\n---\r\n\r\n{\"hasNext\":false}\r\n-----"), (3, streamed2022), (0, streamedCurrent),
        ]
            .map { Data([UInt8($0.0)] + Array($0.1.utf8)) }
    }
}
