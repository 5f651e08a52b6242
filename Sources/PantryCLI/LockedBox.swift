import Foundation

/// A value behind a lock, for the little state the CLI's tasks share.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}
