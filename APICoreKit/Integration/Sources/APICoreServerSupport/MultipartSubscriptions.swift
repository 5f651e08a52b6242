import Foundation
import GraphQL
import Hummingbird
import NIOCore

/// Subscriptions over HTTP multipart for the test and dev servers, as Apollo Router serves them
/// (`subscriptionSpec=1.0`): the answer is `multipart/mixed; boundary="graphql"`, each part
/// `{"payload": <result>}` for an event, `{}` for a heartbeat, `{"payload": null, "errors": […]}`
/// when the subscription fails, and the closing boundary when its event stream ends.
public enum MultipartSubscriptions {
    /// How a server writes its multipart subscriptions.
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

    /// Whether `accept` asks for multipart subscriptions.
    static func accepts(_ accept: String) -> Bool { accept.lowercased().contains("subscriptionspec") }

    /// The streaming answer to a subscription.
    static func respond(
        schema: GraphQLSchema, query: String, operationName: String?, variablesJSON: Data?, context: any Sendable, options: Options
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
                sink.yield(try Self.failure(errors.errors))
            case .success(let events):
                do {
                    for try await event in events {
                        if let cutAfter = options.cutAfter, count >= cutAfter {
                            sink.yield("\r\nContent-Type: application/json\r\n\r\n{\"payload\": {\"da")  // cut inside a part
                            sink.finish()
                            return
                        }
                        if let failAfter = options.failAfter, count >= failAfter {
                            sink.yield(try Self.failure([GraphQLError(message: "the source of events failed")]))
                            break
                        }
                        let result = try JSONSerialization.jsonObject(with: GraphQLJSONEncoder().encode(event))
                        sink.yield(try Self.part(["payload": result]))
                        count += 1
                    }
                } catch {
                    sink.yield(try Self.failure([GraphQLError(message: "\(error)")]))
                }
            }
            sink.yield("--\r\n")
            sink.finish()
        }
        let heartbeats = options.heartbeat.map { interval in
            Task {
                while !Task.isCancelled {
                    try await Task.sleep(for: interval)
                    sink.yield(try Self.part([:]))
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
                // Each part ends with the next delimiter, so a reader knows it is whole at once.
                try await writer.write(ByteBuffer(string: "\r\n--graphql"))
                for await part in parts {
                    try await writer.write(ByteBuffer(string: part))
                    if part == "--\r\n" { break }
                }
                sink.finish()
                try await writer.finish(nil)
            } catch {
                sink.finish()
                options.onClientGone?()
                throw error
            }
        })
        response.headers[.contentType] = "multipart/mixed; boundary=\"graphql\"; subscriptionSpec=\"1.0\""
        return response
    }

    private static func part(_ object: [String: Any]) throws -> String {
        let json = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return "\r\nContent-Type: application/json\r\n\r\n" + String(decoding: json, as: UTF8.self) + "\r\n--graphql"
    }

    private static func failure(_ errors: [GraphQLError]) throws -> String {
        try part(["payload": NSNull(), "errors": errors.map { ["message": $0.message] }])
    }
}
