import APICore
import Foundation

/// A lock that waits without blocking a thread: one holder at a time, the others resumed in the
/// order they came.
final class AsyncLock: Sendable {
    private let state = Locked<(held: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    /// Runs `body` holding the lock.
    func run<T, Failure: Error>(_ body: () async throws(Failure) -> T) async throws(Failure) -> T {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.held {
                    state.waiting.append(continuation)
                    return false
                }
                state.held = true
                return true
            }
            if now { continuation.resume() }
        }
        defer {
            let next = state.withLock { state in
                if state.waiting.isEmpty { state.held = false }
                return state.waiting.isEmpty ? nil : state.waiting.removeFirst()
            }
            next?.resume()
        }
        return try await body()
    }
}
