import Foundation
import GraphQL
import HTTPTypes
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// What the server's WebSocket endpoint does besides speaking the protocol, so that tests can make
/// it misbehave.
public struct WebSocketBehavior: Sendable {
    /// Wait this long before `connection_ack`.
    public var ackDelay: Duration = .zero
    /// Never acknowledge `connection_init`.
    public var neverAcknowledges = false
    /// Sent instead of `connection_ack`, as it is.
    public var ackFrame: String?
    /// Sent instead of executing a subscription, as they are, with `{{id}}` replaced by its id; the
    /// last one is repeated `repeatLast` more times.
    public var framesOnSubscribe: [String]?
    /// How many more times the last of `framesOnSubscribe` is sent.
    public var repeatLast = 0
    /// Send `complete` after `framesOnSubscribe`.
    public var completesAfterFrames = false
    /// Close the socket with this code and reason on `connection_init`.
    public var closeOnInit: (code: Int, reason: String)?
    /// Refuse `connection_init` (4403 Forbidden, or the legacy `connection_error`) unless its payload
    /// carries `"Authorization": "Bearer <the current access token>"`.
    public var requiresToken = false
    /// Answer `ping` with `pong` (off: a server that went quiet).
    public var answersPings = true
    /// Close with 4408 when `connection_init` does not come within this time.
    public var initTimeout: Duration = .seconds(3)
    /// Answer every subscription with one `next` message of this many filler bytes, written in
    /// 64 KiB fragments (`nil`: execute it); a message that never ends stops at 2 GiB or when the
    /// client goes.
    public var floodsOnSubscribe: Int?

    /// The protocol, behaving.
    public init() {}
}

/// A message a client sent on a WebSocket.
public struct WebSocketRecord: Sendable {
    /// Which connection, counting from 1.
    public var connection: Int
    /// The sub-protocol of the connection.
    public var subprotocol: String
    /// The message as sent.
    public var text: String
    /// The message's `type`, when it is a JSON object with one.
    public var type: String?
    /// The message's `id`, when it has one.
    public var id: String?
}

/// The server's side of `graphql-transport-ws` and the legacy `graphql-ws`, for the engine's test
/// server and the dev server (never for apps): subscriptions executed with GraphQLSwift, the
/// protocol's own close codes enforced, every client message recorded, and switches that make it
/// misbehave (``WebSocketBehavior``).
///
/// ```swift
/// let webSocket = GraphQLWebSocketServer(schema: schema)
/// let app = Application(router: router, server: .http1WebSocketUpgrade { request, _, _ in webSocket.shouldUpgrade(request) })
/// ```
public final class GraphQLWebSocketServer: Sendable {
    struct State: Sendable {
        var behavior = WebSocketBehavior()
        var connections = 0
        var upgradeHeaders: [[String: String]] = []
        var messages: [WebSocketRecord] = []
        var closers: [Int: @Sendable (Int, String) -> Void] = [:]
    }

    let schema: GraphQLSchema
    let path: String
    let authorize: @Sendable (_ connectionPayload: JSONPayload) -> Bool
    /// The document a persisted-query id stands for, for `subscribe` messages without a query.
    let persistedDocument: @Sendable (_ id: String) -> String?
    let state = Locked(State())

    static let subprotocols = ["graphql-transport-ws", "graphql-ws"]

    /// A server for `schema` at `path`; `authorize` decides, when ``WebSocketBehavior/requiresToken``
    /// is set, whether a `connection_init` payload is let in; `persistedDocument` gives the document
    /// of a `subscribe` that carries only `extensions.persistedQuery`.
    public init(
        schema: GraphQLSchema, path: String = "/graphql",
        authorize: @escaping @Sendable (_ connectionPayload: JSONPayload) -> Bool = { _ in true },
        persistedDocument: @escaping @Sendable (_ id: String) -> String? = { _ in nil }
    ) {
        self.schema = schema
        self.path = path
        self.authorize = authorize
        self.persistedDocument = persistedDocument
    }

    /// The upgrade decision: only `path`, only with a sub-protocol the server speaks.
    public func shouldUpgrade(_ request: HTTPRequest) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let requestPath = request.path.map { String($0.prefix { $0 != "?" }) }
        let offered = (request.headerFields[.secWebSocketProtocol] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard requestPath == path, let chosen = offered.first(where: Self.subprotocols.contains) else { return .dontUpgrade }
        var headers = HTTPFields()
        headers[.secWebSocketProtocol] = chosen
        var upgradeHeaders: [String: String] = [:]
        for field in request.headerFields { upgradeHeaders[field.name.canonicalName] = field.value }
        let recorded = upgradeHeaders
        return .upgrade(headers) { inbound, outbound, _ in
            let (connection, behavior) = self.state.withLock { state -> (Int, WebSocketBehavior) in
                state.connections += 1
                state.upgradeHeaders.append(recorded)
                return (state.connections, state.behavior)
            }
            let session = Session(
                connection: connection, legacy: chosen == "graphql-ws", subprotocol: chosen, behavior: behavior, server: self, outbound: outbound)
            await session.run(inbound)
        }
    }

