import Foundation
import Hummingbird
import NIOCore

/// `/flood`: an answer that does not end (up to 2 GiB), for the client's size bounds. `kind=json`
/// is a JSON body, `multipart` one multipart part, `sse` one server-sent event, each growing by
/// 64 KiB writes until the client leaves; the server counts the bytes written and the answers the
/// client left (`TestServer.flood`). With `bytes=N` the answer ends, well formed, after about `N`
/// bytes: an answer over a bound that does end.
enum Flood {
    static func answer(_ request: Request, state: Locked<TestServer.State>) -> Response {
        let kind = request.uri.queryParameters.get("kind") ?? "json"
        let (contentType, start, end) =
            switch kind {
            case "multipart":
                ("multipart/mixed; boundary=\"-\"; subscriptionSpec=1.0", "\r\n---\r\nContent-Type: application/json\r\n\r\n{\"payload\":\"", "\"}\r\n-----\r\n")
            case "sse": ("text/event-stream", "event: next\ndata: {\"data\":\"", "\"}\n\nevent: complete\ndata:\n\n")
            default: ("application/json", "{\"data\":{\"filler\":\"", "\"}}")
            }
        let bytes = request.uri.queryParameters.get("bytes").flatMap { Int($0) } ?? 2 << 30
        let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 << 10)
        var response = Response(status: .ok, body: ResponseBody { writer in
            var written = 0
            do {
                try await writer.write(ByteBuffer(string: start))
                for _ in 0..<(min(bytes, 2 << 30) + chunk.readableBytes - 1) / chunk.readableBytes {
                    try await writer.write(chunk)
                    written += chunk.readableBytes
                    state.withLock { $0.floodBytes += chunk.readableBytes }
                }
                state.withLock { $0.floodLargest = max($0.floodLargest, written) }
                try await writer.write(ByteBuffer(string: end))
                try await writer.finish(nil)
            } catch {
                // What the answer wrote is counted before it counts as left.
                state.withLock {
                    $0.floodLargest = max($0.floodLargest, written)
                    $0.floodsAbandoned += 1
                }
                throw error
            }
        })
        response.headers[.contentType] = contentType
        return response
    }
}
