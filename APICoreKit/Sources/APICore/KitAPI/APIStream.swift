/// A stream of values that ends when its producer finishes it or its consumer stops: breaking out
/// of the `for await` loop, or cancelling the consuming task, cancels the work behind it.
///
/// Watchers and cache-and-network fetches yield `Result` elements: an error is one event, not the
/// end of the stream (a watcher whose fetch failed still watches).
public struct APIStream<Element: Sendable>: AsyncSequence, Sendable {
    /// Never throws: errors travel as elements.
    public typealias Failure = Never

    private let stream: AsyncStream<Element>

    /// A stream fed by `build`, which gets a continuation to yield to and finish; `onCancel` runs
    /// once when the consumer stops early.
    @_spi(Engine) public init(
        bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded,
        _ build: (AsyncStream<Element>.Continuation) -> Void
    ) {
        stream = AsyncStream(Element.self, bufferingPolicy: bufferingPolicy, build)
    }

    /// A stream that asks `produce` for each element as the consumer wants it (`nil` ends it);
    /// `onCancel` runs when the consuming task is cancelled.
    @_spi(Engine) public init(unfolding produce: @escaping @Sendable () async -> Element?, onCancel: (@Sendable () -> Void)? = nil) {
        stream = AsyncStream(unfolding: produce, onCancel: onCancel)
    }

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.AsyncIterator

        /// The next element, or `nil` when the stream is over.
        public mutating func next() async -> Element? { await base.next() }

        /// The next element, or `nil` when the stream is over.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await base.next(isolation: actor)
        }
    }

    /// Starts iterating.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }

    /// The same stream with each element transformed; stopping the new stream stops this one.
    public func map<T: Sendable>(_ transform: @escaping @Sendable (Element) -> T) -> APIStream<T> {
        let base = self
        return APIStream<T> { continuation in
            let task = Task {
                for await element in base { continuation.yield(transform(element)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
