@_spi(Generated) import APICore
import APICoreLive
import Foundation
import StarWarsOperations

/// How long an optimistic response takes to reach a watcher: `perform(_:optimisticResponse:)` of
/// a one-record rename until the watcher of that record yields it, beside a plain `writeQuery` of
/// the same record until the watcher yields (the same cache write and wake-up, without a layer).
/// The server is out of reach, so each mutation then fails and its layer goes before the next.
enum OptimisticBenchmark {
    static let runs = 301

    static func run() async throws {
        let client = APICoreLive.makeClient(APIClientConfiguration(restBaseURL: URL(string: "http://127.0.0.1:9")!, retryPolicy: nil))
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
