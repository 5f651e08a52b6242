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
    @_spi(Engine) public struct Continuation: Sendable {
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
    @_spi(Engine) public init(_ build: (Continuation) -> Void) {
        var stateContinuation: AsyncStream<SubscriptionState>.Continuation?
        states = APIStream(bufferingPolicy: .bufferingNewest(16)) { stateContinuation = $0 }
        let (values, valueContinuation) = AsyncThrowingStream<Element, any Error>.makeStream()
        self.values = values
        // `APIStream.init` runs its closure at once, so the continuation is there.
        build(Continuation(values: valueContinuation, stateContinuation: stateContinuation!))
    }

    /// A subscription that throws `error` at once.
    @_spi(Engine) public static func failed(_ error: APIError) -> APISubscription {
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
