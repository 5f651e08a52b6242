import APICore
import APICoreAsyncHTTPClient
@_spi(Engine) import APICoreLive
import APICoreSQLite
import APICoreTestServer
import APICoreWebSocket
import Foundation
import Logging
import MallocStatistics
import StarWarsOperations
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// A long-running app in a few minutes: 100,000 mixed operations (APICOREKIT_SOAK_OPS to change)
/// against the loopback server, eight at a time, through one client with an SQLite cache and a
/// memory bound — queries of pages and characters under every cache policy, watchers that start
/// and stop, subscriptions that run to their end, optimistic mutations, mutations queued while
/// the client is cut off and replayed, garbage collections. It reports the resident memory after
/// a warm-up tenth and at the end (both after a collection), the most records the memory cache
/// held beside its bound, and what the client still has going on once everything has ended,
/// which should be nothing.
enum SoakBenchmark {
    static let concurrency = 8
    static let memoryBound = 2_000
    static let diskBound = 16 << 20

    static func run() async throws {
        let operations = ProcessInfo.processInfo.environment["APICOREKIT_SOAK_OPS"].flatMap(Int.init) ?? 100_000
        guard operations >= 1_000 else { throw SoakError.tooFew(operations) }
        // The server runs in a child process, so that this process's memory is the client's alone
        // (the loopback server keeps every request it received, for tests).
        let server = try ServerProcess.start()
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apicore-soak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let offline = OfflineSwitch()
        var configuration = APIClientConfiguration(
            restBaseURL: server.baseURL, middlewares: [offline],
            cache: CacheConfiguration(
                // APICOREKIT_SOAK_STORE=memory: without SQLite, to tell the store's growth from the rest.
                storage: ProcessInfo.processInfo.environment["APICOREKIT_SOAK_STORE"] == "memory"
                    ? .inMemory : SQLiteCache.storage(at: folder.appendingPathComponent("cache.sqlite"), maxBytes: diskBound),
                memoryLimit: .records(memoryBound)),
            logger: Logger(label: "soak") { _ in SwiftLogNoOpLogHandler() }, retryPolicy: nil)
        configuration.subscriptions = SubscriptionConfiguration(url: server.webSocketURL, transport: APICoreWebSocket.transport)
        // APICOREKIT_SOAK_TRANSPORT=asynchttpclient: over AsyncHTTPClient instead of URLSession.
        let overAHC = ProcessInfo.processInfo.environment["APICOREKIT_SOAK_TRANSPORT"] == "asynchttpclient"
        let client = overAHC ? APICoreLive.makeClient(configuration, transport: AsyncHTTPClientTransport()) : APICoreLive.makeClient(configuration)
        print("soak-transport: \(overAHC ? "asynchttpclient" : "urlsession")")
        client.offlineQueue.register(RenameCharacterMutation.self)

        let tally = Tally()
        let clock = ContinuousClock()
        let start = clock.now
        var warmResident = 0
        var warmHeap = 0
        var warmIndex = 0
        var warmRequests = 0
        // APICOREKIT_SOAK_CURVE: resident memory every twentieth of the run, not every fourth.
        let curve = ProcessInfo.processInfo.environment["APICOREKIT_SOAK_CURVE"] != nil
        var index = 0
        while index < operations {
            let batch = index..<min(index + concurrency, operations)
            await withTaskGroup(of: Void.self) { group in
                for operation in batch { group.addTask { await tally.record(operation, await Self.step(operation, client: client)) } }
            }
            index = batch.upperBound
            if index % 1_000 == 0 {
                // Cut off: renames wait in the queue (their optimistic data shown), then go out in order.
                offline.isOn.withLock { $0 = true }
                for offset in 0..<5 {
                    let outcome = await result { try await client.performOrQueue(rename(index + offset), optimisticResponse: optimistic(index + offset)) }
                    switch outcome {
                    case .success(.sent): await tally.fail("a rename went out while the client was cut off")
                    case .success(.queued): break
                    case .failure(let error): await tally.fail("queueing a rename: \(error)")
                    }
                }
                offline.isOn.withLock { $0 = false }
                await client.offlineQueue.replay()
                let summary = try await client.cacheMaintenance!.summary()
                await tally.sawMemory(summary.recordsInMemory)
            }
            if index % 5_000 == 0 { _ = try await client.cacheMaintenance!.collectGarbage() }
            if warmResident == 0, index >= operations / 10 {
                _ = try await client.cacheMaintenance!.collectGarbage()
                warmResident = residentBytes()
                warmHeap = Int(malloc_statistics_in_use())
                warmIndex = index
                warmRequests = offline.sent.load(ordering: .relaxed)
            }
            if index % (operations / 4) == 0 || (curve && index % (operations / 20) == 0) {
                // The curve between: flat after the warm-up, or growing with the work done; and
                // what the allocator holds in use and free, to tell live memory from what it keeps.
                print("soak-resident-mb-after-\(index): \(megabytes(residentBytes())) (heap in use \(megabytes(Int(malloc_statistics_in_use()))), free in the heap \(megabytes(Int(malloc_statistics_free()))))")
            }
        }
        let elapsed = clock.now - start
        _ = try await client.cacheMaintenance!.collectGarbage()
        let endResident = residentBytes()
        let endHeap = Int(malloc_statistics_in_use())
        let requests = offline.sent.load(ordering: .relaxed) - warmRequests
        // Everything started has ended: nothing may still run.
        var activity = await APICoreLive.activity(of: client)
        let settleBy = clock.now + .seconds(30)
        while let current = activity, current.isIdle == false, clock.now < settleBy {
            try await Task.sleep(for: .milliseconds(50))
            activity = await APICoreLive.activity(of: client)
        }
        let summary = try await client.cacheMaintenance!.summary()

        let report = await tally.report()
        print("soak-operations: \(operations)")
        print("soak-seconds: \(String(format: "%.1f", seconds(elapsed)))")
        print("soak-operations-per-second: \(Int((Double(operations) / seconds(elapsed)).rounded()))")
        if warmResident > 0, endResident > 0 {
            print("soak-resident-warm-mb: \(String(format: "%.1f", Double(warmResident) / 1_048_576))")
            print("soak-resident-end-mb: \(String(format: "%.1f", Double(endResident) / 1_048_576))")
            print("soak-resident-growth: \(String(format: "%.3f", Double(endResident) / Double(warmResident))) (target <= 1.10)")
            if warmHeap > 0 {
                // What the C heap holds in use, from the warm-up to the end, per operation: where
                // the growth is, heaptrack tells (Integration/README.md, "Soak").
                print("soak-heap-in-use-warm-mb: \(megabytes(warmHeap)), end: \(megabytes(endHeap))")
                print("soak-heap-growth-bytes-per-operation: \(Int((Double(endHeap - warmHeap) / Double(operations - warmIndex)).rounded()))")
            }
        } else {
            print("soak-resident-growth: n/a (no /proc/self/statm here)")
        }
        // The platform's share, side by side: what URLSession alone keeps per request, here.
        if warmResident > 0, endResident > 0 {
            let perRequest = try await urlSessionResidentBytesPerRequest(server.baseURL.appendingPathComponent("items"))
            print("soak-http-requests-after-warm-up: \(requests)")
            print("soak-urlsession-resident-bytes-per-request: \(Int(perRequest.rounded())) (a bare URLSession, \(referenceRequests) requests)")
            let platform = perRequest * Double(requests)
            print("soak-resident-growth-beyond-urlsession: \(String(format: "%.3f", (Double(endResident) - platform) / Double(warmResident))) (target <= 1.10)")
        }
        print("soak-memory-records-max: \(report.maxMemoryRecords) (bound \(memoryBound))")
        print("soak-memory-records-end: \(summary.recordsInMemory)")
        print("soak-disk-bytes-end: \(summary.bytesOnDisk ?? 0) (bound \(diskBound))")
        print("soak-activity-end: \(activity.map(String.init(describing:)) ?? "n/a")")
        print("soak-failed-operations: \(report.failures)")
        for (reason, count) in report.reasons.sorted(by: { $0.value > $1.value }).prefix(5) { print("soak-failure: \(count)x \(reason)") }
    }

