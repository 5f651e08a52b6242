import APICore
import Foundation
import Logging

/// A WebSocket client the engine opens subscription sockets with. Get one from the
/// `APICoreWebSocket` module (`APICoreWebSocket.transport`), or write one for another client.
public struct WebSocketTransport: Sendable {
    /// Opens a socket to `url`, offering `subprotocol`, with these upgrade headers.
    package let connect: @Sendable (_ request: WebSocketRequest) async throws(APIError) -> any WebSocketChannel

    /// A transport that opens sockets with `connect`.
    package init(connect: @escaping @Sendable (_ request: WebSocketRequest) async throws(APIError) -> any WebSocketChannel) {
        self.connect = connect
    }
}

/// What opening a socket needs.
package struct WebSocketRequest: Sendable {
    package var url: URL
    package var subprotocol: String
    package var headers: [String: String]
    package var maxMessageSize: Int
    /// How long connecting and the upgrade may take.
    package var handshakeTimeout: Duration
    package var logger: Logger

    package init(
        url: URL, subprotocol: String, headers: [String: String], maxMessageSize: Int, handshakeTimeout: Duration = .seconds(10),
        logger: Logger
    ) {
        self.url = url
        self.subprotocol = subprotocol
        self.headers = headers
        self.maxMessageSize = maxMessageSize
        self.handshakeTimeout = handshakeTimeout
        self.logger = logger
    }
}

/// What arrives on an open socket.
package enum WebSocketEvent: Sendable {
    /// A text (or binary, read as UTF-8) message.
    case message(String)
    /// The socket closed, with the close frame's code and reason when there was one.
    case closed(code: Int?, reason: String)
    /// The client closed the socket because the server broke a rule no reconnection changes (a
    /// message over the bound, broken framing): the error says which.
    case failed(APIError)
}

/// One open WebSocket.
package protocol WebSocketChannel: Sendable {
    /// Messages, in order, then one `.closed`.
    var events: AsyncStream<WebSocketEvent> { get }
    /// Sends a text message; throws when the socket is closed.
    func send(_ text: String) async throws(APIError)
    /// Starts the closing handshake with this code and reason.
    func close(code: Int, reason: String) async
}
