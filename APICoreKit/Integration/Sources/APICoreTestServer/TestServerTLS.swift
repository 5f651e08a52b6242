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

    /// How many HTTP connections the server accepted: HTTP/1.1 ones once they carry a request
    /// (a WebSocket's is counted by ``webSocketConnectionCount``, one refused in the TLS handshake
    /// not at all) and HTTP/2 ones.
    public var connectionCount: Int { state.withLock { $0.connections } }

    /// HTTP/1.1 with the WebSocket upgrade, over TLS when `security` says so, with HTTP/2 beside
    /// it by ALPN when that asks for it; each HTTP connection counted. (Counted from the channels'
    /// own hooks: a wrapper around the server's channel adds an async frame that ThreadSanitizer
    /// reports races on, in Hummingbird's code.)
    static func server(webSocket: GraphQLWebSocketServer, security: Security?, state: Locked<State>) throws -> HTTPServerBuilder {
        let tls = try security?.configuration()
        let count: @Sendable () -> Void = { state.withLock { $0.connections += 1 } }
        let countHTTP1: @Sendable () -> [any RemovableChannelHandler] = {
            count()
            return []
        }
        return HTTPServerBuilder { responder in
            let http1 = HTTP1WebSocketUpgradeChannel(
                responder: responder, configuration: .init(http1: .init(additionalChannelHandlers: countHTTP1()), ws: .init(maxFrameSize: 1 << 20))
            ) { request, _, _ in webSocket.shouldUpgrade(request) }
            guard let tls else { return http1 }
            if security?.http2 == true {
                return try SecureHTTPChannel(tls: tls, http1: http1, responder: responder, onHTTP2Connection: count)
            }
            return try TLSChannel(http1, tlsConfiguration: tls)
        }
    }
}
