@_spi(Engine) @_spi(Generated) import APICore
import APICoreSupport
import Foundation

/// Mutations that wait for the network (`client.offlineQueue`): sending or queueing, and the
/// replay, which runs when asked and whenever ``Reachability`` says the server answers again.
final class OfflineMutations: OfflineMutationQueue {
    /// The mutations that wait.
    let queue: MutationQueue
    /// How to write the answer of a queued mutation, by its document, for the types registered.
    private let queueables = Locked<[String: MutationQueue.Check]>([:])
    private let reachability: Reachability
    /// Sends mutations, and lays their optimistic layers.
    private let pipeline: GraphQLPipeline
    /// Replays as ``Reachability`` asks, while this queue is in use.
    private let listener = Locked<Task<Void, Never>?>(nil)

    init(queue: MutationQueue, reachability: Reachability, pipeline: GraphQLPipeline) {
        self.queue = queue
        self.reachability = reachability
        self.pipeline = pipeline
        listener.withLock { listener in
            listener = Task { [weak self, returns = reachability.returns] in
                for await _ in returns {
                    guard let self else { return }
                    await self.replay()
                }
            }
        }
    }

    deinit {
        listener.withLock { $0?.cancel() }
    }

    func performOrQueue<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>, optimisticResponse: Mutation.Data?)
        async throws(APIError) -> MutationOutcome<Value>
    {
        try pipeline.configuration.refuseIfCacheReadOnly("The mutation \(Mutation.operationName)")
        guard request.operation.__variables.files.isEmpty else {
            throw .uploadsCannotWait(Mutation.operationName)
        }
        register(Mutation.self)
        let layer = try await pipeline.layOptimistic(optimisticResponse, of: request)
        let stored = StoredMutation(
            id: UUID().uuidString.lowercased(), operationName: Mutation.operationName, document: Mutation.document,
            variables: request.operation.variablesJSON, optimistic: layer?.records, enqueuedAt: Date())
        // After mutations already waiting, or while the server is known to be out of reach: queued at once.
        if queue.waiting.withLock({ $0 > 0 }) || !reachability.isReachable {
            return .queued(await queue.enqueue(stored, layer: layer?.id))
        }
        var request = request
        request.headers[QueuedMutation.idempotencyKeyHeader] = stored.id
        do {
            return .sent(try await pipeline.send(request, over: layer?.id, keepingLayerOn: \.isConnectivityFailure))
        } catch where error.isConnectivityFailure {
            return .queued(await queue.enqueue(stored, layer: layer?.id))
        }
    }

    func register<Mutation: GraphQLMutation>(_ type: Mutation.Type) {
        let writer = pipeline.writer
        let check: MutationQueue.Check = { stored, data throws(APIError) -> [String: JSONObject]? in
            try writer.check(
                local: data, as: Mutation.Data.self, at: CacheNaming.rootKey(for: .mutation), named: "the answer to \(stored.operationName)",
                variables: Mutation.__variableDefaults.merging(stored.variables) { _, given in given }
            ).records
        }
        queueables.withLock { types in
            if types[Mutation.document] == nil { types[Mutation.document] = check }
        }
        _ = OutgoingOperation.documentID(of: Mutation.self)  // so that a replay sends the generated id
    }

    func mutations() async throws(APIError) -> [QueuedMutation] {
        await queue.list
    }

    func updates() -> APIStream<QueuedMutation> {
        queue.updates()
    }

    func replay() async {
        await queue.replay(
            send: { [self] stored in await Result.of { () async throws(APIError) in try await sendQueued(stored) } },
            check: { [queueables] stored, data throws(APIError) in
                guard let check = queueables.withLock({ $0[stored.document] }) else { return nil }
                return try check(stored, data)
            })
    }

    func cancel(id: String) async throws(APIError) {
        try await queue.cancel(id)
    }

    /// A queued mutation as it was stored: its document and variables, with its idempotency key,
    /// through the exchange; answers its data. Any GraphQL error is a failure.
    private func sendQueued(_ stored: StoredMutation) async throws(APIError) -> JSONObject {
        // The idempotency key makes sending it again safe for a server that honours it.
        let operation = OutgoingOperation(
            name: stored.operationName, type: .mutation, document: stored.document, variables: stored.variables,
            headers: [QueuedMutation.idempotencyKeyHeader: stored.id], isIdempotent: true)
        let stage = pipeline.stage
        return try await stage.read(try await stage.exchange.exchange(operation, over: .http(stage.exchange.graphQLRoute(for: operation))), of: operation)
            .data.tree
    }
}

extension APIError {
    /// Whether the server could not be reached at all.
    var isConnectivityFailure: Bool {
        if case .transport(let failure) = self { return failure.isConnectivity }
        return false
    }
}
