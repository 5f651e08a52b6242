import APICoreServerSupport
import Foundation
import GraphQL
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// The dev server's mutable state: the data, who is signed in, and the switches.
struct DevState: Sendable {
    var data = DevData.seeded()
    /// Access token → user and expiry.
    var accessTokens: [String: (user: String, expires: Date)] = [:]
    /// Refresh token → user.
    var refreshTokens: [String: String] = [:]
    /// Session cookie → user.
    var sessions: [String: String] = [:]
    var switches = DevServer.Switches()
    /// Whether `__schema` and `__type` are answered (production servers often refuse them).
    var introspection = true
    /// Mutations answered once per `Idempotency-Key`.
    var replies = IdempotentReplies()
}

/// A server for development, demos and end-to-end tests: the root `schema.graphqls` over seeded
/// in-memory data, GraphQL over HTTP (POST and GET) and over WebSocket (`graphql-transport-ws` and
/// `graphql-ws`, with `householdChanged` and `productChanged` events), the REST endpoints ProductKit
/// uses, bearer log-in and refresh, a cookie session, and switches for latency, failures and
/// dropped sockets, introspection (or its refusal) and the schema's SDL at `/schema.graphqls`.
/// A mutation sent with an `Idempotency-Key` runs once per user and key: a repeat (an offline
/// queue's replay whose first answer was lost) gets the first answer, `Idempotent-Replayed: true`.
/// Start it in-process with ``start(_:)`` or run `dev-server --port N`.
///
/// Seeded users log in with the password `pantry`: `alice@example.com` (households `hh-1` and
/// `hh-2`), `bob@example.com` (`hh-1`), `carol@example.com`.
public final class DevServer: Sendable {
    /// What makes the server slow or unreliable on purpose.
    public struct Switches: Sendable, Hashable, Codable {
        /// Added to every HTTP response (`/dev/` endpoints aside).
        public var latencyMilliseconds: Int
        /// The share of HTTP requests answered `503 Service Unavailable`, from 0 to 1.
        public var failureRate: Double
        /// Every WebSocket is closed (1001) after this many seconds, when set.
        public var dropSocketsEverySeconds: Double?

        /// No latency, no failures, no drops.
        public init(latencyMilliseconds: Int = 0, failureRate: Double = 0, dropSocketsEverySeconds: Double? = nil) {
            self.latencyMilliseconds = latencyMilliseconds
            self.failureRate = failureRate
            self.dropSocketsEverySeconds = dropSocketsEverySeconds
        }
    }

    /// How to start.
    public struct Options: Sendable {
        /// The port; 0 picks a free one.
        public var port: Int
        /// The address to listen on.
        public var host: String
        /// The switches at start.
        public var switches: Switches
        /// Where the server logs (nothing by default).
        public var logger: Logger
        /// Whether introspection queries (`__schema`, `__type`) are answered; when not, they get
        /// a GraphQL error, as production servers that disable introspection answer.
        public var introspection: Bool
        /// Whether it speaks HTTPS (HTTP/2 and HTTP/1.1 by ALPN) and WSS, with a certificate for its host made at
        /// start by an authority of its own, which a client trusts as its root
        /// (``DevServer/certificateAuthorityPEM``).
        public var tls: Bool

        /// Loopback, a free port, no switches, no logs, introspection answered, plain HTTP.
        public init(port: Int = 0, host: String = "127.0.0.1", switches: Switches = Switches(),
                    logger: Logger = Logger(label: "dev-server", factory: { _ in SwiftLogNoOpLogHandler() }), introspection: Bool = true,
                    tls: Bool = false)
        {
            self.port = port
            self.host = host
            self.switches = switches
            self.logger = logger
            self.introspection = introspection
            self.tls = tls
        }
    }

    /// A certificate the server presents, and the authority that signed it.
    struct Certificates: Sendable {
        let authorityPEM: String
        let server: CertificateAuthority.Issued

        init(host: String) throws {
            let authority = try CertificateAuthority(name: "pantry dev server CA")
            authorityPEM = authority.certificatePEM
            server = try authority.issue(for: [host, "localhost"])
        }
    }

    /// The password of every seeded user.
    public static let password = "pantry"
    /// Access tokens live this long.
    public static let accessTokenLifetime: TimeInterval = 900

    /// The port it listens on.
    public let port: Int
    /// `http://<host>:<port>/`, or `https://` with ``Options/tls``.
    public let baseURL: URL
    /// With ``Options/tls``, the certificate (PEM) of the authority that signed the server's: the
    /// root a client adds to trust it.
    public var certificateAuthorityPEM: String? { certificates?.authorityPEM }
    private let certificates: Certificates?
    /// The GraphQL endpoint.
    public var graphQLURL: URL { baseURL.appendingPathComponent("graphql") }
    /// The GraphQL WebSocket endpoint.
    public var webSocketURL: URL {
        URL(string: baseURL.absoluteString.replacingOccurrences(of: "http", with: "ws", options: .anchored) + "graphql")!
    }
    /// The WebSocket endpoint, for its records and behaviour switches.
    public let webSocket: GraphQLWebSocketServer

