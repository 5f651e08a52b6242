import APICore
import APICoreLive
import APICoreTestServer
import APICoreWebSocket
import Foundation
import Logging
import Synchronization
import Testing

/// Fast reconnection for tests: 50 ms, then 100 ms, at most 200 ms, five attempts.
let quickReconnect = RetryPolicy(
    maxAttempts: 5, initialDelay: .milliseconds(50), multiplier: 2, maxDelay: .milliseconds(200), jitter: 0.2, maxTotalTime: .seconds(10))

/// A client whose subscriptions go to a fresh loopback server; the server is stopped after `body`.
func withSubscriptions<T>(
    _ subprotocol: SubscriptionProtocol = .graphQLTransportWS,
    cache: CacheConfiguration? = CacheConfiguration(),
    authentication: Authentication? = nil,
    defaultHeaders: [String: String] = [:],
    clientAwareness: ClientAwareness? = nil,
    persistedQueries: PersistedQueries? = nil,
    logger: Logger = Logger(label: "test"),
    adjust: (inout SubscriptionConfiguration) -> Void = { _ in },
    _ body: (TestServer, any APIClient) async throws -> T
) async throws -> T {
    try await TestServer.with { server in
        var subscriptions = SubscriptionConfiguration(
            url: server.webSocketURL, subprotocol: subprotocol, transport: APICoreWebSocket.transport, ackTimeout: .seconds(30), keepAlive: nil,
            reconnect: quickReconnect)
        adjust(&subscriptions)
        let client = makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, defaultHeaders: defaultHeaders, timeout: .seconds(30), cache: cache, logger: logger,
            authentication: authentication, retryPolicy: nil, persistedQueries: persistedQueries, subscriptions: subscriptions,
            clientAwareness: clientAwareness))
        return try await body(server, client)
    }
}

/// Consumes a subscription in a task of its own and keeps what it saw: values, states, and how it ended.
final class SubscriptionRecorder<Value: Sendable>: Sendable {
    enum End: Sendable {
        case completed
        case failed(APIError)
    }

    /// An NSLock, not a `Mutex`: ThreadSanitizer sees a pthread mutex's ordering, and on Linux not
    /// that of `Mutex` (a futex it does not intercept), which it then reported as a race here.
    private final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: (values: [Value], states: [SubscriptionState], end: End?) = ([], [], nil)
        func withLock<T>(_ body: (inout (values: [Value], states: [SubscriptionState], end: End?)) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&seen)
        }
    }

    private let box = Box()
    private let task: Task<Void, Never>
    private let stateTask: Task<Void, Never>

    init(_ subscription: APISubscription<Value>) {
        let box = self.box
        stateTask = Task {
            for await state in subscription.states { box.withLock { $0.states.append(state) } }
        }
        task = Task {
            do throws(APIError) {
                for try await value in subscription { box.withLock { $0.values.append(value) } }
                box.withLock { $0.end = .completed }
            } catch {
                box.withLock { $0.end = .failed(error) }
            }
        }
    }

    var values: [Value] { box.withLock { $0.values } }
    var states: [SubscriptionState] { box.withLock { $0.states } }
    var end: End? { box.withLock { $0.end } }
    var error: APIError? {
        if case .failed(let error)? = end { return error }
        return nil
    }

    /// Waits (bounded) until `count` values arrived.
    func waitFor(_ count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await eventually({ self.values.count >= count }, timeout: timeout)
    }

    /// Waits (bounded) for the subscription to end by itself.
    func waitForEnd(timeout: Duration = .seconds(30)) async -> Bool {
        await eventually({ self.end != nil }, timeout: timeout)
    }

    /// Waits (bounded) until the subscription is in `state` (an `.active` after others, say).
    func waitForState(_ matches: @escaping @Sendable (SubscriptionState) -> Bool, count: Int = 1, timeout: Duration = .seconds(30)) async -> Bool {
        await eventually({ self.states.filter(matches).count >= count }, timeout: timeout)
    }

    /// Stops consuming, which ends the subscription.
    func stop() {
        task.cancel()
        stateTask.cancel()
    }
}

extension SubscriptionState {
    var isReconnecting: Bool {
        if case .reconnecting = self { return true }
        return false
    }
}
