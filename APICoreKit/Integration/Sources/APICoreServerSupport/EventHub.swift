import Foundation

/// Where mutations publish the events that subscription resolvers stream, by topic.
public final class EventHub: Sendable {
    private typealias Subscriber = (topic: String, accepts: @Sendable (any Sendable) -> Bool,
                                    continuation: AsyncThrowingStream<any Sendable, any Error>.Continuation)
    private let subscribers = Locked<[UUID: Subscriber]>([:])

    /// A hub with no subscribers.
    public init() {}

    /// The events of `topic` that `accepts` lets through, until the consumer stops.
    public func stream(_ topic: String, where accepts: @escaping @Sendable (any Sendable) -> Bool = { _ in true })
        -> AsyncThrowingStream<any Sendable, any Error>
    {
        let (stream, continuation) = AsyncThrowingStream<any Sendable, any Error>.makeStream()
        let id = UUID()
        subscribers.withLock { $0[id] = (topic, accepts, continuation) }
        continuation.onTermination = { [subscribers] _ in subscribers.withLock { $0[id] = nil } }
        return stream
    }

    /// Sends `event` to every subscriber of `topic`.
    public func publish(_ topic: String, _ event: any Sendable) {
        let receivers = subscribers.withLock { $0.values.filter { $0.topic == topic } }
        for receiver in receivers where receiver.accepts(event) { receiver.continuation.yield(event) }
    }

    /// How many streams are open on `topic`.
    public func count(_ topic: String) -> Int { subscribers.withLock { $0.values.filter { $0.topic == topic }.count } }
}
