import Foundation

/// Mutations sent with an `Idempotency-Key` header (the IETF httpapi draft; APICore's offline queue
/// sends one with every attempt of a queued mutation) run once: the same key with the same request
/// gets the first answer again, also while the first is still running, and the same key with
/// another request is refused. Keys belong to a user; the most recent ``capacity`` are kept.
struct IdempotentReplies: Sendable {
    /// An answer as it was sent.
    typealias Reply = (status: Int, contentType: String, body: Data)

    /// What a request with a key gets.
    enum Claim {
        /// The first request with this key: its answer, which the caller awaits.
        case first(Task<Reply, any Error>)
        /// The same request again: the first one's answer (awaited if still running).
        case again(Task<Reply, any Error>)
        /// The key was used for another request.
        case reused
    }

    static let capacity = 1_000

    private var entries: [String: (request: Data, reply: Task<Reply, any Error>)] = [:]
    private var order: [String] = []

    /// The answer for `key` and a request (its canonical bytes): the one stored, or `run`'s,
    /// started now and stored.
    mutating func claim(_ key: String, request: Data, run: @escaping @Sendable () async throws -> Reply) -> Claim {
        if let entry = entries[key] { return entry.request == request ? .again(entry.reply) : .reused }
        let reply = Task { try await run() }
        entries[key] = (request, reply)
        order.append(key)
        if order.count > Self.capacity { entries[order.removeFirst()] = nil }
        return .first(reply)
    }

    /// Forgets `key` when its run failed without an answer, so that the request can be tried again.
    mutating func forget(_ key: String) {
        entries[key] = nil
        order.removeAll { $0 == key }
    }
}
