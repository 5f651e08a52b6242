@_spi(Engine) @_spi(Tools) @_spi(Generated) import APICore
import APICoreSupport
import Foundation

/// The mock's offline queue (`client.offlineQueue`): mutations answered by stubs, queued when a
/// stub answers a connectivity failure, replayed through the stubs in order.
extension MockAPIClient {
    /// Answers from the stub like ``perform(_:optimisticResponse:)``; when the stub answers a
    /// connectivity failure (`.transport` that ``TransportFailure/isConnectivity``), or mutations
    /// already wait, the mutation is queued instead. ``replay()`` (`offlineQueue`) sends the queued
    /// ones through the stubs again, in order.
    public func performOrQueue<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>, optimisticResponse: Mutation.Data?)
        async throws(APIError) -> MutationOutcome<Value>
    {
        guard request.operation.__variables.files.isEmpty else {
            throw .uploadsCannotWait(Mutation.operationName)
        }
        let optimistic = optimisticResponse?.__data._data
        let mutation = QueuedMutation(
            id: UUID().uuidString.lowercased(), operationName: Mutation.operationName, variables: request.operation.variablesJSON,
            enqueuedAt: Date(), state: .queued)
        let send: @Sendable () throws(APIError) -> Void = { [self] () throws(APIError) in
            _ = try execute(request, optimisticResponse: optimistic)
        }
        if lock.withLock({ queue.contains(where: \.mutation.state.isWaiting) }) {
            return .queued(enqueue(mutation, send: send))
        }
        do {
            return .sent(try execute(request, optimisticResponse: optimistic))
        } catch {
            guard case .transport(let failure) = error, failure.isConnectivity else { throw error }
            return .queued(enqueue(mutation, send: send))
        }
    }

    /// Records the registration (``registeredMutations``); the mock keeps no cache to write
    /// answers into.
    public func register<Mutation: GraphQLMutation>(_ type: Mutation.Type) {
        lock.withLock { registered.append(Mutation.operationName) }
    }

    /// The operation names of the mutation types registered with ``register(_:)``, in order.
    public var registeredMutations: [String] { lock.withLock { registered } }

    /// The mutations queued, waiting or refused, in order.
    public func mutations() async throws(APIError) -> [QueuedMutation] {
        lock.withLock { queue.map(\.mutation) }
    }

    /// Every change of state of a queued mutation from now on.
    public func updates() -> APIStream<QueuedMutation> {
        APIStream { continuation in
            let id = UUID()
            lock.withLock { queueObservers[id] = continuation }
            continuation.onTermination = { [weak self] _ in
                guard let self else { return }
                self.lock.withLock { self.queueObservers[id] = nil }
            }
        }
    }

    /// Sends the waiting mutations through the stubs, in order, until one meets a connectivity
    /// failure; a mutation the stub refuses is marked failed.
    public func replay() async {
        while let next = lock.withLock({ queue.first(where: \.mutation.state.isWaiting) }) {
            update(next.mutation.id, to: .sending)
            do throws(APIError) {
                try next.send()
                update(next.mutation.id, to: .done)
            } catch {
                if case .transport(let failure) = error, failure.isConnectivity {
                    update(next.mutation.id, to: .queued)
                    return
                }
                update(next.mutation.id, to: .failed(error))
            }
        }
    }

    /// Takes a waiting or refused mutation out of the queue.
    public func cancel(id: String) async throws(APIError) {
        guard lock.withLock({ queue.contains { $0.mutation.id == id } }) else {
            throw .invalidRequest("there is no queued mutation with id \(id)")
        }
        update(id, to: .cancelled)
    }

    func enqueue(_ mutation: QueuedMutation, send: @escaping @Sendable () throws(APIError) -> Void) -> QueuedMutation {
        let observers = lock.withLock {
            queue.append((mutation, send))
            return Array(queueObservers.values)
        }
        for observer in observers { observer.yield(mutation) }
        return mutation
    }

    /// Moves a queued mutation to `state`; one done or cancelled leaves the queue.
    func update(_ id: String, to state: QueuedMutation.State) {
        let (changed, observers) = lock.withLock { () -> (QueuedMutation?, [AsyncStream<QueuedMutation>.Continuation]) in
            guard let index = queue.firstIndex(where: { $0.mutation.id == id }) else { return (nil, []) }
            queue[index].mutation.state = state
            let changed = queue[index].mutation
            switch state {
            case .done, .cancelled: queue.remove(at: index)
            case .queued, .sending, .failed: break
            }
            return (changed, Array(queueObservers.values))
        }
        guard let changed else { return }
        for observer in observers { observer.yield(changed) }
    }
}