    /// Makes the endpoint misbehave (for connections opened from now on).
    public func setBehavior(_ behavior: WebSocketBehavior) { state.withLock { $0.behavior = behavior } }

    /// Closes every open socket with this code and reason; 1001 "going away" is what a server that
    /// restarts sends.
    public func closeAll(code: Int = 1001, reason: String = "server restarting") {
        let closers = state.withLock { Array($0.closers.values) }
        for close in closers { close(code, reason) }
    }

    /// The number of connections opened so far.
    public var connectionCount: Int { state.withLock { $0.connections } }
    /// The number of connections open now.
    public var openCount: Int { state.withLock { $0.closers.count } }
    /// The headers of each upgrade request, names lowercased, in order.
    public var upgradeHeaders: [[String: String]] { state.withLock { $0.upgradeHeaders } }
    /// Every message clients sent, in order.
    public var messages: [WebSocketRecord] { state.withLock { $0.messages } }

    /// One connection.
    actor Session {
        let connection: Int
        let legacy: Bool
        let subprotocol: String
        let behavior: WebSocketBehavior
        let server: GraphQLWebSocketServer
        let outbound: WebSocketOutboundWriter
        var initialised = false
        var acknowledged = false
        var operations: [String: Task<Void, Never>] = [:]
        var closed = false

        init(connection: Int, legacy: Bool, subprotocol: String, behavior: WebSocketBehavior, server: GraphQLWebSocketServer,
             outbound: WebSocketOutboundWriter)
        {
            self.connection = connection
            self.legacy = legacy
            self.subprotocol = subprotocol
            self.behavior = behavior
            self.server = server
            self.outbound = outbound
        }

        func run(_ inbound: WebSocketInboundStream) async {
            let connection = self.connection
            server.state.withLock { $0.closers[connection] = { code, reason in Task { await self.close(code, reason) } } }
            let initTimer = Task {
                try? await Task.sleep(for: behavior.initTimeout)
                if !Task.isCancelled, !self.initialised { await self.close(4408, "Connection initialisation timeout") }
            }
            do {
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message else {
                        await close(4400, "Binary messages are not supported")
                        break
                    }
                    await receive(text)
                    if closed { break }
                }
            } catch {}
            initTimer.cancel()
            for task in operations.values { task.cancel() }
            operations.removeAll()
            server.state.withLock { $0.closers[connection] = nil }
        }

        func close(_ code: Int, _ reason: String) async {
            guard !closed else { return }
            closed = true
            try? await outbound.close(WebSocketErrorCode(codeNumber: code), reason: reason)
        }

        func write(_ text: String) async {
            guard !closed else { return }
            try? await outbound.write(.text(text))
        }