    let state: Locked<DevState>
    let events: EventHub
    private let task: Task<Void, any Error>
    private let dropper: Task<Void, Never>

    private init(
        port: Int, host: String, certificates: Certificates?, state: Locked<DevState>, events: EventHub, webSocket: GraphQLWebSocketServer,
        task: Task<Void, any Error>
    ) {
        self.port = port
        self.events = events
        self.certificates = certificates
        baseURL = URL(string: "\(certificates == nil ? "http" : "https")://\(host):\(port)/")!
        self.state = state
        self.webSocket = webSocket
        self.task = task
        dropper = Task { [state, webSocket] in
            while !Task.isCancelled {
                let every = state.withLock { $0.switches.dropSocketsEverySeconds }
                try? await Task.sleep(for: .seconds(every ?? 0.5))
                if every != nil, !Task.isCancelled { webSocket.closeAll(code: 1001, reason: "dev server dropped the socket") }
            }
        }
    }

    /// Starts a server and returns once it accepts connections.
    public static func start(_ options: Options = Options()) async throws -> DevServer {
        let state = Locked(DevState())
        state.withLock {
            $0.switches = options.switches
            $0.introspection = options.introspection
        }
        return try await start(options, certificates: options.tls ? try Certificates(host: options.host) : nil, state: state, events: EventHub())
    }

    /// A server on the same address with the same data, users and sessions as this one, which
    /// must have stopped: the server coming back after an outage, as clients see it.
    public func restarted() async throws -> DevServer {
        var options = Options(port: port, host: baseURL.host ?? "127.0.0.1", switches: switches, introspection: state.withLock { $0.introspection })
        options.port = port
        options.tls = certificates != nil
        return try await Self.start(options, certificates: certificates, state: state, events: events)
    }

    private static func start(_ options: Options, certificates: Certificates?, state: Locked<DevState>, events: EventHub) async throws -> DevServer {
        let schema = try DevSchema.make(state: state, events: events)
        let webSocket = GraphQLWebSocketServer(schema: schema) { payload in
            guard let header = payload.strings["Authorization"] else { return false }
            return DevRoutes.user(forAuthorization: header, state) != nil
        }
        let router = Router()
        DevRoutes.register(on: router, state: state, schema: schema, webSocket: webSocket)
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let tls = try certificates?.server.serverConfiguration()
        // HTTP/1.1 with the WebSocket upgrade; over TLS, HTTP/2 beside it by ALPN.
        let server = HTTPServerBuilder { responder in
            let http1 = HTTP1WebSocketUpgradeChannel(responder: responder, configuration: .init(ws: .init(maxFrameSize: 1 << 20))) { request, _, _ in
                webSocket.shouldUpgrade(request)
            }
            guard let tls else { return http1 }
            return try SecureHTTPChannel(tls: tls, http1: http1, responder: responder)
        }
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "pantry-dev-server"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: options.logger
        )
        let task = Task { try await app.run() }
        var port = 0
        for await value in ports { port = value }
        guard port > 0 else {
            task.cancel()
            _ = await task.result
            throw DevServerError.couldNotStart(host: options.host, port: options.port, reason: "\(await task.result)")
        }
        return DevServer(port: port, host: options.host, certificates: certificates, state: state, events: events, webSocket: webSocket, task: task)
    }

    /// Stops the server and waits until its socket is closed.
    public func stop() async {
        dropper.cancel()
        webSocket.closeAll(code: 1001, reason: "dev server stopping")
        task.cancel()
        _ = await task.result
    }

    /// Waits until the server stops by itself (it does not, unless its socket fails).
    public func wait() async throws {
        try await task.value
    }

    /// The switches now.
    public var switches: Switches {
        get { state.withLock { $0.switches } }
    }

    /// Changes the switches.
    public func setSwitches(_ switches: Switches) { state.withLock { $0.switches = switches } }

    /// How many subscriptions to a household's changes are live on the server (a client's
    /// `subscribe` message is on its way before the server has set the subscription up).
    public func householdSubscriberCount(_ householdID: String) -> Int { events.count("household:\(householdID)") }

    /// Closes every open WebSocket now, as a network drop would.
    public func dropSockets() { webSocket.closeAll(code: 1001, reason: "dev server dropped the socket") }
}

/// Why the dev server did not start.
public enum DevServerError: Error, CustomStringConvertible {
    /// Nothing could listen at the address.
    case couldNotStart(host: String, port: Int, reason: String)

    /// One line for a person.
    public var description: String {
        switch self {
        case .couldNotStart(let host, let port, let reason): return "the dev server could not listen on \(host):\(port): \(reason)"
        }
    }
}
