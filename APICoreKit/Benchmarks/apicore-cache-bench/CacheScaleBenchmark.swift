@_spi(Generated) import APICore
import APICoreLive
import APICoreSupport
import APICoreSQLite
import Foundation
import Logging
import Synchronization

/// How the cache behaves as it grows (`scripts/bench.sh cache-scale`): stores of 10 k, 100 k and
/// 1 M records built from pages of a list query, in memory and in SQLite, each size in a fresh
/// process so that resident memory is its own. Per size: write and read µs per record, resident
/// bytes per record, SQLite bytes per record, a cold open, a garbage collection (its time, and the
/// longest a read issued during it waited for the store: the longest pause), and a one-record
/// write that wakes 10,000 watchers, each the median of `rounds` runs (the machine is noisy); then
/// how each figure grows from the smallest size to the largest (a ratio, and the exponent of the
/// total: 1.0 is linear).
enum CacheScaleBenchmark {
    static let itemsPerPage = 500
    static let recordsPerItem = 2
    static let watcherCount = 10_000
    static let defaultSizes = [10_000, 100_000, 1_000_000]

    /// Runs every size `rounds` times, each in a child process, sizes interleaved, and prints the
    /// median of each figure per size, then the growth. With `underLoad`, each child keeps every
    /// core busy with a thread of its own that spins beside the cache's work (a machine whose
    /// other work takes all its cores).
    static func run(sizes: [Int], rounds: Int, underLoad: Bool = false) throws {
        var runs: [Int: [[String: Double]]] = [:]
        if underLoad { print("under-load-spinning-threads: \(ProcessInfo.processInfo.activeProcessorCount)") }
        for _ in 0..<rounds {
            for size in sizes { runs[size, default: []].append(try runChild(size: size, underLoad: underLoad)) }
        }
        var figures: [Int: [String: Double]] = [:]
        for size in sizes {
            let all = runs[size] ?? []
            var medians: [String: Double] = [:]
            for name in all.first?.keys.sorted() ?? [] {
                medians[name] = CacheBenchmark.median(all.compactMap { $0[name] })
                print("scale-\(label(size))-\(name): \(CacheBenchmark.format(medians[name]!, digits: 2))")
            }
            figures[size] = medians
        }
        guard let first = sizes.first, let last = sizes.last, first != last, let small = figures[first], let large = figures[last] else { return }
        let span = "\(label(first))-\(label(last))"
        // Per-record figures and the fixed-size operations: their ratio should stay near 1.
        for name in [
            "memory-write-us-per-record", "memory-read-us-per-record", "memory-resident-bytes-per-record", "sqlite-write-us-per-record",
            "sqlite-read-us-per-record", "sqlite-bytes-per-record", "memory-gc-us-per-record", "sqlite-gc-us-per-record",
            "sqlite-cold-open-ms", "watchers-wake-ms", "hardware-random-lookup-ns", "memory-gc-longest-pause-ms", "sqlite-gc-longest-pause-ms",
        ] {
            guard let a = small[name], let b = large[name], a > 0 else { continue }
            print("growth-\(span)-\(name): \(CacheBenchmark.format(b / a))")
        }
        // Whole collections: the exponent of their time against the record count (1.0 is linear).
        let ratio = Double(last) / Double(first)
        for name in ["memory-gc-ms", "sqlite-gc-ms"] {
            guard let a = small[name], let b = large[name], a > 0 else { continue }
            print("exponent-\(span)-\(name): \(CacheBenchmark.format(log(b / a) / log(ratio)))")
        }
    }

