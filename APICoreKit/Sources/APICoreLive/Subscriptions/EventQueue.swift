import Foundation

/// The events of one subscription operation, from the channel that receives them to the loop that
/// writes and yields them: the producer never waits, and the loop takes every event already
/// waiting in one step (``next()``), so that events that arrived together are written to the cache
/// together. One consumer, which calls ``stop()`` when it is done (however it ends); the producer
/// learns it from ``yield(_:)`` answering `false` and from ``onStop(_:)``.
final class EventQueue<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var finished = false
        var stopped = false
        var waiter: CheckedContinuation<[Element]?, Never>?
        var onStop: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    /// An empty queue.
    init() {}

    /// Sets what runs once when the consumer stops (at once, when it already has).
    func onStop(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard !state.stopped else { return true }
            state.onStop = action
            return false
        }
        if now { action() }
    }

    /// Adds an event; `false` when the consumer has stopped (the event is dropped).
    @discardableResult
    func yield(_ element: Element) -> Bool {
        let (waiter, accepted) = state.withLock { state -> (CheckedContinuation<[Element]?, Never>?, Bool) in
            guard !state.stopped, !state.finished else { return (nil, false) }
            guard let waiter = state.waiter else {
                state.buffer.append(element)
                return (nil, true)
            }
            state.waiter = nil
            return (waiter, true)
        }
        waiter?.resume(returning: [element])
        return accepted
    }

    /// No more events: the consumer takes those waiting, then ends.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<[Element]?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Every event waiting, in order (at least one: it waits for one when none is); `nil` once the
    /// queue is finished and empty, or the consuming task is cancelled (which stops the queue).
    func next() async -> [Element]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Element]?, Never>) in
                let ready = state.withLock { state -> [Element]?? in
                    if !state.buffer.isEmpty {
                        defer { state.buffer.removeAll(keepingCapacity: true) }
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

    /// The consumer stops: events yielded from now on are dropped, `onStop` runs (once), and then a
    /// waiting ``next()`` answers `nil`.
    func stop() {
        let (waiter, action) = state.withLock { state -> (CheckedContinuation<[Element]?, Never>?, (@Sendable () -> Void)?) in
            guard !state.stopped else { return (nil, nil) }
            state.stopped = true
            state.buffer.removeAll()
            defer {
                state.waiter = nil
                state.onStop = nil
            }
            return (state.waiter, state.onStop)
        }
        // The producer is told first: a consumer that sees `nil` knows it has been.
        action?()
        waiter?.resume(returning: nil)
    }
}
