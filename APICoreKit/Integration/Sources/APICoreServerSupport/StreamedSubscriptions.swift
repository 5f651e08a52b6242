import Foundation
import GraphQL
import Hummingbird
import NIOCore

/// Subscriptions over one streamed HTTP answer per subscription, for the test and dev servers, in
/// either of two formats:
/// - HTTP multipart, as Apollo Router serves it (`subscriptionSpec=1.0`): the answer is
///   `multipart/mixed; boundary="graphql"`, each part `{"payload": <result>}` for an event, `{}` for
///   a heartbeat, `{"payload": null, "errors": […]}` when the subscription fails, and the closing
///   boundary when its event stream ends;
/// - server-sent events, as graphql-sse's distinct connections mode says: `text/event-stream`,
///   `event: next` with a result as its data for an event (errors included), a `:` comment for a
///   heartbeat, and `event: complete` when the event stream ends.
public enum StreamedSubscriptions {
    /// The format of the answer.
    enum Format {
        /// `multipart/mixed` (Apollo's protocol).
        case multipart
        /// `text/event-stream` (graphql-sse).
        case eventStream
    }

    /// How a server writes its streamed subscriptions.
    public struct Options: Sendable {
        /// The time between heartbeats; `nil` sends none (a server a client must give up on).
        public var heartbeat: Duration?
        /// After that many events, ends with a `payload: null` error part, as a server whose
        /// source of events failed would.
        public var failAfter: Int?
        /// After that many events, stops without the closing boundary, as a server that dies
        /// mid-stream would.
        public var cutAfter: Int?
        /// Told when the client closed the connection before the end.
        public var onClientGone: (@Sendable () -> Void)?
        /// Told each time a heartbeat is written.
        public var onHeartbeat: (@Sendable () -> Void)?

        /// Options; by default a heartbeat every 5 s, as Apollo Router sends them.
        public init(
            heartbeat: Duration? = .seconds(5), failAfter: Int? = nil, cutAfter: Int? = nil,
            onClientGone: (@Sendable () -> Void)? = nil, onHeartbeat: (@Sendable () -> Void)? = nil
        ) {
            self.heartbeat = heartbeat
            self.failAfter = failAfter
            self.cutAfter = cutAfter
            self.onClientGone = onClientGone
            self.onHeartbeat = onHeartbeat
        }
    }

    /// The format `accept` asks for, if it asks for a streamed subscription.
    static func format(accepting accept: String) -> Format? {
        let accept = accept.lowercased()
        if accept.contains("text/event-stream") { return .eventStream }
        if accept.contains("multipart/mixed") && accept.contains("subscriptionspec") { return .multipart }
        return nil
    }

    /// The streaming answer to a subscription.
    static func respond(
        schema: GraphQLSchema, query: String, operationName: String?, variablesJSON: Data?, context: any Sendable, format: Format,
        options: Options
    ) async throws -> Response {
        let variables = try variablesJSON.map { try JSONDecoder().decode([String: Map].self, from: $0) } ?? [:]
        let subscribed = try await graphqlSubscribe(
            schema: schema, request: query, context: context, variableValues: variables, operationName: operationName)

        // Events and heartbeats, merged into one sequence of parts for the one writer.
        let (parts, sink) = AsyncStream<String>.makeStream()
        let producer = Task {
            var count = 0
            switch subscribed {
            case .failure(let errors):
                sink.yield(try format.failure(errors.errors))
            case .success(let events):
                do {
                    for try await event in events {
                        if let cutAfter = options.cutAfter, count >= cutAfter {
                            sink.yield(format.cut)
                            sink.finish()
                            return
                        }
                        if let failAfter = options.failAfter, count >= failAfter {
                            sink.yield(try format.failure([GraphQLError(message: "the source of events failed")]))
                            break
                        }
                        let result = try JSONSerialization.jsonObject(with: GraphQLJSONEncoder().encode(event))
                        sink.yield(try format.event(result))
                        count += 1
                    }
                } catch {
                    sink.yield(try format.failure([GraphQLError(message: "\(error)")]))
                }
            }
            sink.yield(format.end)
            sink.finish()
        }
        let heartbeats = options.heartbeat.map { interval in
            Task {
                while !Task.isCancelled {
                    try await Task.sleep(for: interval)
                    sink.yield(format.heartbeat)
                    options.onHeartbeat?()
                }
            }
        }
        sink.onTermination = { _ in
            producer.cancel()
            heartbeats?.cancel()
        }
        var response = Response(status: .ok, body: ResponseBody { writer in
            do {
                try await writer.write(ByteBuffer(string: format.start))
                for await part in parts {
                    try await writer.write(ByteBuffer(string: part))
                    if part == format.end { break }
                }
                sink.finish()
                try await writer.finish(nil)
            } catch {
                sink.finish()
                options.onClientGone?()
                throw error
            }
        })
        response.headers[.contentType] = format.contentType
        response.headers[.cacheControl] = "no-cache"
        return response
    }
}

extension StreamedSubscriptions.Format {
    var contentType: String {
        switch self {
        case .multipart: return "multipart/mixed; boundary=\"graphql\"; subscriptionSpec=\"1.0\""
        case .eventStream: return "text/event-stream; charset=utf-8"
        }
    }

    /// What opens the body: for multipart the first delimiter, since each part ends with the next
    /// one, so that a reader knows it is whole at once.
    var start: String { self == .multipart ? "\r\n--graphql" : "" }

    /// What closes the body.
    var end: String { self == .multipart ? "--\r\n" : "event: complete\ndata:\n\n" }

    var heartbeat: String { self == .multipart ? Self.part("{}") : ":\n\n" }

    /// The start of an event and no more, as a server that dies mid-stream leaves it.
    var cut: String { self == .multipart ? "\r\nContent-Type: application/json\r\n\r\n{\"payload\": {\"da" : "event: next\ndata: {\"da" }

    /// One result.
    func event(_ result: Any) throws -> String {
        switch self {
        case .multipart: return Self.part(try Self.json(["payload": result]))
        case .eventStream: return "event: next\ndata: " + (try Self.json(result)) + "\n\n"
        }
    }

    /// Errors that end the subscription.
    func failure(_ errors: [GraphQLError]) throws -> String {
        let errors = errors.map { ["message": $0.message] }
        switch self {
        case .multipart: return Self.part(try Self.json(["payload": NSNull(), "errors": errors]))
        // graphql-sse: errors travel in a `next` event; `complete` follows.
        case .eventStream: return "event: next\ndata: " + (try Self.json(["errors": errors])) + "\n\n"
        }
    }

    private static func json(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    private static func part(_ json: String) -> String { "\r\nContent-Type: application/json\r\n\r\n" + json + "\r\n--graphql" }
}
