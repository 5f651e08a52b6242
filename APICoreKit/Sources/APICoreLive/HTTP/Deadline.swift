import Foundation

/// A one-shot timer that can be called off: a request's deadline. Unlike `asyncAfter`, whose
/// closure stays scheduled (holding what it captured) until its time comes, a deadline called off
/// is gone at once, so a client sending hundreds of requests a second does not hold a pending
/// timer for each one for its whole timeout. (Dispatch timer sources made and cancelled at that
/// rate crash libdispatch's manager thread on Linux, so the deadlines share one thread of their own.)
final class Deadline: Sendable {
    private let id: UInt64

    /// A deadline `seconds` from now that runs `fire` (on the deadlines' thread; it must be quick)
    /// unless called off first.
    init(after seconds: Double, _ fire: @escaping @Sendable () -> Void) {
        id = DeadlineThread.shared.schedule(at: .now + .nanoseconds(Int64((seconds * 1e9).rounded())), fire)
    }

    /// Calls it off (again, or after it fired, is no error).
    func cancel() { DeadlineThread.shared.cancel(id) }

    deinit { DeadlineThread.shared.cancel(id) }
}

/// The thread that runs deadlines: it sleeps until the earliest one, runs those due, and sleeps
/// again; without deadlines it waits for one. Scheduling and calling off cost a lock and a
/// dictionary entry; the work per wake is a pass over the deadlines pending, as many as
/// requests in flight.
private final class DeadlineThread: @unchecked Sendable {
    static let shared = DeadlineThread()

    private let condition = NSCondition()
    private var pending: [UInt64: (at: ContinuousClock.Instant, fire: @Sendable () -> Void)] = [:]
    private var nextID: UInt64 = 0
    /// When the thread wakes next by itself (`nil`: it waits for a deadline).
    private var wakesAt: ContinuousClock.Instant?
    private var started = false

    func schedule(at instant: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        nextID += 1
        pending[nextID] = (instant, fire)
        if !started {
            started = true
            let thread = Thread { [self] in run() }
            thread.name = "APICoreKit.deadlines"
            thread.start()
        }
        if wakesAt.map({ instant < $0 }) ?? true { condition.signal() }
        return nextID
    }

    func cancel(_ id: UInt64) {
        condition.lock()
        pending[id] = nil
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            let now = ContinuousClock.now
            var due: [@Sendable () -> Void] = []
            var earliest: ContinuousClock.Instant?
            for (id, entry) in pending {
                if entry.at <= now {
                    due.append(entry.fire)
                    pending[id] = nil
                } else if earliest.map({ entry.at < $0 }) ?? true {
                    earliest = entry.at
                }
            }
            if !due.isEmpty {
                condition.unlock()
                for fire in due { fire() }
                condition.lock()
                continue
            }
            wakesAt = earliest
            if let earliest {
                let wait = now.duration(to: earliest)
                _ = condition.wait(until: Date(timeIntervalSinceNow: wait.seconds))
            } else {
                condition.wait()
            }
        }
    }
}
