import APICore
import APICoreSupport
import Foundation

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
