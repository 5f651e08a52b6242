// apicore-bench: benchmarks that print `name: value` lines, one figure per line.
// Run through `scripts/bench.sh <suite>` (release build). The cache's benchmark, which needs no
// server, is APICoreKit's `apicore-cache-bench`.
import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations

let suites: [String: () async throws -> Void] = [
    "e2e": E2EBenchmark.run,
    "subscriptions": SubscriptionBenchmark.run,
    "defer": DeferBenchmark.run,
    "queue": QueueBenchmark.run,
    "pagination": PaginationBenchmark.run,
    "batching": BatchingBenchmark.run,
    "soak": SoakBenchmark.run,
    "inputs": InputBenchmark.run,
    "flood": FloodBenchmark.run,
    // One endless answer for the flood, in a process of its own; not a benchmark.
    "flood-client": FloodBenchmark.client,
    // The soak's server, in a process of its own; not a benchmark.
    "serve": ServerProcess.serve,
]

let arguments = CommandLine.arguments.dropFirst()
if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
    print("""
        usage: apicore-bench <suite>...
        suites: \(suites.keys.sorted().joined(separator: ", "))
        Prints one `name: value` line per figure.
        """)
    exit(arguments.isEmpty ? 1 : 0)
}
for name in arguments {
    guard let suite = suites[name] else {
        FileHandle.standardError.write(Data("apicore-bench: unknown suite '\(name)'; suites: \(suites.keys.sorted().joined(separator: ", "))\n".utf8))
        exit(2)
    }
    try await suite()
}