        /// `{"id": id, "payload": payload, "type": type}`, with `payload` already JSON.
        func write(type: String, id: String? = nil, payload: String? = nil) async {
            var fields = [#""type":\#(Self.quoted(type))"#]
            if let id { fields.append(#""id":\#(Self.quoted(id))"#) }
            if let payload { fields.append(#""payload":\#(payload)"#) }
            await write("{" + fields.joined(separator: ",") + "}")
        }

        static func quoted(_ string: String) -> String {
            String(decoding: (try? JSONEncoder().encode(string)) ?? Data("\"\"".utf8), as: UTF8.self)
        }

        private func receive(_ text: String) async {
            let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) as? [String: Any]
            let type = object?["type"] as? String
            let id = object?["id"] as? String
            let record = WebSocketRecord(connection: connection, subprotocol: subprotocol, text: text, type: type, id: id)
            server.state.withLock { $0.messages.append(record) }
            guard let object, let type else { return await close(4400, "Invalid message") }
            switch type {
            case "connection_init":
                guard !initialised else { return await close(4429, "Too many initialisation requests") }
                initialised = true
                if let closing = behavior.closeOnInit { return await close(closing.code, closing.reason) }
                if behavior.requiresToken {
                    guard server.authorize(JSONPayload(object["payload"] as? [String: Any] ?? [:])) else {
                        if legacy {
                            await write(type: "connection_error", payload: #"{"message":"Forbidden"}"#)
                            return await close(1000, "Forbidden")
                        }
                        return await close(4403, "Forbidden")
                    }
                }
                if behavior.neverAcknowledges { return }
                if behavior.ackDelay > .zero { try? await Task.sleep(for: behavior.ackDelay) }
                if let frame = behavior.ackFrame { return await write(frame) }
                acknowledged = true
                await write(type: "connection_ack")
            case "ping" where !legacy:
                if behavior.answersPings { await write(type: "pong") }
            case "pong" where !legacy:
                break
            case "subscribe" where !legacy, "start" where legacy:
                guard acknowledged else { return await close(4401, "Unauthorized") }
                let payload = object["payload"] as? [String: Any]
                let persistedID = ((payload?["extensions"] as? [String: Any])?["persistedQuery"] as? [String: Any])?["sha256Hash"] as? String
                guard let id, !id.isEmpty, let payload, let query = payload["query"] as? String ?? persistedID.flatMap(server.persistedDocument) else {
                    return await close(4400, "Invalid subscribe message")
                }
                guard operations[id] == nil else { return await close(4409, "Subscriber for \(id) already exists") }
                if let bytes = behavior.floodsOnSubscribe {
                    operations[id] = Task { await self.flood(bytes, id: id) }
                    return
                }
                if let frames = behavior.framesOnSubscribe {
                    operations[id] = Task {
                        await self.sendCanned(frames, repeatLast: behavior.repeatLast, id: id)
                        if behavior.completesAfterFrames { await self.write(type: "complete", id: id) }
                    }
                    return
                }
                let variables = (payload["variables"] as? [String: Any]).flatMap { try? JSONSerialization.data(withJSONObject: $0) }
                    .flatMap { try? JSONDecoder().decode([String: Map].self, from: $0) } ?? [:]
                let operationName = payload["operationName"] as? String
                operations[id] = Task { await self.execute(id: id, query: query, variables: variables, operationName: operationName) }
            case "complete" where !legacy, "stop" where legacy:
                if let id { operations.removeValue(forKey: id)?.cancel() }
            case "connection_terminate" where legacy:
                await close(1000, "Terminated")
            default:
                await close(4400, "Invalid message type \"\(type)\"")
            }
        }

        /// One `next` message of `bytes` filler bytes, in fragments; the last one ends the message
        /// when `bytes` runs out.
        private func flood(_ bytes: Int, id: String) async {
            let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 << 10)
            let start = #"{"type":"next","id":\#(Self.quoted(id)),"payload":{"data":{"filler":""#
            do {
                try await outbound.write(.custom(WebSocketFrame(fin: false, opcode: .text, data: ByteBuffer(string: start))))
                var written = 0
                while written < min(bytes, 2 << 30), !Task.isCancelled {
                    try await outbound.write(.custom(WebSocketFrame(fin: false, opcode: .continuation, data: chunk)))
                    written += chunk.readableBytes
                }
                try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .continuation, data: ByteBuffer(string: #""}}}"#))))
            } catch {}
        }

        private func sendCanned(_ frames: [String], repeatLast: Int, id: String) async {
            for frame in frames { await write(frame.replacingOccurrences(of: "{{id}}", with: id)) }
            if let last = frames.last?.replacingOccurrences(of: "{{id}}", with: id) {
                for _ in 0..<repeatLast where !Task.isCancelled { await write(last) }
            }
        }

        private func execute(id: String, query: String, variables: [String: Map], operationName: String?) async {
            let next = legacy ? "data" : "next"
            do {
                // A query or a mutation over the socket (graphql-transport-ws allows them): one
                // `next` with its result, then `complete`.
                if let (_, operation) = GraphQLHTTPResponder.operation(in: query, named: operationName), operation.operation != .subscription {
                    var result = try await graphql(schema: server.schema, request: query, variableValues: variables, operationName: operationName)
                    result.errors = result.errors.map(GraphQLHTTPResponder.withExtensions)
                    let payload = try GraphQLJSONEncoder().encode(result)
                    await write(type: next, id: id, payload: String(decoding: payload, as: UTF8.self))
                    if !Task.isCancelled { await write(type: "complete", id: id) }
                    operations[id] = nil
                    return
                }
                let result = try await graphqlSubscribe(schema: server.schema, request: query, variableValues: variables, operationName: operationName)
                switch result {
                case .failure(let errors):
                    await write(type: "error", id: id, payload: Self.errorsPayload(errors.errors, legacy: legacy))
                case .success(let stream):
                    for try await event in stream {
                        guard let payload = try? GraphQLJSONEncoder().encode(event) else { continue }
                        await write(type: next, id: id, payload: String(decoding: payload, as: UTF8.self))
                    }
                    if !Task.isCancelled { await write(type: "complete", id: id) }
                }
            } catch {
                if !Task.isCancelled {
                    await write(type: "error", id: id, payload: Self.errorsPayload([GraphQLError(message: "\(error)")], legacy: legacy))
                }
            }
            operations[id] = nil
        }

        private static func errorsPayload(_ errors: [GraphQLError], legacy: Bool) -> String {
            let objects = errors.map { #"{"message":\#(quoted($0.message))}"# }
            // subscriptions-transport-ws sends one error object.
            return legacy ? objects.first ?? #"{"message":"error"}"# : "[" + objects.joined(separator: ",") + "]"
        }
    }
}

/// A `connection_init` payload's string fields (such as `Authorization`).
public struct JSONPayload: Sendable {
    /// The payload's fields whose values are strings.
    public let strings: [String: String]

    init(_ object: [String: Any]) {
        strings = object.compactMapValues { $0 as? String }
    }
}

/// A value behind a lock, for servers' shared state.
public final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    /// A lock around `value`.
    public init(_ value: Value) { self.value = value }
    /// Runs `body` with the value, under the lock.
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
