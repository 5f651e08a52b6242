import Foundation

/// A mutation in the offline queue: sent when the server can be reached again, in the order
/// mutations were queued, each with its ``id`` as its `Idempotency-Key` header so that a server can
/// tell a replay from a new request.
public struct QueuedMutation: Sendable, Identifiable {
    /// Where a queued mutation stands.
    public enum State: Sendable {
        /// Waiting for the server.
        case queued
        /// Being sent now.
        case sending
        /// The server took it; its answer is in the cache. It has left the queue.
        case done
        /// The server refused it; it stays listed (its optimistic data gone) until the app
        /// cancels it, so that nothing is dropped unseen.
        case failed(APIError)
        /// The app cancelled it. It has left the queue.
        case cancelled
    }

    /// Its identifier, also sent as its `Idempotency-Key`.
    public var id: String
    /// The operation's name.
    public var operationName: String
    /// Its variables.
    public var variables: JSONObject
    /// When it was queued.
    public var enqueuedAt: Date
    /// Where it stands.
    public var state: State

    /// The header a queued mutation carries on every attempt, with its ``id`` (the IETF
    /// `Idempotency-Key` draft).
    @_spi(Engine) public static let idempotencyKeyHeader = "Idempotency-Key"

    /// A queued mutation.
    @_spi(Engine) public init(id: String, operationName: String, variables: JSONObject, enqueuedAt: Date, state: State) {
        self.id = id
        self.operationName = operationName
        self.variables = variables
        self.enqueuedAt = enqueuedAt
        self.state = state
    }
}

extension QueuedMutation.State: CustomStringConvertible {
    /// Whether it waits to be sent (`queued`): what a replay sends next.
    public var isWaiting: Bool {
        if case .queued = self { return true }
        return false
    }

    /// `queued`, `sending`, `done`, `failed: <error>` or `cancelled`.
    public var description: String {
        switch self {
        case .queued: return "queued"
        case .sending: return "sending"
        case .done: return "done"
        case .failed(let error): return "failed: \(error)"
        case .cancelled: return "cancelled"
        }
    }
}

/// What ``APIClient/performOrQueue(_:optimisticResponse:)`` did with a mutation.
public enum MutationOutcome<Value: Sendable>: Sendable {
    /// The server answered it.
    case sent(Response<Value>)
    /// It waits in the offline queue (its optimistic data, if any, is shown meanwhile).
    case queued(QueuedMutation)
}
