@_spi(Engine) @_spi(Generated) import APICore
import APICoreLive
import Foundation
import StarWarsOperations
import Synchronization

/// How long an optimistic response takes to reach a watcher: `perform(_:optimisticResponse:)` of
/// a one-record rename until the watcher of that record yields it, beside a plain `writeQuery` of
/// the same record until the watcher yields (the same cache write and wake-up, without a layer).
/// The server refuses each mutation once the watcher has shown its layer (not before: a layer
/// laid and taken away before the watcher reads the record is one frame, not two), and the layer
/// goes before the next.
enum OptimisticBenchmark {
    static let runs = 301

    /// A server that answers each request `503` when released, one request at a time.
    final class HeldServer: HTTPTransport {
        private let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)
        private let released = Mutex(false)

        func send(_ request: TransportRequest) async throws(APIError) -> StreamedResponse {
            await withCheckedContinuation { continuation in
                let now = released.withLock { released in
                    defer { released = false }
                    return released
                }
                if now { continuation.resume() } else { waiting.withLock { $0 = continuation } }
            }
            let head = TransportResponse(statusCode: 503, headers: [:], body: Data(), url: request.urlRequest.url)
            return StreamedResponse(head: head, body: .chunks(APIStream { $0.finish() }))
        }

        /// Lets the request that waits (or the next one) have its answer.
        func release() {
            if let continuation = waiting.withLock({ waiting in
                defer { waiting = nil }
                return waiting
            }) {
                continuation.resume()
            } else {
                released.withLock { $0 = true }
            }
        }
    }

    static func run() async throws {
        let server = HeldServer()
        let client = APICoreLive.makeClient(APIClientConfiguration(restBaseURL: URL(string: "http://127.0.0.1:9")!, retryPolicy: nil), transport: server)
        let human = HumanQuery(id: "1000")
        try await client.cache.writeQuery(human, data: try HumanQuery.Data(validating: [
            "human": ["__typename": "Human", "id": "1000", "name": "Luke", "homePlanet": "Tatooine"]
        ]))
        var watcher = client.watch(GraphQLRequest(human), cachePolicy: .cacheOnly).makeAsyncIterator()
        _ = await watcher.next()
        let clock = ContinuousClock()

        var optimistic: [Double] = []
        var plain: [Double] = []
        for run in 0..<runs {
            let name = "Luke \(run)"
            // Optimistic: until the watcher shows the layer; then the failure takes it away.
            let start = clock.now
            let mutation = Task {
                try? await client.perform(
                    RenameCharacterMutation(id: "1000", name: name),
                    optimisticResponse: RenameCharacterMutation.Data(_dataDict: DataDict(_data: [
                        "renameCharacter": ["__typename": "Human", "id": "1000", "name": .string(name)]
                    ])))
            }
            guard let shown = await watcher.next(), (try? shown.get().value.human?.name) == name else { fatalError("the watcher did not show the layer") }
            optimistic.append(microseconds(clock.now - start))
            server.release()
            _ = await mutation.value
            guard let undone = await watcher.next(), (try? undone.get().value.human?.name) != name else { fatalError("the layer did not go") }

            // Plain: the same record written without a layer.
            let written = "Plain \(run)"
            let plainStart = clock.now
            try await client.cache.writeQuery(human, data: try HumanQuery.Data(validating: [
                "human": ["__typename": "Human", "id": "1000", "name": .string(written), "homePlanet": "Tatooine"]
            ]))
            guard let seen = await watcher.next(), (try? seen.get().value.human?.name) == written else { fatalError("the watcher missed a write") }
            plain.append(microseconds(clock.now - plainStart))
        }
        let optimisticMedian = CacheBenchmark.median(optimistic)
        let plainMedian = CacheBenchmark.median(plain)
        print("optimistic-write-us: \(CacheBenchmark.format(optimisticMedian, digits: 1))")
        print("plain-write-us: \(CacheBenchmark.format(plainMedian, digits: 1))")
        print("optimistic-write-ratio: \(CacheBenchmark.format(optimisticMedian / plainMedian))")
    }

    static func microseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
    }
}
