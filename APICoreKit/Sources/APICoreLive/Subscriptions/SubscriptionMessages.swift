@_spi(Engine) @_spi(Tools) import APICore
import APICoreSupport

/// A message from the server, checked against its protocol.
package enum ServerMessage: Sendable, Equatable {
    /// `connection_ack`.
    case connectionAck
    /// `ping` (graphql-transport-ws), answered with `pong`.
    case ping
    /// `pong`, or the legacy `ka` keep-alive.
    case keepAlive
    /// `next` (legacy `data`): one result of an operation, on the tape the message was read into.
    case next(id: String, payload: ReadObject)
    /// `error`: the operation failed and is over.
    case error(id: String, errors: [GraphQLError])
    /// `complete`: the server ended the operation.
    case complete(id: String)
    /// Legacy `connection_error`: `connection_init` was refused.
    case connectionError(String)
}

/// The two sub-protocols' messages: what the client sends, and reading what the server sends, with
/// the wording of graphql-ws's own checks for a message that breaks the protocol.
package enum SubscriptionWire {
    static func connectionInit(payload: JSONObject?) -> String {
        var message: JSONObject = ["type": "connection_init"]
        if let payload { message["payload"] = .object(payload) }
        return JSONSerializer.string(.object(message))
    }

    static func subscribe(id: String, payload: JSONObject, protocol subprotocol: SubscriptionProtocol) -> String {
        let type = subprotocol == .graphQLTransportWS ? "subscribe" : "start"
        return JSONSerializer.string(["id": .string(id), "type": .string(type), "payload": .object(payload)])
    }

    static func complete(id: String, protocol subprotocol: SubscriptionProtocol) -> String {
        let type = subprotocol == .graphQLTransportWS ? "complete" : "stop"
        return JSONSerializer.string(["id": .string(id), "type": .string(type)])
    }

    static let ping = #"{"type":"ping"}"#
    static let pong = #"{"type":"pong"}"#

    /// Reads one message; a message that breaks the protocol gives a sentence saying how.
    /// A result's payload stays on the message's tape; any other message is made a tree.
    package static func parse(_ text: String, protocol subprotocol: SubscriptionProtocol) -> Result<ServerMessage, Invalid> {
        let tape: JSONTape
        do {
            tape = try JSONTape(reading: text)
        } catch {
            return .failure(Invalid("Message is not JSON (\(error))"))
        }
        guard tape.root.kind == .object else {
            return .failure(Invalid("Message is expected to be an object, but got \(kind(of: tape.root.jsonValue))"))
        }
        guard let type = tape.root["type"]?.stringValue, !type.isEmpty else {
            return .failure(Invalid("Message is missing the 'type' property"))
        }
        // A result, the message nearly every one is: its payload stays on the tape.
        if type == (subprotocol == .graphQLTransportWS ? "next" : "data"), let id = tape.root["id"]?.stringValue, !id.isEmpty,
           let payload = tape.root["payload"], payload.kind == .object
        {
            return .success(.next(id: id, payload: .tape(payload)))
        }
        guard case .object(let message) = tape.root.jsonValue else { return .failure(Invalid("Message is expected to be an object")) }
        switch subprotocol {
        case .graphQLTransportWS: return parseTransportWS(type: type, message)
        case .graphQLWS: return parseLegacy(type: type, message)
        }
    }

    package struct Invalid: Error, Equatable {
        package var description: String
        init(_ description: String) { self.description = description }
    }

    private static func parseTransportWS(type: String, _ message: JSONObject) -> Result<ServerMessage, Invalid> {
        switch type {
        case "connection_ack", "ping", "pong":
            if let payload = message["payload"], payload != .null, payload.objectValue == nil {
                return .failure(Invalid(#""\#(type)" message expects the 'payload' property to be an object or nullish or missing, but got \#(JSONSerializer.string(payload))"#))
            }
            return .success(type == "connection_ack" ? .connectionAck : type == "ping" ? .ping : .keepAlive)
        case "next":
            return operationID(type, message).flatMap { id in
                guard case .object(let payload)? = message["payload"] else {
                    return .failure(Invalid(#""next" message expects the 'payload' property to be an object, but got \#(kind(of: message["payload"]))"#))
                }
                return .success(.next(id: id, payload: .tree(payload)))
            }
        case "error":
            return operationID(type, message).flatMap { id in
                guard let errors = graphQLErrors(message["payload"]) else {
                    return .failure(Invalid(#""error" message expects the 'payload' property to be an array of GraphQL errors, but got \#(message["payload"].map(JSONSerializer.string) ?? "undefined")"#))
                }
                return .success(.error(id: id, errors: errors))
            }
        case "complete":
            return operationID(type, message).map { .complete(id: $0) }
        case "connection_init", "subscribe":
            return .failure(Invalid(#""\#(type)" message is for servers; a client cannot receive it"#))
        default:
            return .failure(Invalid(#"Invalid message 'type' property "\#(type)""#))
        }
    }

    private static func parseLegacy(type: String, _ message: JSONObject) -> Result<ServerMessage, Invalid> {
        switch type {
        case "connection_ack": return .success(.connectionAck)
        case "ka": return .success(.keepAlive)
        case "connection_error":
            let payload = message["payload"]
            let text = payload?["message"]?.stringValue ?? payload?.stringValue ?? payload.map(JSONSerializer.string) ?? "no reason given"
            return .success(.connectionError(text))
        case "data":
            return operationID(type, message).flatMap { id in
                guard case .object(let payload)? = message["payload"] else {
                    return .failure(Invalid(#""data" message expects the 'payload' property to be an object, but got \#(kind(of: message["payload"]))"#))
                }
                return .success(.next(id: id, payload: .tree(payload)))
            }
        case "error":
            // subscriptions-transport-ws sends one error object; some servers send an array.
            return operationID(type, message).flatMap { id in
                let payload = message["payload"]
                guard let errors = graphQLErrors(payload) ?? payload.flatMap({ graphQLErrors(.array([$0])) }) else {
                    return .failure(Invalid(#""error" message expects the 'payload' property to be a GraphQL error, but got \#(payload.map(JSONSerializer.string) ?? "undefined")"#))
                }
                return .success(.error(id: id, errors: errors))
            }
        case "complete":
            return operationID(type, message).map { .complete(id: $0) }
        default:
            return .failure(Invalid(#"Invalid message 'type' property "\#(type)""#))
        }
    }

    private static func operationID(_ type: String, _ message: JSONObject) -> Result<String, Invalid> {
        guard case .string(let id)? = message["id"] else {
            return .failure(Invalid(#""\#(type)" message expects the 'id' property to be a string, but got \#(kind(of: message["id"]))"#))
        }
        guard !id.isEmpty else { return .failure(Invalid(#""\#(type)" message requires a non-empty 'id' property"#)) }
        return .success(id)
    }

    /// A non-empty array of objects with a string `message`, as GraphQL errors.
    private static func graphQLErrors(_ value: JSONValue?) -> [GraphQLError]? {
        guard case .array(let items)? = value, !items.isEmpty,
            items.allSatisfy({ $0["message"]?.stringValue != nil })
        else { return nil }
        return items.map(GraphQLError.init(json:))
    }

    private static func kind(of value: JSONValue?) -> String {
        switch value {
        case nil: return "undefined"
        case .null?: return "null"
        case .bool?: return "boolean"
        case .int?, .double?, .number?: return "number"
        case .string?: return "string"
        case .array?: return "array"
        case .object?: return "object"
        }
    }
}
