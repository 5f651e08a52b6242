// apicore-cache-bench: the normalized cache's benchmarks (`scripts/bench.sh cache` and
// `cache-scale`, release build), one `name: value` line per figure. It reaches into the engine's
// cache, so it lives in this package; the benchmarks that need a server are in `Integration/`.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print("""
        usage: apicore-cache-bench [scale [--sizes N,N,…] [--rounds N] [--under-load] | processes | --profile sqlite-read-real|memory-write]
          (no argument)  the cache benchmark: a 2 MB response written and read, in memory and in SQLite
          scale          stores of 10,000, 100,000 and 1,000,000 records (or --sizes), each in a child process,
                         the median of 3 rounds (or --rounds); with --under-load, a thread per core spins
                         beside each run (every core busy)
          processes      two processes on one cache file: the latency from another process's write to this one's
                         watcher (p50, p99) and the CPU a watching process spends while nothing changes
                         (needs apicore-cache-peer built beside this binary)
          --profile sqlite-read-real   GitHub's real answer read back cold from SQLite 300 times (for perf record);
                         prints the time of the reads and of JSONSerialization's parse of the answer as often
          --profile memory-write       the 2 MB response written into a new memory store 300 times (for perf record),
                         beside as many parses
        Prints one `name: value` line per figure.
        """)
    exit(0)
}
switch arguments.first {
case "--profile" where arguments.dropFirst().first == "sqlite-read-real":
    try await CacheBenchmark.profileSQLiteRead()
case "--profile" where arguments.dropFirst().first == "memory-write":
    try await CacheBenchmark.profileMemoryWrite()
case "processes":
    try await ProcessesBenchmark.run()
case nil:
    try await CacheBenchmark.run()
case "scale":
    var sizes = CacheScaleBenchmark.defaultSizes
    if let index = arguments.firstIndex(of: "--sizes"), index + 1 < arguments.count {
        let given = arguments[index + 1].split(separator: ",").compactMap { Int($0) }
        guard !given.isEmpty, given.allSatisfy({ $0 >= 1000 }) else {
            FileHandle.standardError.write(Data("apicore-cache-bench: --sizes takes record counts of at least 1000, such as 10000,100000\n".utf8))
            exit(2)
        }
        sizes = given
    }
    var rounds = 3
    if let index = arguments.firstIndex(of: "--rounds"), index + 1 < arguments.count {
        guard let given = Int(arguments[index + 1]), (1...50).contains(given) else {
            FileHandle.standardError.write(Data("apicore-cache-bench: --rounds takes a number from 1 to 50\n".utf8))
            exit(2)
        }
        rounds = given
    }
    try CacheScaleBenchmark.run(sizes: sizes, rounds: rounds, underLoad: arguments.contains("--under-load"))
case "scale-one":
    guard arguments.count >= 2, let size = Int(arguments[1]), size >= 1000 else { exit(2) }
    try await CacheScaleBenchmark.runOne(size: size, underLoad: arguments.contains("--under-load"))
case let other?:
    FileHandle.standardError.write(Data("apicore-cache-bench: unknown argument '\(other)' (see --help)\n".utf8))
    exit(2)
}
