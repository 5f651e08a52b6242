@_spi(Tools) @_spi(Generated) import APICore
import APICoreLive
import APICoreSQLite
import APICoreSupport
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Two processes on one cache file (`bench.sh processes`): this one watches a record that
/// `apicore-cache-peer` (built beside this binary) writes 100 times, 110 ms apart (more than a
/// look's interval, so that each write is seen on its own, not only the last of several). Prints the
/// latency from each write (the time the peer stamped in it, just before saving it) to this
/// process's watcher reading it, p50 and p99; then the CPU this process spends per second while
/// it watches and nothing changes, over 5 s.
enum ProcessesBenchmark {
    static let writes = 100

    static func run() async throws {
        let peer = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("apicore-cache-peer")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apicore-processes-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cache.sqlite")
        let store = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "bench"))
        await CacheWriter(store: store).write(records: ["Note:1": ["__typename": "Note", "n": 0]])
        await store.persisted()

        let latencies = Mutex<[Double]>([])
        let (numbers, continuation) = AsyncStream.makeStream(of: Int.self)
        let watcher = await store.addWatcher(dependencies: ["Note:1"]) { store in
            let fields = store.record("Note:1")?.fields
            if let sentAt = fields?["sentAt"]?.doubleValue, let number = fields?["n"]?.intValue {
                let latency = Date().timeIntervalSince1970 - sentAt
                latencies.withLock { $0.append(latency) }
                continuation.yield(number)
            }
            return ["Note:1"]
        }
        let writer = Process()
        writer.executableURL = peer
        writer.arguments = ["write", file.path, "Note:1", "\(writes)", "110"]
        try writer.run()
        let deadline = Task {
            try? await Task.sleep(for: .seconds(60))
            continuation.finish()
        }
        for await number in numbers where number == writes { break }
        deadline.cancel()
        writer.waitUntilExit()

        let sorted = latencies.withLock { $0 }.sorted()
        guard !sorted.isEmpty else { fatalError("the watcher never saw the other process's writes") }
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000 }
        print("processes-writes: \(writes)")
        print("processes-wakes: \(sorted.count)")
        print("processes-wake-p50-ms: \(CacheBenchmark.format(percentile(0.5))) (target <= 50)")
        print("processes-wake-p99-ms: \(CacheBenchmark.format(percentile(0.99))) (target <= 200)")

        // Watching while nothing changes: the looks at the file's log, and nothing else.
        let before = cpuSeconds()
        let clock = ContinuousClock()
        let start = clock.now
        try await Task.sleep(for: .seconds(5))
        let elapsed = (clock.now - start).seconds
        print("processes-idle-watch-cpu-percent: \(CacheBenchmark.format((cpuSeconds() - before) / elapsed * 100)) (target <= 1, of one core)")
        await store.removeWatcher(watcher)
    }

    /// This process's CPU time so far, user and system.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
