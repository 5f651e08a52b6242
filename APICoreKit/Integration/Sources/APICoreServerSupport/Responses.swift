import Foundation
import Hummingbird
import NIOCore

/// Small answers the test and dev servers build by hand.
public enum Responses {
    /// `value` as JSON with sorted keys.
    public static func json(_ status: Int, _ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return body(status, try encoder.encode(value), contentType: "application/json")
    }

    /// A plain-text answer.
    public static func plain(_ status: Int, _ text: String) -> Response {
        body(status, Data(text.utf8), contentType: "text/plain; charset=utf-8")
    }

    /// These bytes with this content type.
    public static func body(_ status: Int, _ data: Data, contentType: String) -> Response {
        var response = Response(status: .init(code: status), body: .init(byteBuffer: ByteBuffer(bytes: data)))
        response.headers[.contentType] = contentType
        return response
    }
}
