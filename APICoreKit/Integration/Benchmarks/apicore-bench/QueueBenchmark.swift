import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import Logging
import StarWarsOperations

/// The offline queue: 100 renames queued while the loopback server is stopped, then replayed when
/// it is back on the same port (each answer written to the cache in place of its optimistic
/// layer), beside the same 100 renames performed one after another with the server up. Rounds
/// alternate; medians.
enum QueueBenchmark {
    static let mutations = 100
    static let rounds = 7

    static func run() async throws {
        var server = try await TestServer.start()
        let url = server.baseURL
        let port = try url.port ?? { throw QueueBenchmarkError.noPort }()
        var replays: [Double] = []
        var plains: [Double] = []
        let clock = ContinuousClock()
        for round in 0..<rounds {
            // Plain: performed one after another, server up.
            let online = makeClient(url)
            _ = try await online.fetch(HumanQuery(id: "1000"))
            plains.append(seconds(try await clock.measure {
                for index in 0..<mutations { _ = try await online.perform(rename(index, round: round), optimisticResponse: optimistic(index)) }
            }))

            // Queued with the server down, replayed when it is back.
            let client = makeClient(url)
            _ = try await client.fetch(HumanQuery(id: "1000"))
            await server.stop()
            for index in 0..<mutations {
                guard case .queued = try await client.performOrQueue(rename(index, round: round), optimisticResponse: optimistic(index)) else {
                    throw QueueBenchmarkError.notQueued
                }
            }
            server = try await TestServer.start(port: port)
            replays.append(seconds(await clock.measure { await client.offlineQueue.replay() }))
            guard try await client.offlineQueue.mutations().isEmpty else { throw QueueBenchmarkError.notReplayed }
        }
        await server.stop()
        let replay = median(replays)
        let plain = median(plains)
        print("queue-replay-per-second: \(Int((Double(mutations) / replay).rounded()))")
        print("sequential-perform-per-second: \(Int((Double(mutations) / plain).rounded()))")
        print("queue-replay-ratio: \(String(format: "%.3f", replay / plain))")
    }

    static func makeClient(_ url: URL) -> any APIClient {
        APICoreLive.makeClient(APIClientConfiguration(
            restBaseURL: url, cache: CacheConfiguration(), logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }), retryPolicy: nil))
    }

    static func rename(_ index: Int, round: Int) -> RenameCharacterMutation {
        RenameCharacterMutation(id: "1000", name: "Luke \(round)-\(index)")
    }

    static func optimistic(_ index: Int) -> RenameCharacterMutation.Data {
        try! RenameCharacterMutation.Data(validating: ["renameCharacter": ["__typename": "Human", "id": "1000", "name": .string("Luke \(index)?")]])
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}

enum QueueBenchmarkError: Error {
    case noPort, notQueued, notReplayed
}
