import APICore
import Foundation

/// Tries idempotent requests again when the error's ``APIError/recovery`` is `.retry` (and, for a
/// status, the policy lists it), waiting with exponential backoff and jitter (or as long as
/// `Retry-After` says, capped), within the policy's attempts and total time. A failure that cannot
/// heal (a refused certificate, an answer over the bound, a 4xx) is never tried again. Cancelling
/// the caller stops at once.
struct RetryMiddleware: Middleware {
    let policy: RetryPolicy

    func intercept(_ request: URLRequest, context: RequestContext, next: MiddlewareNext) async throws(APIError) -> TransportResponse {
        let start = ContinuousClock.now
        var attempt = 1
        while true {
            do {
                return try await next(request)
            } catch {
                guard context.isIdempotent, attempt < policy.maxAttempts, policy.retries(error) else { throw error }
                let delay = policy.wait(after: attempt, for: error)
                guard ContinuousClock.now - start + delay <= policy.maxTotalTime else { throw error }
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    throw .cancelled
                }
                attempt += 1
            }
        }
    }

    /// `Retry-After` in seconds or as an HTTP date.
    static func retryAfter(_ error: APIError) -> Duration? {
        let headers: [String: String]
        switch error {
        case .httpStatus(let failure), .unauthorized(let failure): headers = failure.headers
        default: return nil
        }
        guard let value = headers["retry-after"]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .milliseconds(max(0, Int(date.timeIntervalSinceNow * 1000)))
    }
}

extension RetryPolicy {
    /// Whether `error` is worth another attempt under this policy, for a request and a
    /// subscription's reconnection alike: the error's recovery decides; the policy can only narrow
    /// which statuses are tried again.
    func retries(_ error: APIError) -> Bool {
        guard error.recovery == .retry else { return false }
        return error.statusCode.map(retryableStatusCodes.contains) ?? true
    }

    /// The wait before the attempt after `attempt` (counted from 1) failed with `error`: what its
    /// `Retry-After` asks, or the backoff, never longer than ``maxDelay``.
    func wait(after attempt: Int, for error: APIError) -> Duration {
        min(RetryMiddleware.retryAfter(error) ?? delay(after: attempt), maxDelay)
    }
}
