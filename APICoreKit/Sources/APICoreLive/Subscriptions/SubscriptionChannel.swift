@_spi(Engine) import APICore
import APICoreSupport
import Foundation

/// One way subscriptions reach the server: a WebSocket shared by every operation, or one streamed
/// HTTP request per operation (multipart, server-sent events). A channel only opens operations and
/// says what happens to them; reading events, writing them to the cache, yielding them, states and
/// reconnecting are the subscription loop's (`Subscribing.subscribe`), written once for all.
protocol SubscriptionChannel: Sendable {
    /// Opens one operation: the queue says how it goes, and ends after `complete`, `error` or
    /// `dropped`. Stopping the queue unsubscribes (or ends the request behind it).
    func open(_ operation: OutgoingOperation) -> EventQueue<ChannelEvent>
}

/// What a channel reports about one operation.
enum ChannelEvent: Sendable {
    /// The operation is subscribed: events flow.
    case connected
    /// One result of the operation: `data`, `errors`, `extensions` (on the tape it was read
    /// into, when the channel read it whole).
    case payload(ReadObject)
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