    /// One size in a child process: its figures.
    static func runChild(size: Int, underLoad: Bool) throws -> [String: Double] {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["scale-one", String(size)] + (underLoad ? ["--under-load"] : [])
        let pipe = Pipe()
        child.standardOutput = pipe
        try child.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        guard child.terminationStatus == 0 else { throw BenchmarkFailure("the run of \(size) records failed") }
        var values: [String: Double] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, let value = Double(parts[1]) { values[parts[0]] = value }
        }
        return values
    }

    /// One size, in this process: prints `name: value` lines. With `underLoad`, a thread per core
    /// spins while it runs.
    static func runOne(size: Int, underLoad: Bool = false) async throws {
        let spinning = underLoad ? Spinners(count: ProcessInfo.processInfo.activeProcessorCount) : nil
        defer { spinning?.stop() }
        let pages = max(1, size / (itemsPerPage * recordsPerItem))
        let records = pages * itemsPerPage * recordsPerItem + 1
        let clock = ContinuousClock()

        // Memory (the store released before SQLite's turn).
        let memoryWrite: Duration, resident: Int, memoryRead: Duration, memoryCollection: (total: Duration, pause: Duration), wake: Duration
        do {
            let residentBefore = residentBytes()
            let memory = NormalizedStore(persistent: nil, logger: Logger(label: "bench"))
            memoryWrite = try await writeAll(pages, into: memory, clock: clock)
            resident = residentBytes() - residentBefore
            memoryRead = try await readAll(pages, from: memory, clock: clock)
            memoryCollection = await collectTwice(memory, clock: clock)
            wake = await wakeWatchers(of: memory, clock: clock)
        }

        // SQLite: written through a store, then opened cold by another.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apicore-scale-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cache.sqlite")
        let sqliteWrite: Duration
        do {
            let writer = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "bench"))
            sqliteWrite = try await writeAll(pages, into: writer, clock: clock)
        }
        let onDisk = try requireStore(SQLiteCache.storage(at: file).persistent).bytesOnDisk()
        var cold: NormalizedStore?
        let coldOpen = try await clock.measure {
            let store = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "bench"))
            try await read(page: 0, from: store)
            cold = store
        }
        let sqliteRead = try await readAll(pages, from: cold!, clock: clock)
        let collector = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "bench"))
        let sqliteCollection = await collectTwice(collector, clock: clock)

        let lookup = randomLookupNanoseconds(count: records)

        let perRecord = { (duration: Duration) in CacheBenchmark.format(duration.milliseconds * 1000 / Double(records), digits: 2) }
        print("records: \(records)")
        print("hardware-random-lookup-ns: \(CacheBenchmark.format(lookup, digits: 1))")
        print("memory-write-us-per-record: \(perRecord(memoryWrite))")
        print("memory-read-us-per-record: \(perRecord(memoryRead))")
        print("memory-resident-bytes-per-record: \(resident / records)")
        print("memory-gc-ms: \(CacheBenchmark.format(memoryCollection.total.milliseconds))")
        print("memory-gc-us-per-record: \(perRecord(memoryCollection.total))")
        print("memory-gc-longest-pause-ms: \(CacheBenchmark.format(memoryCollection.pause.milliseconds))")
        print("watchers-wake-ms: \(CacheBenchmark.format(wake.milliseconds))")
        print("sqlite-write-us-per-record: \(perRecord(sqliteWrite))")
        print("sqlite-read-us-per-record: \(perRecord(sqliteRead))")
        print("sqlite-bytes-per-record: \(onDisk / records)")
        print("sqlite-cold-open-ms: \(CacheBenchmark.format(coldOpen.milliseconds))")
        print("sqlite-gc-ms: \(CacheBenchmark.format(sqliteCollection.total.milliseconds))")
        print("sqlite-gc-us-per-record: \(perRecord(sqliteCollection.total))")
        print("sqlite-gc-longest-pause-ms: \(CacheBenchmark.format(sqliteCollection.pause.milliseconds))")
    }

    /// Checks and records (one walk) and merges every page (the pages are made outside the timing).
    static func writeAll(_ pages: Int, into store: NormalizedStore, clock: ContinuousClock) async throws -> Duration {
        var total = Duration.zero
        for number in 0..<pages {
            let data = page(number)
            let start = clock.now
            let variables: JSONObject = ["page": .int(number)]
            let writer = CacheWriter(store: store)
            await writer.write(try writer.check(data, as: PageQuery.Data.self, at: CacheNaming.queryRoot, variables: variables))
            total += clock.now - start
        }
        return total
    }

    /// A garbage collection alone, timed; then another while a task reads one record from the
    /// store back to back: the longest one of those reads took (the longest the store was held by
    /// the collection, give or take a read). (Nothing is left to remove the second time: it walks
    /// the same store.)
    static func collectTwice(_ store: NormalizedStore, clock: ContinuousClock) async -> (total: Duration, pause: Duration) {
        let total = await clock.measure { _ = await CacheWriter(store: store).collectGarbage(maxStaleness: .zero) }
        let finished = Atomic<Bool>(false)
        async let probed: Void = {
            _ = await CacheWriter(store: store).collectGarbage(maxStaleness: .zero)
            finished.store(true, ordering: .releasing)
        }()
        var pause = Duration.zero
        while !finished.load(ordering: .acquiring) {
            let start = clock.now
            _ = await store.record("Item:i0")
            pause = max(pause, clock.now - start)
        }
        await probed
        return (total, pause)
    }

    /// What the machine allows: a lookup, in random order, of each key of a dictionary of
    /// `count` keys shaped like the records' (`Item:i123`), in nanoseconds. Past the processor's
    /// caches it grows with the size, and so does anything that visits records in no particular
    /// order (a collection, a page of references).
    static func randomLookupNanoseconds(count: Int) -> Double {
        var table: [String: Int] = [:]
        table.reserveCapacity(count)
        for index in 0..<count { table["Item:i\(index)"] = index }
        var random = SystemRandomNumberGenerator()
        let order = (0..<count).map { "Item:i\($0)" }.shuffled(using: &random)
        let clock = ContinuousClock()
        var found = 0
        let elapsed = clock.measure {
            for key in order { found &+= table[key] ?? 0 }
        }
        precondition(found > 0 || count == 1)
        return elapsed.milliseconds * 1e6 / Double(count)
    }

    static func readAll(_ pages: Int, from store: NormalizedStore, clock: ContinuousClock) async throws -> Duration {
        try await clock.measure {
            for number in 0..<pages { try await read(page: number, from: store) }
        }
    }

    /// Reads one page back into typed data.
    static func read(page number: Int, from store: NormalizedStore) async throws {
        let outcome = await store.read(
            key: CacheNaming.queryRoot, selections: PageQuery.Data.__selections, parent: PageQuery.Data.__parentType,
            variables: ["page": .int(number)], requestMaxAge: nil)
        guard let data = outcome.data else { throw BenchmarkFailure("page \(number) is not in the cache") }
        let typed = PageQuery.Data(_dataDict: DataDict(_data: data))
        guard typed.page.count == itemsPerPage else { throw BenchmarkFailure("page \(number) has \(typed.page.count) items") }
    }

    /// 10,000 watchers of one item; the time of one write that changes it, until every watcher
    /// has read it again.
    static func wakeWatchers(of store: NormalizedStore, clock: ContinuousClock) async -> Duration {
        let key = "Item:i0"
        for _ in 0..<watcherCount {
            _ = await store.addWatcher(dependencies: [key]) { store in
                _ = store.record(key)
                return [key]
            }
        }
        let before = await store.rereadCount
        let elapsed = await clock.measure { await CacheWriter(store: store).write(records: [key: ["name": "Changed"]]) }
        let rereads = await store.rereadCount - before
        precondition(rereads == watcherCount, "every watcher reads again")
        return elapsed
    }

    /// Page `number`: 500 items, each with a seller of its own (two records per item).
    static func page(_ number: Int) -> JSONObject {
        var items: [JSONValue] = []
        items.reserveCapacity(itemsPerPage)
        for index in 0..<itemsPerPage {
            let id = number * itemsPerPage + index
            items.append([
                "__typename": "Item", "id": .string("i\(id)"), "name": .string("Item number \(id)"), "price": .double(Double(id % 1000) + 0.25),
                "seller": ["__typename": "Seller", "id": .string("s\(id)"), "name": .string("Seller \(id)"), "rating": .int(id % 5)],
            ])
        }
        return ["page": .array(items)]
    }

    /// The process's resident memory, from `/proc/self/statm` (0 where there is none).
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func label(_ size: Int) -> String {
        size >= 1_000_000 && size % 1_000_000 == 0 ? "\(size / 1_000_000)m" : size >= 1000 && size % 1000 == 0 ? "\(size / 1000)k" : "\(size)"
    }

    struct BenchmarkFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// The store's persistent part, or a failure: the benchmark needs SQLite.
