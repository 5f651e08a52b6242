// apicore-cache-bench: the normalized cache's benchmark (`scripts/bench.sh cache`, release build),
// one `name: value` line per figure. It reaches into the engine's cache, so it lives in this
// package; the benchmarks that need a server are in `Integration/`.
import Foundation

if CommandLine.arguments.contains("--help") || CommandLine.arguments.contains("-h") {
    print("usage: apicore-cache-bench\nPrints one `name: value` line per figure of the normalized cache's benchmark.")
    exit(0)
}
try await CacheBenchmark.run()
