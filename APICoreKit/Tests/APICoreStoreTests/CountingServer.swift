import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A GraphQL server on 127.0.0.1 that answers every mutation `{"data":{"rename":true}}` and
/// counts what it is sent, by the `Idempotency-Key` each request carries, in arrival order: what
/// the processes replaying one offline queue sent, whichever of them sent it.
final class CountingServer: Sendable {
    /// The keys sent, in arrival order.
    final class Sent: Sendable {
        let keys = Mutex<[String]>([])
    }

    let sent = Sent()
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let channel: any Channel

    var url: URL { URL(string: "http://127.0.0.1:\(channel.localAddress?.port ?? 0)/graphql")! }

    init() throws {
        let sent = self.sent
        channel = try ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(Handler(sent: sent))
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
    }

    /// Stops listening and lets its thread go.
    func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let sent: Sent
        private var key: String?

        init(sent: Sent) { self.sent = sent }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                key = head.headers.first(name: "Idempotency-Key")
            case .body:
                break
            case .end:
                sent.keys.withLock { $0.append(key ?? "(none)") }
                let body = ByteBuffer(string: #"{"data":{"rename":true}}"#)
                var headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", "\(body.readableBytes)")])
                headers.add(name: "Connection", value: "keep-alive")
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
