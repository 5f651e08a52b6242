import APICore
import Foundation

/// One way subscriptions reach the server: a WebSocket shared by every operation, or one streamed
/// HTTP request per operation (multipart, server-sent events). A channel only opens operations and
/// says what happens to them; reading events, writing them to the cache, yielding them, states and
/// reconnecting are the subscription loop's (`LiveAPIClient.subscribe`), written once for all.
protocol SubscriptionChannel: Sendable {
    /// Opens one operation: the stream says how it goes, and ends after `complete`, `error` or
    /// `dropped`. Stopping the stream unsubscribes (or ends the request behind it).
    func open(_ operation: SubscriptionOperation) -> APIStream<ChannelEvent>
}

/// What a channel reports about one operation.
enum ChannelEvent: Sendable {
    /// The operation is subscribed: events flow.
    case connected
    /// One result of the operation: `data`, `errors`, `extensions`.
    case payload(JSONObject)
    /// The server ended the operation with an error; the subscription ends with it.
    case error(APIError)
    /// The server completed the operation.
    case complete
    /// The connection behind the operation was lost: the loop opens it again when the error and
    /// the `reconnect` policy allow, and ends the subscription with the error otherwise.
    case dropped(APIError)
    /// How a connection that the channel keeps for many operations, and reconnects itself, is doing.
    case state(SubscriptionState)
}

/// An operation as a channel sends it.
struct SubscriptionOperation: Sendable {
    /// The operation's name.
    var name: String
    /// The document.
    var document: String
    /// The variables.
    var variables: JSONObject
    /// Headers of the request, over the configuration's (for channels that send HTTP requests).
    var headers: [String: String]
    /// The document's id, for the middleware of channels that send HTTP requests.
    var documentID: String? = nil
    /// The app's values, for the same middleware.
    var values = RequestValues()
    /// In persisted-only mode, the id the operation goes by instead of its document.
    var persistedID: String? = nil

    /// What of the document requests carry: the document, or in persisted-only mode the id.
    var sending: GraphQLHTTP.Document { persistedID.map { .hashOnly($0) } ?? .full }

    /// `query` (or in persisted-only mode `extensions.persistedQuery`), `operationName` and
    /// `variables`, as a WebSocket `subscribe` message carries them.
    var payload: JSONObject {
        var payload: JSONObject = ["operationName": .string(name)]
        switch sending {
        case .hashOnly(let id): payload["extensions"] = ["persistedQuery": ["version": 1, "sha256Hash": .string(id)]]
        case .full, .hashAndDocument: payload["query"] = .string(document)
        }
        if !variables.isEmpty { payload["variables"] = .object(variables) }
        return payload
    }
}
