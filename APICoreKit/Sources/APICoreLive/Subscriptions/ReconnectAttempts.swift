import APICore

/// Failures in a row of a subscription channel, held against its `reconnect` policy: how long to
/// wait before the next attempt, or that the policy gives up. A connection that got as far as
/// being active starts the count again.
struct ReconnectAttempts {
    private(set) var failures = 0
    private var firstFailure: ContinuousClock.Instant?

    /// The connection became active: the next failure is the first again.
    mutating func connected() {
        failures = 0
        firstFailure = nil
    }

    /// Counts a failure; the wait before the next attempt, or `nil` when `policy` has no attempt
    /// or time left.
    mutating func failed(under policy: RetryPolicy) -> Duration? {
        failures += 1
        let start = firstFailure ?? .now
        firstFailure = start
        guard failures < policy.maxAttempts, ContinuousClock.now - start < policy.maxTotalTime else { return nil }
        return policy.delay(after: failures)
    }
}