    /// The kinds of operation in the mix (0 to 19, below), in turn: all of them, or those
    /// APICOREKIT_SOAK_MIX lists (`9,10,11` for watchers alone), to find which one grows.
    static let mix: [Int] = {
        let listed = ProcessInfo.processInfo.environment["APICOREKIT_SOAK_MIX"]?.split(separator: ",").compactMap { Int($0) }
            .filter { (0..<20).contains($0) } ?? []
        return listed.isEmpty ? Array(0..<20) : listed
    }()

    /// One operation of the mix, by its number.
    static func step(_ operation: Int, client: any APIClient) async -> Result<Void, APIError> {
        let humans = ["1000", "1001", "1002", "1003", "1004"]
        switch mix[operation % mix.count] {
        case 0..<6:
            // A page of the catalog by cursor: a new root field for every cursor, records shared between pages.
            let cursor = operation % 3 == 0 ? nil : "item-\((operation * 7) % 4_980)"
            let policy: CachePolicy = operation % 2 == 0 ? .networkOnly : .cacheElseNetwork
            return await result { _ = try await client.fetch(CatalogPagePlainQuery(first: 10, after: GraphQLNullable(cursor)), cachePolicy: policy) }
        case 6..<8:
            return await result { _ = try await client.fetch(HumanQuery(id: humans[operation % humans.count]), cachePolicy: .cacheElseNetwork) }
        case 8:
            // Both answers of cache-and-network: the server's arrives in the background.
            return await result {
                for await answer in client.responses(GraphQLRequest(HumanQuery(id: humans[operation % humans.count])), cachePolicy: .cacheAndNetwork) {
                    _ = try answer.get()
                }
            }
        case 9..<12:
            // A watcher that comes, sees one result, and goes.
            return await result {
                for await answer in client.watch(GraphQLRequest(HumanQuery(id: humans[operation % humans.count]))) {
                    _ = try answer.get()
                    break
                }
            }
        case 12..<15:
            return await result { _ = try await client.perform(rename(operation), optimisticResponse: optimistic(operation)) }
        case 15..<17:
            // A subscription that runs to its end: five events, then the server completes it.
            return await result {
                var events = 0
                for try await _ in client.subscribe(CounterSubscription(to: 5)) { events += 1 }
                guard events == 5 else { throw APIError.invalidRequest("the counter ended after \(events) events, not 5") }
            }
        case 17:
            // A subscription left after its first event: the consumer stops, the client completes it.
            return await result {
                for try await _ in client.subscribe(CounterSubscription(to: 1_000)) { break }
            }
        default:
            // A pager of merged pages, two pages loaded, then dropped.
            return await result {
                let pager = GraphQLPager(
                    client: client, first: page(after: nil),
                    next: { loaded in loaded.pageInfo.hasNextPage ? page(after: loaded.pageInfo.endCursor) : nil },
                    elements: \.nodes, item: \.id)
                try await pager.loadNext()
                try await pager.loadNext()
            }
        }
    }

