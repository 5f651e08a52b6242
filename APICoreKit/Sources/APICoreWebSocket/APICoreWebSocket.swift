@_spi(Engine) import APICore
import APICoreLive
import APICoreSupport
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import NIOWebSocket

/// The WebSocket client for subscriptions, on SwiftNIO (TLS by NIOSSL). It lives in its own module
/// so that an app without subscriptions never builds SwiftNIO.
///
/// ```swift
/// configuration.subscriptions = SubscriptionConfiguration(
///     url: URL(string: "wss://api.example.com/graphql")!, transport: APICoreWebSocket.transport)
/// ```
///
/// The upgrade request carries `Host` and `Origin` with the URL's port when it has one
/// (`Origin: http://127.0.0.1:8000` for `ws://127.0.0.1:8000/graphql`, `https://…` for `wss://`),
/// as a page served by the same host would; an `Origin` in the configuration's headers replaces
/// it, and an empty one leaves it out. A server that answers the upgrade with an HTTP status
/// instead of `101` fails the attempt with ``WebSocketFailure/Kind-swift.enum/handshakeRefused(status:reason:)``.
///
/// Over `wss://` it trusts the system's roots; ``transport(trusting:)`` trusts what a `TLSTrust`
/// names (a private CA's root, pinned keys) and refuses what it does not, before the upgrade
/// request is sent.
public enum APICoreWebSocket {
    /// Opens subscription sockets with SwiftNIO, trusting the system's roots over `wss://`.
    public static let transport = transport(trusting: .system)

    /// Opens subscription sockets with SwiftNIO, trusting what `trust` names over `wss://`.
    public static func transport(trusting trust: TLSTrust) -> WebSocketTransport {
        WebSocketTransport { request throws(APIError) in
            try await NIOWebSocketChannel.open(request, trust: trust)
        }
    }
}

/// One socket: a task reads frames (answering pings, joining fragments, echoing a close) into
/// `events`, and writes what `send` and `close` queue.
final class NIOWebSocketChannel: WebSocketChannel {
    private enum Outgoing: Sendable {
        case text(String)
        case close(code: Int, reason: String)
    }

    /// How the upgrade ended.
    private enum Upgrade: Sendable {
        case upgraded(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case refused(HTTPResponseStatus)
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

    static func open(_ request: WebSocketRequest, trust: TLSTrust) async throws(APIError) -> NIOWebSocketChannel {
        let socket: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>
        do {
            socket = try await connect(request, trust: trust)
        } catch let error as APIError {
            throw error
        } catch {
            throw await NIOConnection.failure(error, url: request.url, trust: trust)
        }
        let channel = NIOWebSocketChannel(url: request.url)
        Task { await channel.run(socket, maxMessageSize: request.maxMessageSize) }
        return channel
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

    // MARK: Handshake

    /// The headers of the upgrade request: `Host`, `Origin` (with the port), the sub-protocol, then
    /// the request's own headers, each replacing a default of the same name.
    static func upgradeHeaders(for request: WebSocketRequest) throws(APIError) -> HTTPHeaders {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
            let host = request.url.host, !host.isEmpty
        else {
            throw .invalidRequest("a WebSocket URL needs ws:// or wss:// and a host: \(request.url.absoluteString)")
        }
        let authority = (host.contains(":") ? "[\(host)]" : host) + (request.url.port.map { ":\($0)" } ?? "")
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: authority)
        headers.add(name: "Origin", value: (scheme == "wss" ? "https://" : "http://") + authority)
        headers.add(name: "Sec-WebSocket-Protocol", value: request.subprotocol)
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            headers.remove(name: name)
            if !value.isEmpty { headers.add(name: name, value: value) }
        }
        return headers
    }

    /// What the handshake saw that NIO's upgrade handler keeps to itself: the channel, the status
    /// of an answer that is not `101`, and whether the deadline passed.
    private struct Handshake: Sendable {
        var channel: (any Channel)?
        var refusal: HTTPResponseStatus?
        var timedOut = false
    }

