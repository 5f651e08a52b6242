import Foundation

/// A value guarded by a lock, for the little shared state that callbacks touch.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

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
