import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOHTTP2
import NIOSSL
import NIOTLS

/// A server channel over TLS that offers HTTP/2 and HTTP/1.1 by ALPN: HTTP/2 connections carry
/// many requests at once, HTTP/1.1 ones go to `http1` (a channel with the WebSocket upgrade, say,
/// which HTTP/2 cannot do). Hummingbird's own `http2Upgrade` falls back to plain HTTP/1.1 only.
///
/// ```swift
/// let server = HTTPServerBuilder { responder in
///     try SecureHTTPChannel(tls: tls, http1: HTTP1WebSocketUpgradeChannel(...), responder: responder)
/// }
/// ```
public struct SecureHTTPChannel<HTTP1: ServerChildChannel>: ServerChildChannel {
    /// The connection once ALPN has chosen its protocol.
    public struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<NIONegotiatedHTTPVersion<HTTP1.Value, HTTP2Channel.Value>>
        /// The TCP connection.
        public let channel: any Channel
    }

    private let context: NIOSSLContext
    private let http1: HTTP1
    private let http2: HTTP2Channel
    private let onHTTP2Connection: @Sendable () -> Void

    /// A channel presenting `tls`'s certificate, answering HTTP/2 with `responder` and HTTP/1.1 with
    /// `http1`; `onHTTP2Connection` is called for each connection that chose HTTP/2.
    public init(
        tls: TLSConfiguration, http1: HTTP1, responder: @escaping HTTPChannelHandler.Responder, onHTTP2Connection: @escaping @Sendable () -> Void = {}
    ) throws {
        var tls = tls
        tls.applicationProtocols = ["h2", "http/1.1"]
        context = try NIOSSLContext(configuration: tls)
        self.http1 = http1
        http2 = HTTP2Channel(responder: responder)
        self.onHTTP2Connection = onHTTP2Connection
    }

    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
            let negotiation = NIOTypedApplicationProtocolNegotiationHandler<NIONegotiatedHTTPVersion<HTTP1.Value, HTTP2Channel.Value>> { result in
                switch result {
                case .negotiated("h2"):
                    onHTTP2Connection()
                    return http2.setup(channel: channel, logger: logger).map { .http2($0) }
                case .negotiated("http/1.1"), .fallback:
                    return http1.setup(channel: channel, logger: logger).map { .http1_1($0) }
                case .negotiated:
                    return channel.close().flatMapThrowing { throw NIOHTTP2Errors.invalidALPNToken() }
                }
            }
            try channel.pipeline.syncOperations.addHandler(negotiation)
            return Value(negotiated: negotiation.protocolNegotiationResult, channel: channel)
        }
    }

    public func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http1_1(let connection): await http1.handle(value: connection, logger: logger)
            case .http2(let connection): await http2.handle(value: connection, logger: logger)
            }
        } catch {
            logger.debug("no protocol negotiated: \(error)")
        }
        // Handling ends when the server stops (its task cancelled): an HTTP/2 connection left open
        // would take new streams that no one reads (NIO traps on them in debug builds).
        try? await value.channel.close()
    }
}
