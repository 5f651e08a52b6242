@_spi(Engine) @_spi(Generated) import APICore
import APICoreSupport
import Foundation
import Logging

/// The offline queue: mutations that wait for the network, in order, in the persistent store when
/// there is one (every change is written there before it is reported), in memory otherwise.
///
/// One replay at a time sends them, oldest first: a mutation the server takes leaves the queue and
/// its answer replaces its optimistic layer in one step of the cache; one the server refuses is
/// reported, loses its layer and stays listed as failed; when the server still cannot be reached
/// (or answers with an error worth retrying: a 5xx, a 429, stale credentials) the replay stops and
/// the mutation waits for the next. If the persistent store fails, the queue says so once in the
/// log and goes on in memory.
///
/// Processes that share the persistent store (an app and its extensions) share the queue: a
/// replay first claims it in the file (a claim that expires, renewed while it sends, so that a
/// process killed while sending leaves it to the others), and takes in what the others changed
/// (mutations they queued, sent, cancelled or saw refused); a replay that finds the claim held
/// by another process leaves the sending to it. So each mutation is sent by one process, once
/// (and, after a kill between the server's answer and its removal from the file, again with the
/// same `Idempotency-Key`).
actor MutationQueue {
    /// Sends one stored mutation and answers its `data`.
    typealias Send = @Sendable (StoredMutation) async -> Result<JSONObject, APIError>
    /// The records an answer makes, for a registered mutation type; `nil` for an unknown type.
    typealias Check = @Sendable (_ mutation: StoredMutation, _ data: JSONObject) throws(APIError) -> [String: JSONObject]?

    private struct Entry {
        var stored: StoredMutation
        /// The optimistic layer over the cache, while it waits.
        var layer: UInt64?
        var state: QueuedMutation.State

        var snapshot: QueuedMutation {
            QueuedMutation(
                id: stored.id, operationName: stored.operationName, variables: stored.variables, enqueuedAt: stored.enqueuedAt, state: state)
        }
    }

    private var entries: [Entry]
    private var persistent: (any PersistentMutationQueue)?
    private let cache: CacheWriter
    private let logger: Logger
    /// Who follows the changes of state, by id; registered without waiting for the actor, so an
    /// observer sees every change after the call that made it.
    private nonisolated let observers = Locked<(next: UInt64, all: [UInt64: AsyncStream<QueuedMutation>.Continuation])>((0, [:]))
    private var replaying: Task<Void, Never>?
    /// This queue's name in the file's claim, and how long a claim holds unrenewed.
    private let holder = UUID().uuidString
    static let claimDuration = Duration.seconds(30)
    /// Whether a replay holds the claim (it is renewed only then).
    private var holdsClaim = false
    /// How many mutations wait to be sent, readable without waiting for the actor.
    nonisolated let waiting: Locked<Int>

    /// A queue with what an earlier launch left: `stored` in order, the layers of those that wait
    /// numbered 1, 2, … as the store was given them (``optimisticLayers(of:)``).
    init(stored: [StoredMutation], persistent: (any PersistentMutationQueue)?, cache: CacheWriter, logger: Logger) {
        var layer: UInt64 = 0
        let hasCache = cache.store != nil
        entries = stored.map { stored in
            if let failure = stored.failure {
                return Entry(stored: stored, layer: nil, state: .failed(APIError(queueRecord: failure, operationName: stored.operationName)))
            }
            guard Self.laysLayer(stored), hasCache else { return Entry(stored: stored, layer: nil, state: .queued) }
            layer += 1
            return Entry(stored: stored, layer: layer, state: .queued)
        }
        waiting = Locked(entries.count(where: \.state.isWaiting))
        self.persistent = persistent
        self.cache = cache
        self.logger = logger
    }

    /// The optimistic records of the stored mutations that wait, in order: the layers to give the
    /// store when it is made, before anything reads it.
    static func optimisticLayers(of stored: [StoredMutation]) -> [[String: JSONObject]] {
        stored.filter(laysLayer).compactMap(\.optimistic)
    }

    /// Whether a stored mutation's optimistic data lies over the cache when a launch restores it:
    /// it waits (a refused one lost its layer) and has some.
    private static func laysLayer(_ stored: StoredMutation) -> Bool { stored.failure == nil && stored.optimistic != nil }

    /// Adds a mutation at the end (persisted first); `layer` is its optimistic layer, already laid.
    func enqueue(_ stored: StoredMutation, layer: UInt64?) -> QueuedMutation {
        persist(while: "queueing \(stored.operationName)") { try $0.enqueue(stored) }
        entries.append(Entry(stored: stored, layer: layer, state: .queued))
        waiting.withLock { $0 += 1 }
        let snapshot = entries[entries.count - 1].snapshot
        publish(snapshot)
        logger.info("\(stored.operationName) queued until the server can be reached", metadata: ["id": "\(stored.id)"])
        return snapshot
    }

    /// The mutations listed, in order.
    var list: [QueuedMutation] { entries.map(\.snapshot) }

    /// Takes a waiting or refused mutation out, with its optimistic layer.
    func cancel(_ id: String) async throws(APIError) {
        guard let index = entries.firstIndex(where: { $0.stored.id == id }) else {
            throw .invalidRequest("there is no queued mutation with id \(id)")
        }
        if case .sending = entries[index].state {
            throw .invalidRequest("\(entries[index].stored.operationName) (\(id)) is being sent and can no longer be cancelled")
        }
        let entry = entries.remove(at: index)
        if entry.state.isWaiting { waiting.withLock { $0 -= 1 } }
        persist(while: "removing a mutation") { try $0.removeQueued(id) }
        if let layer = entry.layer { await cache.removeLayer(layer) }
        var snapshot = entry.snapshot
        snapshot.state = .cancelled
        publish(snapshot)
    }

    /// Every change of state from now on, as a stream.
    nonisolated func updates() -> APIStream<QueuedMutation> {
        APIStream { continuation in
            let id = observers.withLock { observers in
                observers.next += 1
                observers.all[observers.next] = continuation
                return observers.next
            }
            continuation.onTermination = { [observers] _ in _ = observers.withLock { $0.all.removeValue(forKey: id) } }
        }
    }

    /// Whether a replay runs now.
    var isReplaying: Bool { replaying != nil }

    /// Sends the waiting mutations, in order, until none is left or the server cannot be reached.
    /// Replays run one after another: one asked for while another runs starts when it ends, so
    /// every call makes an attempt that begins after it was made.
    func replay(send: @escaping Send, check: @escaping Check) async {
        let previous = replaying
        let task = Task {
            await previous?.value
            await self.drain(send: send, check: check)
        }
        replaying = task
        await task.value
        if replaying == task { replaying = nil }
    }

    private func drain(send: Send, check: Check) async {
        guard claim() else {
            logger.info("Another process sends the offline queue; this replay leaves it to that one")
            return
        }
        holdsClaim = true
        let renewal = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: MutationQueue.claimDuration / 3)
                guard let self, await self.renewClaim() else { return }
            }
        }
        defer {
            holdsClaim = false
            renewal.cancel()
            persist(while: "giving up the queue's claim") { try $0.releaseQueue(for: holder) }
        }
        await takeInStoredQueue()
        while let index = entries.firstIndex(where: \.state.isWaiting) {
            // A claim lost (this process was stopped longer than it holds) stops the replay.
            guard claim() else { return }
            entries[index].state = .sending
            let stored = entries[index].stored
            publish(entries[index].snapshot)
            let result = await send(stored)
            // Nothing else removes an entry being sent, but its place may have moved.
            guard let index = entries.firstIndex(where: { $0.stored.id == stored.id }) else { continue }
            let layer = entries[index].layer
            switch result {
            case .success(let data):
                await write(data, of: stored, replacing: layer, check: check)
                var entry = entries.remove(at: index)
                waiting.withLock { $0 -= 1 }
                persist(while: "removing a mutation") { try $0.removeQueued(stored.id) }
                entry.state = .done
                publish(entry.snapshot)
            case .failure(let error) where Self.isWorthRetrying(error):
                entries[index].state = .queued
                publish(entries[index].snapshot)
                logger.info("\(stored.operationName) stays queued: \(error)", metadata: ["id": "\(stored.id)"])
                return
            case .failure(let error):
                if let layer { await cache.removeLayer(layer) }
                entries[index].layer = nil
                entries[index].state = .failed(error)
                waiting.withLock { $0 -= 1 }
                persist(while: "recording a refusal") { try $0.setFailure(error.queueRecord, of: stored.id) }
                logger.warning("The server refused the queued \(stored.operationName): \(error)", metadata: ["id": "\(stored.id)"])
                publish(entries[index].snapshot)
            }
        }
    }

    /// Claims the queue in the persistent store for this replay, or renews the claim; answers
    /// whether it has it (always without a persistent store, or when it failed).
    private func claim() -> Bool {
        var claimed = true
        persist(while: "claiming the queue") { claimed = try $0.claimQueue(for: holder, until: Date().addingTimeInterval(Self.claimDuration.seconds)) }
        return claimed
    }

    /// Renews the claim while a replay holds it; answers whether to go on renewing.
    private func renewClaim() -> Bool { holdsClaim && claim() }

    /// The queue as the persistent store has it, which other processes may have changed: the
    /// mutations they queued join (in the file's order, with their optimistic layers), those
    /// they sent leave (reported as done: their answer is in the shared cache; one that waited
    /// and was cancelled there is reported so too), those refused to them are failed here too.
    private func takeInStoredQueue() async {
        guard let persistent, let stored = try? persistent.loadQueue() else { return }
        var known = Dictionary(entries.map { ($0.stored.id, $0) }, uniquingKeysWith: { first, _ in first })
        var layersGone: [UInt64] = []
        var layersToLay: [(id: String, records: [String: JSONObject])] = []
        var changed: [QueuedMutation] = []
        var updated: [Entry] = []
        for mutation in stored {
            let refusal = mutation.failure.map { APIError(queueRecord: $0, operationName: mutation.operationName) }
            guard var entry = known.removeValue(forKey: mutation.id) else {
                let entry = Entry(stored: mutation, layer: nil, state: refusal.map(QueuedMutation.State.failed) ?? .queued)
                if refusal == nil, let optimistic = mutation.optimistic { layersToLay.append((mutation.id, optimistic)) }
                updated.append(entry)
                changed.append(entry.snapshot)
                continue
            }
            if let refusal, entry.state.isWaiting {
                layersGone += entry.layer.map { [$0] } ?? []
                entry.layer = nil
                entry.state = .failed(refusal)
                changed.append(entry.snapshot)
            }
            updated.append(entry)
        }
        for entry in known.values {
            layersGone += entry.layer.map { [$0] } ?? []
            var snapshot = entry.snapshot
            // Only a cancel takes a refused mutation out; one that waited was sent, or cancelled.
            snapshot.state = entry.state.isWaiting ? .done : .cancelled
            changed.append(snapshot)
        }
        // Memory takes the file's list in one step (nothing can come between), then the layers.
        entries = updated
        waiting.withLock { $0 = updated.count(where: \.state.isWaiting) }
        for mutation in changed { publish(mutation) }
        for layer in layersGone { await cache.removeLayer(layer) }
        for (id, records) in layersToLay {
            guard let layer = await cache.lay(records: records) else { continue }
            if let index = entries.firstIndex(where: { $0.stored.id == id && $0.state.isWaiting }) {
                entries[index].layer = layer
            } else {
                await cache.removeLayer(layer)
            }
        }
    }

    /// Whether a failed send leaves the mutation waiting for a later replay: no connection, a
    /// cancelled replay, or an error the server may not give next time (5xx, 429, stale credentials).
    static func isWorthRetrying(_ error: APIError) -> Bool {
        if case .cancelled = error { return true }
        return error.recovery != .fail
    }

    /// The answer into the cache in place of the optimistic layer, when the mutation's type is
    /// known; else only the layer goes.
    private func write(_ data: JSONObject, of stored: StoredMutation, replacing layer: UInt64?, check: Check) async {
        var records: [String: JSONObject]?
        do throws(APIError) {
            records = try check(stored, data)
            if records == nil {
                logger.warning(
                    "The answer to the queued \(stored.operationName) is not written to the cache: its type is not registered in this launch (client.offlineQueue.register)")
            }
        } catch {
            logger.warning("The answer to the queued \(stored.operationName) is not written to the cache: \(error)")
        }
        if let records {
            await cache.write(records: records, removingLayer: layer)
        } else if let layer {
            await cache.removeLayer(layer)
        }
    }

    private func publish(_ mutation: QueuedMutation) {
        for continuation in observers.withLock({ Array($0.all.values) }) { continuation.yield(mutation) }
    }

    /// Runs `body` on the persistent store, if there still is one; a failure sets the store aside.
    private func persist(while action: String, _ body: (any PersistentMutationQueue) throws -> Void) {
        guard let persistent else { return }
        do {
            try body(persistent)
        } catch {
            logger.warning(
                "The offline queue's store failed while \(action) and is set aside; the queue goes on in memory only.",
                metadata: ["error": "\(error)"])
            self.persistent = nil
        }
    }
}
