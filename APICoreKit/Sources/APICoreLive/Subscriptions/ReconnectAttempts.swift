import APICore

/// Failures in a row of a subscription channel, held against its `reconnect` policy: how long to
/// wait before the next attempt, or that the policy gives up. A connection that worked starts the
/// count again: one that delivered an event, or stayed active longer than the policy's longest
/// wait. One that is accepted and then always dropped before either (a proxy that cuts every
/// answer) is a failure in a row, so the policy's attempts bound it.
struct ReconnectAttempts {
    private(set) var failures = 0
    private var firstFailure: ContinuousClock.Instant?
    private var activeSince: ContinuousClock.Instant?

    /// The connection became active (at `instant`).
    mutating func connected(at instant: ContinuousClock.Instant = .now) {
        activeSince = instant
    }

    /// The connection delivered an event: it works, so the next failure is the first again.
    mutating func delivered() {
        failures = 0
        firstFailure = nil
    }

    /// Counts a failure; the wait before the next attempt (what the failure's `Retry-After` asks,
    /// capped by the policy, or the policy's backoff), or `nil` when `policy` has no attempt or
    /// time left.
    mutating func failed(_ error: APIError, under policy: RetryPolicy) -> Duration? {
        if let since = activeSince, ContinuousClock.now - since > policy.maxDelay { delivered() }
        activeSince = nil
        failures += 1
        let start = firstFailure ?? .now
        firstFailure = start
        guard failures < policy.maxAttempts, ContinuousClock.now - start < policy.maxTotalTime else { return nil }
        return policy.wait(after: failures, for: error)
    }
}
