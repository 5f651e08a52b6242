import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL

extension TestServer {
    /// What a server that speaks TLS presents, and whether it offers HTTP/2.
    public struct Security: Sendable {
        /// The certificate chain, PEM, the server's own first.
        public var chainPEM: String
        /// The server's private key, PEM.
        public var privateKeyPEM: String
        /// Whether HTTP/2 is offered by ALPN, with HTTP/1.1 (and its WebSocket upgrade) beside it.
        public var http2: Bool

        /// TLS with `issued`'s certificate and key.
        public init(_ issued: CertificateAuthority.Issued, http2: Bool = false) {
            self.init(chainPEM: issued.chainPEM, privateKeyPEM: issued.privateKeyPEM, http2: http2)
        }

        /// TLS with this chain and key.
        public init(chainPEM: String, privateKeyPEM: String, http2: Bool = false) {
            self.chainPEM = chainPEM
            self.privateKeyPEM = privateKeyPEM
            self.http2 = http2
        }

        func configuration() throws -> TLSConfiguration {
            try CertificateAuthority.serverConfiguration(chainPEM: chainPEM, privateKeyPEM: privateKeyPEM)
        }
    }

    /// How many connections the server accepted (TCP connections, whatever ran over them).
    public var connectionCount: Int { state.withLock { $0.connections } }

    /// HTTP/1.1 with the WebSocket upgrade, over TLS when `security` says so, with HTTP/2 beside
    /// it by ALPN when that asks for it; each accepted connection counted.
    static func server(webSocket: GraphQLWebSocketServer, security: Security?, state: Locked<State>) throws -> HTTPServerBuilder {
        let tls = try security?.configuration()
        return HTTPServerBuilder { responder in
            let count: @Sendable () -> Void = { state.withLock { $0.connections += 1 } }
            let http1 = HTTP1WebSocketUpgradeChannel(
                responder: responder, configuration: .init(ws: .init(maxFrameSize: 1 << 20))
            ) { request, _, _ in webSocket.shouldUpgrade(request) }
            guard let tls else { return Counted(base: http1, count: count) }
            if security?.http2 == true {
                return Counted(base: try SecureHTTPChannel(tls: tls, http1: http1, responder: responder), count: count)
            }
            return Counted(base: try TLSChannel(http1, tlsConfiguration: tls), count: count)
        }
    }
}

/// A server channel that counts the connections it sets up.
private struct Counted<Base: ServerChildChannel>: ServerChildChannel {
    let base: Base
    let count: @Sendable () -> Void

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
        count()
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Base.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
