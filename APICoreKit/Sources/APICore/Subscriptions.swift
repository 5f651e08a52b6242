import Foundation
import Logging

/// The events of a GraphQL subscription, as domain values: `for try await` them; the sequence
/// throws ``APIError`` when the subscription cannot go on, and ends when the server completes it.
///
/// Breaking out of the loop, or cancelling the consuming task, ends the subscription: the server is
/// told (`complete`) and the operation freed. A dropped connection does not end it: the engine
/// reconnects and subscribes again, and ``states`` says so.
///
/// ```swift
/// let reviews = client.subscribe(GraphQLRequest(ReviewAddedSubscription(episode: .jedi)) { $0.reviewAdded })
/// for try await review in reviews { print(review.stars) }
/// ```
public struct APISubscription<Element: Sendable>: AsyncSequence, Sendable {
    /// Only ``APIError``s are thrown.
    public typealias Failure = APIError

    private let values: AsyncThrowingStream<Element, any Error>
    /// How the subscription's connection is doing: connecting, active, reconnecting. It starts with
    /// the current state and ends with the subscription; only the newest 16 states are kept for a
    /// consumer that falls behind.
    public let states: APIStream<SubscriptionState>

    /// What a subscription's producer feeds: values, states, and the end.
    public struct Continuation: Sendable {
        fileprivate let values: AsyncThrowingStream<Element, any Error>.Continuation
        fileprivate let stateContinuation: AsyncStream<SubscriptionState>.Continuation

        /// Delivers one event.
        public func yield(_ value: Element) { values.yield(value) }

        /// Tells the state consumer how the connection is doing.
        public func setState(_ state: SubscriptionState) { stateContinuation.yield(state) }

        /// Ends the subscription, with an error or without.
        public func finish(throwing error: APIError? = nil) {
            values.finish(throwing: error)
            stateContinuation.finish()
        }

        /// Runs once when the subscription ends, whoever ended it (the consumer stopping included).
        public func onTermination(_ action: @escaping @Sendable () -> Void) {
            values.onTermination = { _ in action() }
        }
    }

    /// A subscription fed by `build`, which gets a continuation to yield to and finish.
    public init(_ build: (Continuation) -> Void) {
        var stateContinuation: AsyncStream<SubscriptionState>.Continuation?
        states = APIStream(bufferingPolicy: .bufferingNewest(16)) { stateContinuation = $0 }
        let (values, valueContinuation) = AsyncThrowingStream<Element, any Error>.makeStream()
        self.values = values
        // `APIStream.init` runs its closure at once, so the continuation is there.
        build(Continuation(values: valueContinuation, stateContinuation: stateContinuation!))
    }

    /// A subscription that throws `error` at once.
    public static func failed(_ error: APIError) -> APISubscription {
        APISubscription { $0.finish(throwing: error) }
    }

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Element, any Error>.AsyncIterator

        /// The next event, or `nil` when the server completed the subscription.
        public mutating func next() async throws(APIError) -> Element? {
            do {
                return try await base.next()
            } catch {
                throw (error as? APIError) ?? .cancelled
            }
        }

        /// The next event, or `nil` when the server completed the subscription.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(APIError) -> Element? {
            do {
                return try await base.next(isolation: actor)
            } catch {
                throw (error as? APIError) ?? .cancelled
            }
        }
    }

    /// Starts iterating.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: values.makeAsyncIterator()) }
}

/// How a subscription's connection is doing.
public enum SubscriptionState: Sendable, Hashable, CustomStringConvertible {
    /// Opening the socket and waiting for the server's `connection_ack`.
    case connecting
    /// Subscribed: events flow.
    case active
    /// The connection dropped; the next attempt starts after `delay`. The subscription goes on.
    case reconnecting(attempt: Int, delay: Duration, reason: String)

    /// One line for a person.
    public var description: String {
        switch self {
        case .connecting: return "connecting"
        case .active: return "active"
        case .reconnecting(let attempt, let delay, let reason):
            return "reconnecting (attempt \(attempt) in \(Int(delay / .milliseconds(1))) ms): \(reason)"
        }
    }
}

/// The WebSocket sub-protocol subscriptions speak.
public enum SubscriptionProtocol: String, Sendable, Hashable, CaseIterable {
    /// `graphql-transport-ws`, of the graphql-ws library: the current protocol (the default).
    case graphQLTransportWS = "graphql-transport-ws"
    /// `graphql-ws`, the legacy protocol of subscriptions-transport-ws, for older servers.
    case graphQLWS = "graphql-ws"
}

/// Subscriptions: where, over which channel (a WebSocket and its protocol, HTTP multipart, or
/// server-sent events), what `connection_init` carries, and how patient to be.
public struct SubscriptionConfiguration: Sendable {
    /// How subscriptions reach the server.
    public enum Channel: Sendable {
        /// One WebSocket, opened with this client (from `APICoreWebSocket`), shared by every
        /// subscription and speaking ``SubscriptionConfiguration/subprotocol``.
        case webSocket(WebSocketTransport)
        /// HTTP multipart (`multipart/mixed;subscriptionSpec=1.0`, as Apollo Router serves it):
        /// each subscription is one POST through the client's middleware chain, whose answer
        /// streams the events in parts, with heartbeats between them. For servers and proxies
        /// where WebSockets are not an option.
        case multipartHTTP
        /// Server-sent events, as graphql-sse's distinct connections mode says (graphql-yoga,
        /// Hot Chocolate, strawberry serve it): each subscription is one POST with `Accept:
        /// text/event-stream` through the client's middleware chain, whose answer streams a
        /// `next` event per result and `complete` at the end.
        case serverSentEvents
    }

