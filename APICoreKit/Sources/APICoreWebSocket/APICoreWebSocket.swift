import APICore
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOWebSocket
import WSClient

/// The WebSocket client for subscriptions, on swift-websocket's `WSClient` (SwiftNIO; TLS by
/// NIOSSL, or Network.framework on Apple platforms). It lives in its own module so that an app
/// without subscriptions never builds SwiftNIO.
///
/// ```swift
/// configuration.subscriptions = SubscriptionConfiguration(
///     url: URL(string: "wss://api.example.com/graphql")!, transport: APICoreWebSocket.transport)
/// ```
public enum APICoreWebSocket {
    /// Opens subscription sockets with `WSClient`.
    public static let transport = WebSocketTransport { request throws(APIError) in
        try await NIOWebSocketChannel.open(request)
    }
}

/// One socket: a task runs `WSClient`'s connection, forwarding messages to `events` and writing
/// what `send` and `close` queue.
final class NIOWebSocketChannel: WebSocketChannel {
    private enum Outgoing: Sendable {
        case text(String)
        case close(code: Int, reason: String)
    }

    let events: AsyncStream<WebSocketEvent>
    private let eventSink: AsyncStream<WebSocketEvent>.Continuation
    private let outgoing: AsyncStream<Outgoing>
    private let outgoingSink: AsyncStream<Outgoing>.Continuation
    private let url: URL

    private init(url: URL) {
        self.url = url
        (events, eventSink) = AsyncStream.makeStream()
        (outgoing, outgoingSink) = AsyncStream.makeStream()
    }

    static func open(_ request: WebSocketRequest) async throws(APIError) -> NIOWebSocketChannel {
        let channel = NIOWebSocketChannel(url: request.url)
        let (opening, opened) = AsyncStream<Result<Void, APIError>>.makeStream()
        let task = Task { await channel.run(request, opened: opened) }
        for await result in opening {
            switch result {
            case .success: return channel
            case .failure(let error): throw error
            }
        }
        // Only cancellation ends the wait without a result.
        task.cancel()
        throw .cancelled
    }

    func send(_ text: String) async throws(APIError) {
        if case .terminated = outgoingSink.yield(.text(text)) {
            throw .transport(TransportFailure(kind: .connectionLost, url: url, underlying: "the socket is closed"))
        }
    }

    /// Queues the close frame and ends `events` at once, so that a server that never answers the
    /// close cannot hold the engine up.
    func close(code: Int, reason: String) async {
        outgoingSink.yield(.close(code: code, reason: reason))
        outgoingSink.finish()
        eventSink.yield(.closed(code: code, reason: reason))
        eventSink.finish()
    }

    private func run(_ request: WebSocketRequest, opened: AsyncStream<Result<Void, APIError>>.Continuation) async {
        var configuration = WebSocketClientConfiguration(maxFrameSize: max(1 << 14, request.maxMessageSize))
        configuration.additionalHeaders[.secWebSocketProtocol] = request.subprotocol
        for (name, value) in request.headers {
            if let field = HTTPField.Name(name) { configuration.additionalHeaders[field] = value }
        }
        // WSClient traces whole frames, `connection_init` and its token included: never below debug.
        var logger = request.logger
        logger.logLevel = max(logger.logLevel, .debug)
        let events = eventSink
        let outgoing = self.outgoing
        let maxSize = request.maxMessageSize
        do {
            let closeFrame = try await WebSocketClient.connect(url: request.url.absoluteString, configuration: configuration, logger: logger) {
                inbound, outbound, _ in
                opened.yield(.success(()))
                opened.finish()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await item in outgoing {
                            switch item {
                            case .text(let text): try await outbound.write(.text(text))
                            case .close(let code, let reason):
                                try await outbound.close(WebSocketErrorCode(codeNumber: code), reason: reason)
                                return
                            }
                        }
                    }
                    for try await message in inbound.messages(maxSize: maxSize) {
                        switch message {
                        case .text(let text): events.yield(.message(text))
                        case .binary(let buffer): events.yield(.message(String(buffer: buffer)))
                        }
                    }
                    group.cancelAll()
                }
            }
            events.yield(.closed(code: closeFrame.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }, reason: closeFrame?.reason ?? ""))
        } catch {
            let failure = Self.failure(error, url: request.url)
            opened.yield(.failure(failure))
            events.yield(.closed(code: nil, reason: failure.description))
        }
        opened.finish()
        events.finish()
        outgoingSink.finish()
    }

    /// A connection error as an `APIError`.
    static func failure(_ error: any Error, url: URL) -> APIError {
        if let error = error as? WebSocketClientError {
            return .transport(TransportFailure(kind: .other, url: url, underlying: "WebSocket handshake failed: \(error)"))
        }
        let text = String(describing: error)
        let lowered = text.lowercased()
        let kind: TransportFailure.Kind =
            if lowered.contains("refused") { .connectionRefused }
            else if lowered.contains("timeout") || lowered.contains("timed out") { .timedOut }
            else if lowered.contains("resolve") || lowered.contains("nxdomain") || lowered.contains("getaddrinfo") { .cannotFindHost }
            else if lowered.contains("ssl") || lowered.contains("tls") || lowered.contains("certificate") { .secureConnectionFailed }
            else if lowered.contains("reset") || lowered.contains("eof") || lowered.contains("closed") { .connectionLost }
            else { .other }
        return .transport(TransportFailure(kind: kind, url: url, underlying: text))
    }
}
