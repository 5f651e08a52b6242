@_spi(Engine) @_spi(Generated) import APICore
import APICoreSupport
import Foundation

/// Mutations that wait for the network, for `LiveAPIClient`: sending or queueing, the replay and
/// what triggers it. `client.offlineQueue` is the client itself.
extension LiveAPIClient: OfflineMutationQueue {
    var offlineQueue: any OfflineMutationQueue { self }

    func performOrQueue<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>, optimisticResponse: Mutation.Data?)
        async throws(APIError) -> MutationOutcome<Value>
    {
        guard request.operation.__variables.files.isEmpty else {
            throw .uploadsCannotWait(Mutation.operationName)
        }
        register(Mutation.self)
        let layer = try await layOptimistic(optimisticResponse, of: request)
        let stored = StoredMutation(
            id: UUID().uuidString.lowercased(), operationName: Mutation.operationName, document: Mutation.document,
            variables: request.operation.variablesJSON, optimistic: layer?.records, enqueuedAt: Date())
        // After mutations already waiting, or while the server is known to be out of reach: queued at once.
        if queue.waiting.withLock({ $0 > 0 }) || !reachable.withLock({ $0 }) {
            return .queued(await queue.enqueue(stored, layer: layer?.id))
        }
        var request = request
        request.headers[QueuedMutation.idempotencyKeyHeader] = stored.id
        do {
            return .sent(try await send(request, over: layer?.id, keepingLayerOn: Self.isConnectivityFailure))
        } catch where Self.isConnectivityFailure(error) {
            return .queued(await queue.enqueue(stored, layer: layer?.id))
        }
    }

    /// Whether the server could not be reached at all.
    static func isConnectivityFailure(_ error: APIError) -> Bool {
        if case .transport(let failure) = error { return failure.isConnectivity }
        return false
    }

    func register<Mutation: GraphQLMutation>(_ type: Mutation.Type) {
        let writer = cacheWriter
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
            send: { [self] stored in await Self.result { () async throws(APIError) in try await sendQueued(stored) } },
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
        return try await read(try await exchange(operation, over: .http(graphQLRoute(for: operation))), of: operation).data.tree
    }

    /// What an exchange says of the network: an answer means the server can be reached (and
    /// starts a replay when mutations wait); a failure to connect means it cannot.
    func noteReachability(of result: Result<TransportResponse, APIError>) {
        switch result {
        case .success:
            reachable.withLock { $0 = true }
            guard queue.waiting.withLock({ $0 > 0 }) else { return }
            refreshInBackground { () async throws(APIError) in
                guard await !self.queue.isReplaying else { return }
                await self.replay()
            }
        case .failure(.transport(let failure)) where failure.isConnectivity:
            reachable.withLock { $0 = false }
        case .failure:
            break
        }
    }
}