    /// The WebSocket endpoint (`ws://` or `wss://`), or over HTTP multipart and server-sent events
    /// the GraphQL endpoint (`http://` or `https://`).
    public var url: URL
    /// The channel.
    public var channel: Channel
    /// The WebSocket sub-protocol (unused over HTTP).
    public var subprotocol: SubscriptionProtocol
    /// The `connection_init` payload, asked for on every (re)connection. `nil` sends, with bearer
    /// authentication, `{"Authorization": "Bearer <token>"}`, and otherwise no payload. Unused over
    /// HTTP (multipart, server-sent events), whose requests carry credentials as every request
    /// does (middleware).
    public var connectionPayload: (@Sendable () async -> JSONObject?)?
    /// Headers of the upgrade request (or of each HTTP request), besides the client's default
    /// headers (a cookie session adds its `Cookie` header itself). A header named here replaces the
    /// transport's own of that name (`Origin`, for one); an empty value leaves it out.
    public var headers: [String: String]
    /// How long the server has to answer `connection_init` with `connection_ack`; also how long
    /// connecting and the WebSocket upgrade may take. Over HTTP, how long the response's head may
    /// take.
    public var ackTimeout: Duration
    /// With `graphql-transport-ws`, a `ping` is sent after this much silence, and a connection that
    /// stays silent for as long again is taken for dead and reopened. Over HTTP, where the server
    /// sends heartbeats on its own (multipart heartbeats, event-stream comments), a connection
    /// silent for twice this long is taken for dead. `nil` never pings and waits forever.
    public var keepAlive: Duration?
    /// How a dropped connection is reopened: attempts, backoff and jitter; `nil` never reopens it.
    public var reconnect: RetryPolicy?
    /// The largest message (multipart part, server-sent event) accepted, in bytes.
    public var maxMessageSize: Int
    /// Whether queries and mutations go over the WebSocket too (a `subscribe` answered with one
    /// `next` and `complete`), on the connection subscriptions share, instead of HTTP; a request's
    /// ``GraphQLRequest/usesWebSocket`` decides for itself. Off by default; unused over HTTP
    /// channels.
    public var carriesQueriesAndMutations = false

    /// Subscriptions over a WebSocket.
    public init(
        url: URL,
        subprotocol: SubscriptionProtocol = .graphQLTransportWS,
        transport: WebSocketTransport,
        connectionPayload: (@Sendable () async -> JSONObject?)? = nil,
        headers: [String: String] = [:],
        ackTimeout: Duration = .seconds(10),
        keepAlive: Duration? = .seconds(20),
        reconnect: RetryPolicy? = SubscriptionConfiguration.defaultReconnect,
        maxMessageSize: Int = 4 << 20
    ) {
        self.init(
            url: url, channel: .webSocket(transport), subprotocol: subprotocol, connectionPayload: connectionPayload, headers: headers,
            ackTimeout: ackTimeout, keepAlive: keepAlive, reconnect: reconnect, maxMessageSize: maxMessageSize)
    }

    /// Subscriptions over HTTP multipart, to the GraphQL endpoint `url` (usually the client's
    /// `graphQLURL`). With the default `keepAlive`, 30 s without an event or a heartbeat (Apollo
    /// Router sends one every 5 s) reopen the connection.
    public static func multipartHTTP(
        url: URL,
        headers: [String: String] = [:],
        ackTimeout: Duration = .seconds(10),
        keepAlive: Duration? = .seconds(15),
        reconnect: RetryPolicy? = SubscriptionConfiguration.defaultReconnect,
        maxMessageSize: Int = 4 << 20
    ) -> SubscriptionConfiguration {
        SubscriptionConfiguration(
            url: url, channel: .multipartHTTP, subprotocol: .graphQLTransportWS, connectionPayload: nil, headers: headers,
            ackTimeout: ackTimeout, keepAlive: keepAlive, reconnect: reconnect, maxMessageSize: maxMessageSize)
    }

    /// Subscriptions over server-sent events (graphql-sse, distinct connections mode), to the
    /// GraphQL endpoint `url` (or the server's own stream endpoint, such as graphql-yoga's
    /// `/graphql/stream`). With the default `keepAlive`, 30 s without an event or a comment reopen
    /// the connection; `nil` waits forever, for servers that send no heartbeats.
    public static func serverSentEvents(
        url: URL,
        headers: [String: String] = [:],
        ackTimeout: Duration = .seconds(10),
        keepAlive: Duration? = .seconds(15),
        reconnect: RetryPolicy? = SubscriptionConfiguration.defaultReconnect,
        maxMessageSize: Int = 4 << 20
    ) -> SubscriptionConfiguration {
        var configuration = multipartHTTP(
            url: url, headers: headers, ackTimeout: ackTimeout, keepAlive: keepAlive, reconnect: reconnect, maxMessageSize: maxMessageSize)
        configuration.channel = .serverSentEvents
        return configuration
    }

    private init(
        url: URL, channel: Channel, subprotocol: SubscriptionProtocol, connectionPayload: (@Sendable () async -> JSONObject?)?,
        headers: [String: String], ackTimeout: Duration, keepAlive: Duration?, reconnect: RetryPolicy?, maxMessageSize: Int
    ) {
        self.url = url
        self.channel = channel
        self.subprotocol = subprotocol
        self.connectionPayload = connectionPayload
        self.headers = headers
        self.ackTimeout = ackTimeout
        self.keepAlive = keepAlive
        self.reconnect = reconnect
        self.maxMessageSize = maxMessageSize
    }

    /// Up to 10 attempts, from 500 ms doubling to at most 30 s (±30 %), for at most 5 minutes.
    public static let defaultReconnect = RetryPolicy(
        maxAttempts: 10, initialDelay: .milliseconds(500), multiplier: 2, maxDelay: .seconds(30), jitter: 0.3,
        maxTotalTime: .seconds(300))
}

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