private func requireStore(_ store: (any PersistentRecordStore)?) throws -> any PersistentRecordStore {
    guard let store else { throw CacheScaleBenchmark.BenchmarkFailure("the SQLite cache could not be opened") }
    return store
}

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}

/// `query Page($page: Int!) { page(number: $page) { __typename id name price seller { __typename id name rating } } }`
struct PageQuery: GraphQLQuery {
    static let operationName = "Page"
    static let document = "query Page($page: Int!) { page(number: $page) { __typename id name price seller { __typename id name rating } } }"

    struct Data: RootSelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Query")
        static let __selections: [Selection] = [
            .field(Field("page", .nonNull(.list(.nonNull(.object(Item.self)))), arguments: ["number": .variable("page")]))
        ]
        var page: [Item] { __data["page"] }

        struct Item: SelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = ParentType.object("Item", keyFields: ["id"])
            static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("name", .nonNull(.scalar(String.self)))),
                .field(Field("price", .nonNull(.scalar(Double.self)))),
                .field(Field("seller", .nonNull(.object(Seller.self)))),
            ]
        }

        struct Seller: SelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = ParentType.object("Seller", keyFields: ["id"])
            static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("name", .nonNull(.scalar(String.self)))),
                .field(Field("rating", .nonNull(.scalar(Int.self)))),
            ]
        }
    }
}

/// Threads that keep cores busy until stopped: the load beside `scale --under-load`.
final class Spinners: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let running = Atomic<Int>(0)

    init(count: Int) {
        for _ in 0..<count {
            running.add(1, ordering: .relaxed)
            Thread { [self] in
                var sum = 0
                while !stopped.load(ordering: .relaxed) { sum &+= 1 }
                running.subtract(1, ordering: .releasing)
                if sum == -1 { print(sum) }  // keeps the loop
            }.start()
        }
    }

    /// Stops the threads and waits until each has seen it.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        while running.load(ordering: .acquiring) > 0 { Thread.sleep(forTimeInterval: 0.001) }
    }
}