    private static func connect(_ request: WebSocketRequest, trust: TLSTrust) async throws -> NIOAsyncChannel<WebSocketFrame, WebSocketFrame> {
        let url = request.url
        let headers = try upgradeHeaders(for: request)
        let secure = url.scheme?.lowercased() == "wss"
        let host = url.host ?? ""
        let port = url.port ?? (secure ? 443 : 80)
        let path = (url.path.isEmpty ? "/" : url.path) + (url.query.map { "?\($0)" } ?? "")
        let tls = secure ? try NIOSSLContext(configuration: NIOConnection.configuration(for: trust)) : nil
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
        let maxFrameSize = max(1 << 14, min(request.maxMessageSize, Int(UInt32.max)))
        let timeout = TimeAmount.nanoseconds(Int64(min(request.handshakeTimeout / .nanoseconds(1), Double(Int64.max / 2))))
        let handshake = NIOLockedValueBox(Handshake())

        /// The HTTP client pipeline that asks for the upgrade, and how it ends.
        @Sendable func configureUpgrade(_ channel: any Channel) throws -> EventLoopFuture<Upgrade> {
            let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: maxFrameSize) { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    .upgraded(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                }
            }
            let configuration = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
                upgradeRequestHead: head, upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture { .refused(handshake.withLockedValue { $0.refusal } ?? .badRequest) }
                })
            let result = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                configuration: NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration))
            let upgradeHandler = try channel.pipeline.syncOperations.handler(type: NIOTypedHTTPClientUpgradeHandler<Upgrade>.self)
            try channel.pipeline.syncOperations.addHandler(
                ResponseStatusRecorder { status in handshake.withLockedValue { $0.refusal = status } }, position: .before(upgradeHandler))
            return result
        }

        let upgrade = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(timeout)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture { () -> EventLoopFuture<Upgrade> in
                    handshake.withLockedValue { $0.channel = channel }
                    // A server that accepts the connection but never finishes the TLS handshake or
                    // never answers the upgrade.
                    let deadline = channel.eventLoop.scheduleTask(in: timeout) {
                        handshake.withLockedValue { $0.timedOut = true }
                        channel.close(promise: nil)
                    }
                    let result: EventLoopFuture<Upgrade>
                    if let tls {
                        // The upgrade pipeline goes in once the TLS handshake is done and the pins
                        // are checked: a server that fails them never sees the upgrade request.
                        let secured = channel.eventLoop.makePromise(of: Void.self)
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: tls, serverHostname: NIOConnection.serverName(host)))
                        try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(done: secured))
                        result = secured.futureResult.flatMapThrowing {
                            let certificate = try channel.pipeline.syncOperations.nioSSL_peerCertificate()
                            if let mismatch = NIOConnection.pinRefusal(certificate, trust: trust) { throw mismatch }
                            return try configureUpgrade(channel)
                        }.flatMap { $0 }
                    } else {
                        result = try configureUpgrade(channel)
                    }
                    result.whenComplete { outcome in
                        deadline.cancel()
                        // A connection that did not upgrade (refused pins, say) is not left open.
                        if case .failure = outcome { channel.close(promise: nil) }
                    }
                    return result
                }
            }
        let outcome: Upgrade
        do {
            outcome = try await upgrade.get()
        } catch {
            if handshake.withLockedValue({ $0.timedOut }) {
                throw APIError.transport(TransportFailure(
                    kind: .timedOut, url: url, underlying: "no answer to the WebSocket upgrade within \(request.handshakeTimeout)"))
            }
            throw error
        }
        switch outcome {
        case .upgraded(let socket):
            return socket
        case .refused(let status):
            try? await handshake.withLockedValue({ $0.channel })?.close()
            throw APIError.webSocket(WebSocketFailure(kind: .handshakeRefused(status: Int(status.code), reason: status.reasonPhrase), url: url))
        }
    }

    // MARK: Frames

    /// How long the server has to answer a close frame of ours before the connection is dropped.
    static let closeTimeout = Duration.seconds(10)

    private func run(_ socket: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, maxMessageSize: Int) async {
        let events = eventSink
        let outgoing = self.outgoing
        let closedByUs = NIOLockedValueBox(false)
        let url = self.url
        var ending: WebSocketEvent
        do {
            ending = try await socket.executeThenClose { inbound, outbound in
                try await withThrowingTaskGroup(of: WebSocketEvent?.self) { group in
                    group.addTask {
                        for await item in outgoing {
                            switch item {
                            case .text(let text):
                                // The client's frames are masked (RFC 6455 §5.3).
                                try await outbound.write(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text)))
                            case .close(let code, let reason):
                                closedByUs.withLockedValue { $0 = true }
                                try await outbound.write(Self.closeFrame(code: code, reason: reason))
                                try await Task.sleep(for: Self.closeTimeout)
                                return .closed(code: code, reason: "the server did not answer the close within \(Self.closeTimeout)")
                            }
                        }
                        return nil
                    }
                    group.addTask {
                        try await Self.read(inbound, replyingOn: outbound, maxMessageSize: maxMessageSize, url: url, closedByUs: closedByUs) {
                            events.yield(.message($0))
                        }
                    }
                    defer { group.cancelAll() }
                    while let next = try await group.next() {
                        if let next { return next }
                    }
                    return .closed(code: nil, reason: "")
                }
            }
        } catch {
            ending = .closed(code: nil, reason: NIOConnection.failure(error, url: url).description)
        }
        events.yield(ending)
        events.finish()
        outgoingSink.finish()
    }

    /// Reads frames into whole messages until the server closes: answers pings, joins fragments,
    /// echoes a close it did not get from us first. A message over the bound (1009) or broken
    /// framing (1002) is closed from our side and ends as `.failed`.
    private static func read(
        _ inbound: NIOAsyncChannelInboundStream<WebSocketFrame>, replyingOn outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>,
        maxMessageSize: Int, url: URL, closedByUs: NIOLockedValueBox<Bool>, deliver: (String) -> Void
    ) async throws -> WebSocketEvent {
        func close(_ code: Int, _ reason: String) async throws {
            guard !closedByUs.withLockedValue({ $0 }) else { return }
            closedByUs.withLockedValue { $0 = true }
            try await outbound.write(closeFrame(code: code, reason: reason))
        }
        var message = ByteBuffer()
        var inMessage = false
        for try await frame in inbound {
            switch frame.opcode {
            case .text, .binary, .continuation:
                guard inMessage == (frame.opcode == .continuation) else {
                    try await close(1002, "unexpected frame")
                    return .failed(.webSocket(WebSocketFailure(
                        kind: .invalidMessage("the server broke WebSocket framing (a \(frame.opcode) frame)"), url: url)))
                }
                var data = frame.unmaskedData
                guard (inMessage ? message.readableBytes : 0) + data.readableBytes <= maxMessageSize else {
                    try await close(1009, "message too big")
                    return .failed(.invalidResponse(InvalidResponse(
                        kind: .tooLarge(limit: maxMessageSize), statusCode: nil, request: url.absoluteString, bodyExcerpt: "a WebSocket message")))
                }
                if !inMessage, frame.fin {
                    // A message in one frame (the usual case) is read from the frame, not copied first.
                    deliver(String(buffer: data))
                    continue
                }
                if !inMessage { message.clear() }
                message.writeBuffer(&data)
                inMessage = !frame.fin
                if frame.fin { deliver(String(buffer: message)) }
            case .ping:
                try await outbound.write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData))
            case .connectionClose:
                var data = frame.unmaskedData
                let code = data.readInteger(as: UInt16.self).map(Int.init)
                let reason = data.readString(length: data.readableBytes) ?? ""
                try? await close(code ?? 1000, "")
                return .closed(code: code ?? 1005, reason: reason)
            default:
                continue
            }
        }
        return .closed(code: nil, reason: "")
    }

    private static func closeFrame(code: Int, reason: String) -> WebSocketFrame {
        var data = ByteBuffer()
        data.writeInteger(UInt16(clamping: code))
        // A close reason is at most 123 bytes.
        data.writeBytes(Array(reason.utf8.prefix(123)))
        return WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
    }
}

/// Notes the status of the upgrade answer, which NIO's upgrade handler keeps to itself when it is
/// not `101`, then leaves the pipeline.
private final class ResponseStatusRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    private let record: (HTTPResponseStatus) -> Void

    init(record: @escaping (HTTPResponseStatus) -> Void) { self.record = record }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            record(head.status)
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        } else {
            context.fireChannelRead(data)
        }
    }
}

/// Completes `done` when the TLS handshake has finished, or fails it with what ended the
/// connection first; then leaves the pipeline.
private final class HandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let done: EventLoopPromise<Void>

    init(done: EventLoopPromise<Void>) { self.done = done }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            done.succeed()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        done.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }
}