    static func page(after cursor: String?) -> PageRequest<CatalogPageQuery.Data.CatalogPage> {
        PageRequest(GraphQLRequest(CatalogPageQuery(first: 10, after: GraphQLNullable(cursor))) { $0.catalogPage })
    }

    static func rename(_ operation: Int) -> RenameCharacterMutation {
        RenameCharacterMutation(id: ["1000", "1001", "1002"][operation % 3], name: "Name \(operation)")
    }

    static func optimistic(_ operation: Int) -> RenameCharacterMutation.Data {
        try! RenameCharacterMutation.Data(validating: [
            "renameCharacter": ["__typename": "Human", "id": .string(["1000", "1001", "1002"][operation % 3]), "name": .string("Name \(operation)?")]
        ])
    }

    static func result<T>(_ body: () async throws -> T) async -> Result<T, APIError> {
        do {
            return .success(try await body())
        } catch let error as APIError {
            return .failure(error)
        } catch {
            return .failure(.invalidRequest("\(error)"))
        }
    }

    static let referenceRequests = 20_000

    /// How much resident memory a bare URLSession keeps per request (on Linux, FoundationNetworking
    /// of Swift 6.3 leaks the URL libcurl parses to check each request's host: swift-corelibs-foundation
    /// #5498): `referenceRequests` GETs, eight at a time, on a session of its own.
    static func urlSessionResidentBytesPerRequest(_ url: URL) async throws -> Double {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        // A first round, so that connections, buffers and caches exist before measuring.
        for _ in 0..<100 { _ = try await session.data(from: url) }
        let before = residentBytes()
        for _ in 0..<(referenceRequests / 8) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { _ = try await session.data(from: url) } }
                try await group.waitForAll()
            }
        }
        return Double(residentBytes() - before) / Double(referenceRequests)
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }

    /// The process's resident memory in bytes, or 0 where /proc is missing.
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        #if canImport(Glibc)
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
            return pages * 4096
        #endif
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Cuts the client off (every request fails as if there were no network) while it is on.
final class OfflineSwitch: Middleware {
    let isOn = Mutex(false)
    /// The requests that went out (through URLSession).
    let sent = Atomic(0)

