import APICore
import Foundation
import Logging

/// Identical queries in flight at the same time share one network request: the same operation,
/// variables and headers. Each caller still maps the shared data with its own `map`. A caller that
/// is cancelled leaves at once; the request itself is cancelled only when every caller has left.
actor InFlightQueries {
    typealias Shared = Result<OperationStage.ServerAnswer, APIError>

    private struct Entry {
        var task: Task<Void, Never>
        var waiters: [UInt64: CheckedContinuation<Shared, Never>]
    }

    private var entries: [String: Entry] = [:]
    /// How many queries are in flight.
    var count: Int { entries.count }
    private var nextWaiter: UInt64 = 0
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// The result of the request for `key` (an operation named `name`), started with `start`
    /// unless one is under way.
    nonisolated func run(key: String, name: String, start: @escaping @Sendable () async -> Shared) async -> Shared {
        let id = await reserveID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Task { await self.join(key: key, name: name, id: id, continuation: continuation, start: start) }
            }
        } onCancel: {
            Task { await self.leave(key: key, id: id) }
        }
    }

    private func reserveID() -> UInt64 {
        nextWaiter += 1
        return nextWaiter
    }

    private func join(
        key: String, name: String, id: UInt64, continuation: CheckedContinuation<Shared, Never>, start: @escaping @Sendable () async -> Shared
    ) {
        if entries[key] != nil {
            entries[key]?.waiters[id] = continuation
            logger.debug("\(name): shares the identical request in flight")
            return
        }
        let task = Task {
            let result = await start()
            self.finish(key: key, with: result)
        }
        entries[key] = Entry(task: task, waiters: [id: continuation])
    }

    private func finish(key: String, with result: Shared) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        for continuation in entry.waiters.values { continuation.resume(returning: result) }
    }

    private func leave(key: String, id: UInt64) {
        guard let continuation = entries[key]?.waiters.removeValue(forKey: id) else { return }
        continuation.resume(returning: .failure(.cancelled))
        if entries[key]?.waiters.isEmpty == true {
            entries.removeValue(forKey: key)?.task.cancel()
        }
    }
}
