import APICore
@testable import APICoreLive
import APICoreTestServer
import Foundation
import Logging
import Synchronization
import Testing

/// A client on a fresh loopback server with a cache; the server is stopped after `body`.
func withCachingServer<T>(
    cache: CacheConfiguration = CacheConfiguration(),
    logger: Logger = Logger(label: "test"),
    _ body: (TestServer, any APIClient) async throws -> T
) async throws -> T {
    try await TestServer.with { server in
        let client = APICoreLive.makeClient(APIClientConfiguration(
            restBaseURL: server.baseURL, timeout: .seconds(30), cache: cache, logger: logger, retryPolicy: nil))
        return try await body(server, client)
    }
}

/// The engine's store behind a client.
func store(of client: any APIClient) throws -> NormalizedStore {
    try #require((client as? LiveAPIClient)?.store)
}

/// Collects the elements of a watch (or of `responses`) as they arrive, until stopped.
final class Recorder<Value: Sendable>: Sendable {
    private final class Box: Sendable {
        let elements = Mutex<[Result<Response<Value>, APIError>]>([])
    }

    private let box: Box
    private let task: Task<Void, Never>

    init(_ stream: APIStream<Result<Response<Value>, APIError>>) {
        let box = Box()
        self.box = box
        task = Task {
            for await element in stream { box.elements.withLock { $0.append(element) } }
        }
    }

    var elements: [Result<Response<Value>, APIError>] { box.elements.withLock { $0 } }
    var values: [Value] { elements.compactMap { try? $0.get().value } }

    /// Waits (bounded) until `count` elements arrived.
    func waitFor(_ count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await eventually({ self.elements.count >= count }, timeout: timeout)
    }

    /// Stops consuming, which cancels the watch.
    func stop() { task.cancel() }

    /// Waits for the stream to end by itself.
    func finished() async { await task.value }
}
