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

    /// The values waiting, shared with the producer; dropped with the last copy of the
    /// subscription and its iterators, which stops it.
    fileprivate let feed: Feed
    /// How the subscription's connection is doing: connecting, active, reconnecting. It starts with
    /// the current state and ends with the subscription; only the newest 16 states are kept for a
    /// consumer that falls behind.
    public let states: APIStream<SubscriptionState>

    /// The consumer's hold on the queue of values: when no subscription value or iterator holds it
    /// any more, the consumer has stopped.
    fileprivate final class Feed: Sendable {
        let queue = EventQueue<Element>()
        deinit { queue.stop() }
    }

    /// What a subscription's producer feeds: values, states, and the end.
    @_spi(Engine) public struct Continuation: Sendable {
        fileprivate let values: EventQueue<Element>
        fileprivate let stateContinuation: AsyncStream<SubscriptionState>.Continuation

        /// Delivers one event.
        public func yield(_ value: Element) { values.yield(value) }

        /// Delivers events in order, in one step (the consumer takes them with one wake-up).
        public func yield(contentsOf values: [Element]) { self.values.yield(contentsOf: values) }

        /// Tells the state consumer how the connection is doing.
        public func setState(_ state: SubscriptionState) { stateContinuation.yield(state) }

        /// Ends the subscription, with an error or without: the consumer gets the values still
        /// waiting, then the end.
        public func finish(throwing error: APIError? = nil) {
            values.finish(throwing: error)
            stateContinuation.finish()
        }

        /// Runs once when the subscription ends, whoever ended it (the consumer stopping included).
        public func onTermination(_ action: @escaping @Sendable () -> Void) {
            values.onEnd(action)
        }
    }

    /// A subscription fed by `build`, which gets a continuation to yield to and finish.
    @_spi(Engine) public init(_ build: (Continuation) -> Void) {
        var stateContinuation: AsyncStream<SubscriptionState>.Continuation?
        states = APIStream(bufferingPolicy: .bufferingNewest(16)) { stateContinuation = $0 }
        feed = Feed()
        // `APIStream.init` runs its closure at once, so the continuation is there.
        build(Continuation(values: feed.queue, stateContinuation: stateContinuation!))
    }

    /// A subscription that throws `error` at once.
    @_spi(Engine) public static func failed(_ error: APIError) -> APISubscription {
        APISubscription { $0.finish(throwing: error) }
    }

    /// The iterator: values that arrived together are taken in one step and handed out from here.
    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate let feed: Feed
        private var taken: [Element] = []
        private var position = 0

        fileprivate init(feed: Feed) { self.feed = feed }

        /// The next event, or `nil` when the server completed the subscription.
        public mutating func next() async throws(APIError) -> Element? {
            try await next(isolation: nil)
        }

        /// The next event, or `nil` when the server completed the subscription.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(APIError) -> Element? {
            if position == taken.count {
                guard let batch = await feed.queue.next() else {
                    taken = []
                    position = 0
                    if let failure = feed.queue.takeFailure() { throw failure }
                    return nil
                }
                taken = batch
                position = 0
            }
            defer { position += 1 }
            return taken[position]
        }
    }

    /// Starts iterating.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(feed: feed) }
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
