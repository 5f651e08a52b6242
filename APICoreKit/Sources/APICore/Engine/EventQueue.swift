import Foundation

/// Events from a producer to one consumer, taken in batches: the producer never waits, and the
/// consumer takes every event already waiting in one step (``next()``), so that events that
/// arrived together are handled together (written to the cache in one step, handed to an app's
/// loop with one wake-up). The consumer calls ``stop()`` when it is done (however it ends); the
/// producer learns it from ``yield(_:)`` answering `false` and from ``onStop(_:)``.
///
/// It carries a subscription's events from its channel to the engine's loop, and the loop's values
/// to the app (``APISubscription``).
@_spi(Engine) public final class EventQueue<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var finished = false
        var failure: APIError?
        var stopped = false
        var waiter: CheckedContinuation<[Element]?, Never>?
        var onStop: (@Sendable () -> Void)?
        var onEnd: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    /// An empty queue.
    public init() {}

    /// Sets what runs once when the consumer stops (at once, when it already has).
    public func onStop(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard !state.stopped else { return true }
            state.onStop = action
            return false
        }
        if now { action() }
    }

    /// Sets what runs once when the queue ends, finished by the producer or stopped by the
    /// consumer (at once, when it already has).
    public func onEnd(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard !state.stopped, !state.finished else { return true }
            state.onEnd = action
            return false
        }
        if now { action() }
    }

    /// Adds an event; `false` when the queue is finished or the consumer has stopped (the event
    /// is dropped).
    @discardableResult
    public func yield(_ element: Element) -> Bool { add(CollectionOfOne(element)) }

    /// Adds events in order, in one step; `false` when they are dropped (as ``yield(_:)``).
    @discardableResult
    public func yield(contentsOf elements: [Element]) -> Bool { elements.isEmpty || add(elements) }

    /// Appends `elements` to what waits, or hands them to a waiting consumer.
    private func add(_ elements: some Collection<Element>) -> Bool {
        let (waiter, accepted) = state.withLock { state -> (CheckedContinuation<[Element]?, Never>?, Bool) in
            guard !state.stopped, !state.finished else { return (nil, false) }
            guard let waiter = state.waiter else {
                state.buffer.append(contentsOf: elements)
                return (nil, true)
            }
            state.waiter = nil
            return (waiter, true)
        }
        waiter?.resume(returning: Array(elements))
        return accepted
    }

    /// No more events: the consumer takes those waiting, then ends (``failure`` says why, when it
    /// is an error).
    public func finish(throwing failure: APIError? = nil) {
        let (waiter, action) = state.withLock { state -> (CheckedContinuation<[Element]?, Never>?, (@Sendable () -> Void)?) in
            guard !state.finished, !state.stopped else { return (nil, nil) }
            state.finished = true
            state.failure = failure
            defer {
                state.waiter = nil
                state.onEnd = nil
            }
            return (state.waiter, state.onEnd)
        }
        action?()
        waiter?.resume(returning: nil)
    }

    /// The error the producer finished the queue with, taken (it is answered once).
    public func takeFailure() -> APIError? {
        state.withLock { state in
            defer { state.failure = nil }
            return state.failure
        }
    }

    /// Every event waiting, in order (at least one: it waits for one when none is); `nil` once the
    /// queue is finished and empty, or the consuming task is cancelled (which stops the queue).
    public func next() async -> [Element]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Element]?, Never>) in
                let ready = state.withLock { state -> [Element]?? in
                    if !state.buffer.isEmpty {
                        defer { state.buffer = [] }
                        return .some(state.buffer)
                    }
                    if state.finished || state.stopped { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            stop()
        }
    }

    /// The consumer stops: events yielded from now on are dropped, `onStop` and `onEnd` run (once),
    /// and then a waiting ``next()`` answers `nil`.
    public func stop() {
        let (waiter, actions) = state.withLock { state -> (CheckedContinuation<[Element]?, Never>?, [@Sendable () -> Void]) in
            guard !state.stopped else { return (nil, []) }
            state.stopped = true
            state.buffer.removeAll()
            defer {
                state.waiter = nil
                state.onStop = nil
                state.onEnd = nil
            }
            return (state.waiter, [state.onStop, state.onEnd].compactMap { $0 })
        }
        // The producer is told first: a consumer that sees `nil` knows it has been.
        for action in actions { action() }
        waiter?.resume(returning: nil)
    }
}