    func intercept(_ request: URLRequest, context: RequestContext, next: MiddlewareNext) async throws(APIError) -> TransportResponse {
        if isOn.withLock({ $0 }) {
            throw .transport(TransportFailure(kind: .notConnected, url: request.url, underlying: "the soak cut the client off"))
        }
        sent.add(1, ordering: .relaxed)
        return try await next(request)
    }
}

/// Failures by reason, and the most records the memory cache held.
actor Tally {
    private(set) var failures = 0
    private(set) var reasons: [String: Int] = [:]
    private(set) var maxMemoryRecords = 0

    func record(_ operation: Int, _ outcome: Result<Void, APIError>) {
        if case .failure(let error) = outcome { fail("operation kind \(SoakBenchmark.mix[operation % SoakBenchmark.mix.count]): \(error)") }
    }

    func fail(_ reason: String) {
        failures += 1
        // The reason without the numbers that make every failure unique.
        reasons[String(reason.prefix(160)).replacing(/[0-9]+/, with: "N"), default: 0] += 1
    }

    func sawMemory(_ records: Int) { maxMemoryRecords = max(maxMemoryRecords, records) }

    func report() -> (failures: Int, reasons: [String: Int], maxMemoryRecords: Int) { (failures, reasons, maxMemoryRecords) }
}

extension EngineActivity {
    /// Nothing runs and nothing waits.
    var isIdle: Bool {
        backgroundTasks == 0 && queriesInFlight == 0 && subscriptions == 0 && watchers == 0 && optimisticLayers == 0 && queuedMutations == 0
    }
}

/// `apicore-bench serve`: the loopback server in a child process, until its standard input closes.
struct ServerProcess {
    let process: Process
    let input: Pipe
    let baseURL: URL
    var webSocketURL: URL { URL(string: "ws://127.0.0.1:\(baseURL.port ?? 0)/graphql")! }

    static func start() throws -> ServerProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["serve"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Its first line: `listening at http://127.0.0.1:PORT/`.
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
            line.append(first)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let url = text.split(separator: " ").last.flatMap({ URL(string: String($0)) }), url.port != nil else {
            process.terminate()
            throw SoakError.serverDidNotStart(text)
        }
        return ServerProcess(process: process, input: input, baseURL: url)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// The child's side: serves until standard input closes.
    static func serve() async throws {
        let server = try await TestServer.start()
        FileHandle.standardOutput.write(Data("listening at \(server.baseURL.absoluteString)\n".utf8))
        _ = FileHandle.standardInput.readDataToEndOfFile()
        await server.stop()
    }
}

enum SoakError: Error, CustomStringConvertible {
    case tooFew(Int)
    case serverDidNotStart(String)

    var description: String {
        switch self {
        case .tooFew(let count): return "APICOREKIT_SOAK_OPS must be at least 1,000, not \(count)"
        case .serverDidNotStart(let line): return "the loopback server's process did not say where it listens (it said '\(line)')"
        }
    }
}
