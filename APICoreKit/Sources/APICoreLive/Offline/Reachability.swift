@_spi(Engine) import APICore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Network)
    import Network
#endif

/// Whether the server can be reached, as the exchanges say: the middleware chain's outermost step.
/// An answer means it can, a failure to connect that it cannot. When the server answers while
/// mutations wait (and no replay runs), ``returns`` says so, and the offline queue replays them;
/// on Apple platforms, so does a network path that comes back.
final class Reachability: Middleware {
    /// Said when the server can be reached again while mutations wait; taken by the offline queue.
    let returns: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation
    private let reachable = Locked(true)
    private let queue: MutationQueue
    #if canImport(Network)
        /// The device's network paths.
        private let pathMonitor = NWPathMonitor()
    #endif

    /// Reachability for the mutations of `queue`.
    init(queue: MutationQueue) {
        self.queue = queue
        (returns, signal) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        #if canImport(Network)
            pathMonitor.pathUpdateHandler = { [signal] path in
                guard path.status == .satisfied, queue.waiting.withLock({ $0 > 0 }) else { return }
                signal.yield()
            }
            pathMonitor.start(queue: DispatchQueue(label: "APICoreKit.reachability"))
        #endif
    }

    deinit {
        #if canImport(Network)
            pathMonitor.cancel()
        #endif
        signal.finish()
    }

    /// Whether the last exchange reached the server (no connectivity failure since).
    var isReachable: Bool { reachable.withLock { $0 } }

    func intercept(_ request: URLRequest, context: RequestContext, next: MiddlewareNext) async throws(APIError) -> TransportResponse {
        let result = await Result.of { () async throws(APIError) in try await next(request) }
        switch result {
        case .success:
            reachable.withLock { $0 = true }
            if queue.waiting.withLock({ $0 > 0 }), await !queue.isReplaying { signal.yield() }
        case .failure(.transport(let failure)) where failure.isConnectivity:
            reachable.withLock { $0 = false }
        case .failure:
            break
        }
        return try result.get()
    }
}
