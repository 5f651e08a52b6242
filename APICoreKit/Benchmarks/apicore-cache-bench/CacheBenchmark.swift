@_spi(Tools) @_spi(Generated) import APICore
import APICoreLive
import GitHubOperations
import APICoreSupport
import APICoreSQLite
import Foundation
import Logging

/// A response of about 10,000 objects (2 MB of JSON, lists with repeated entities) parsed alone
/// (`JSONSerialization`), parsed + checked and recorded (one walk) + written, and read back into
/// typed data, in memory and in SQLite, in alternating rounds; a cache hit through the client's
/// `fetch`; then 1,000 watchers and a write that touches one record. The same writes and reads on
/// GitHub's real answer to Apollo iOS's performance-test query (`github-real-*`).
enum CacheBenchmark {
    static let orderCount = 800
    static let linesPerOrder = 6
    static let customerCount = 200
    static let productCount = 500
    static let runs = 9

    /// The medians of alternating rounds: the parse alone, and the cache's write and read of
    /// `body` as `Data`, in memory and in SQLite.
    struct Rounds {
        var parse: Double
        var memoryWrite: Double
        var memoryRead: Double
        var sqliteWrite: Double
        var sqliteRead: Double
        var records: Int
    }

    static func rounds<Data: RootSelectionSet>(_ body: Foundation.Data, as type: Data.Type, check: @escaping (Data) -> Bool) async throws -> Rounds {
        let clock = ContinuousClock()
        // Rounds alternate the parse with the writes and reads, so that a change in the machine's
        // load touches both sides of each ratio alike.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apicore-bench-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var parseTimes: [Double] = []
        var memoryWrite: [Double] = []
        var memoryRead: [Double] = []
        var sqliteWrite: [Double] = []
        var sqliteRead: [Double] = []
        var recordCount = 0
        for run in 0..<runs {
            parseTimes.append(try seconds(clock) { _ = try JSONSerialization.jsonObject(with: body) })
            // Memory: write (parse, check and record, merge), then read back.
            let store = NormalizedStore(persistent: nil, logger: Logger(label: "bench"))
            memoryWrite.append(try await secondsAsync(clock) { recordCount = try await write(body, as: type, into: store) })
            memoryRead.append(try await secondsAsync(clock) { try await readBack(type, from: store, check: check) })
            // SQLite: the same write into a fresh file; the read from a new store whose memory is empty.
            let file = directory.appendingPathComponent("cache-\(run).sqlite")
            let writer = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "bench"))
            sqliteWrite.append(try await secondsAsync(clock) { _ = try await write(body, as: type, into: writer) })
            // The read is a cold start's: from a new store over a file that has the records, with
            // no write of them still going on beside it (the write-behind's is awaited, untimed).
            // The writing store lives on through the read, as an app's does: released early, its
            // file's closing (a checkpoint of the write-ahead log) would run beside the read.
            await writer.persisted()
            let reader = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "bench"))
            sqliteRead.append(try await secondsAsync(clock) { try await readBack(type, from: reader, check: check) })
        }
        return Rounds(
            parse: median(parseTimes), memoryWrite: median(memoryWrite), memoryRead: median(memoryRead), sqliteWrite: median(sqliteWrite),
            sqliteRead: median(sqliteRead), records: recordCount)
    }

    static func run() async throws {
        let body = makeResponse()
        let objectCount = orderCount * (2 + 2 * linesPerOrder)
        let clock = ContinuousClock()
        let orders = try await rounds(body, as: OrdersQuery.Data.self) { $0.orders.count == orderCount && $0.orders[0].lines.count == linesPerOrder }
        let parse = orders.parse

        // The client: a cache hit through `fetch(.cacheOnly)`, the cache's data read, checked and
        // wrapped as the caller's typed value.
        let client = APICoreLive.makeClient(APIClientConfiguration(restBaseURL: URL(string: "http://127.0.0.1:9")!))
        try await client.cache.writeQuery(OrdersQuery(), data: try OrdersQuery.Data(validating: data(of: body)))
        var clientHit: [Double] = []
        for _ in 0..<runs {
            clientHit.append(try await secondsAsync(clock) {
                let response = try await client.fetch(OrdersQuery(), cachePolicy: .cacheOnly)
                precondition(response.value.orders.count == orderCount)
            })
        }

        let (notifyMilliseconds, rereads) = try await watchers(body)

        print("cache-response-bytes: \(body.count)")
        print("cache-objects: \(objectCount)")
        print("cache-records: \(orders.records)")
        print("parse-ms: \(format(parse * 1000))")
        print("memory-write-ratio: \(format(orders.memoryWrite / parse))")
        print("memory-read-ratio: \(format(orders.memoryRead / parse))")
        print("sqlite-write-ratio: \(format(orders.sqliteWrite / parse))")
        print("sqlite-read-ratio: \(format(orders.sqliteRead / parse))")
        print("client-cache-hit-ratio: \(format(median(clientHit) / parse))")
        print("memory-write-us-per-record: \(format(orders.memoryWrite * 1e6 / Double(orders.records), digits: 2))")
        print("memory-read-us-per-record: \(format(orders.memoryRead * 1e6 / Double(orders.records), digits: 2))")

        // GitHub's real answer (Apollo iOS's performance-test response), the same steps.
        let github = try Data(contentsOf: githubAnswer)
        let real = try await rounds(github, as: IssuesAndCommentsForRepositoryQuery.Data.self) { $0.repository?.issues.nodes?.isEmpty == false }
        print("github-real-response-bytes: \(github.count)")
        print("github-real-records: \(real.records)")
        print("github-real-parse-ms: \(format(real.parse * 1000))")
        print("github-real-memory-write-ratio: \(format(real.memoryWrite / real.parse))")
        print("github-real-memory-read-ratio: \(format(real.memoryRead / real.parse))")
        print("github-real-sqlite-write-ratio: \(format(real.sqliteWrite / real.parse))")
        print("github-real-sqlite-read-ratio: \(format(real.sqliteRead / real.parse))")
        let coding = try recordCoding(github, as: IssuesAndCommentsForRepositoryQuery.Data.self)
        print("github-real-record-decode-ratio: \(format(coding.decode))")
        print("github-real-record-encode-ratio: \(format(coding.encode))")
        print("watcher-notify-ms: \(format(notifyMilliseconds))")
        print("watchers-reread: \(rereads)")
        try await OptimisticBenchmark.run()
    }

    /// The answer's records as SQLite keeps them (RecordCoding, format version 4) against the
    /// compact JSON it kept before: each way's time to read all of them back, and to write them,
    /// the binary form's over JSON's (medians of alternating rounds).
    static func recordCoding<Data: RootSelectionSet>(_ body: Foundation.Data, as type: Data.Type) throws -> (decode: Double, encode: Double) {
        guard let data = try JSONTape(reading: body).root["data"] else { fatalError("the benchmark's response has no data") }
        let writer = CacheWriter(store: NormalizedStore(persistent: nil, logger: Logger(label: "bench")))
        let records = Array(try writer.check(ReadObject.tape(data), as: type, at: CacheNaming.queryRoot, variables: [:]).records.values)
        let clock = ContinuousClock()
        var binary: [Foundation.Data] = []
        var json: [Foundation.Data] = []
        var times: (binaryRead: [Double], jsonRead: [Double], binaryWrite: [Double], jsonWrite: [Double]) = ([], [], [], [])
        for _ in 0..<runs {
            times.jsonWrite.append(try seconds(clock) { json = records.map { JSONSerializer.data(.object($0), sortingKeys: false) } })
            times.binaryWrite.append(try seconds(clock) { binary = records.map(RecordCoding.encode(record:)) })
            times.jsonRead.append(try seconds(clock) { precondition(json.allSatisfy { RecordCoding.fields(from: $0) != nil }) })
            times.binaryRead.append(try seconds(clock) { precondition(binary.allSatisfy { RecordCoding.fields(from: $0) != nil }) })
        }
        return (median(times.binaryRead) / median(times.jsonRead), median(times.binaryWrite) / median(times.jsonWrite))
    }

    /// The synthetic answer written into a new memory store 300 times, for a profiler; prints the
    /// writes' time beside JSONSerialization's 300 parses.
    static func profileMemoryWrite() async throws {
        let body = makeResponse()
        let clock = ContinuousClock()
        var writes = 0.0
        var parses = 0.0
        for _ in 0..<300 {
            let store = NormalizedStore(persistent: nil, logger: Logger(label: "bench"))
            writes += try await secondsAsync(clock) { _ = try await write(body, as: OrdersQuery.Data.self, into: store) }
            parses += try seconds(clock) { _ = try JSONSerialization.jsonObject(with: body) }
        }
        print("memory-write-ms: \(format(writes * 1000 / 300)) parse-ms: \(format(parses * 1000 / 300)) ratio: \(format(writes / parses))")
    }

    /// GitHub's answer written to SQLite once, then read back cold (a new store over the file)
    /// 300 times, for a profiler; prints the reads' time beside JSONSerialization's 300 parses.
    static func profileSQLiteRead() async throws {
        let github = try Data(contentsOf: githubAnswer)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apicore-bench-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cache.sqlite")
        let writer = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "bench"))
        _ = try await write(github, as: IssuesAndCommentsForRepositoryQuery.Data.self, into: writer)
        await writer.persisted()
        let clock = ContinuousClock()
        var reads = 0.0
        var parses = 0.0
        for _ in 0..<300 {
            let reader = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "bench"))
            reads += try await secondsAsync(clock) {
                try await readBack(IssuesAndCommentsForRepositoryQuery.Data.self, from: reader) { $0.repository?.issues.nodes?.isEmpty == false }
            }
            parses += try seconds(clock) { _ = try JSONSerialization.jsonObject(with: github) }
        }
        print("sqlite-read-ms: \(format(reads * 1000 / 300)) parse-ms: \(format(parses * 1000 / 300)) ratio: \(format(reads / parses))")
    }

    /// GitHub's answer to IssuesAndCommentsForRepository, vendored with its licence.
    static let githubAnswer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../../Fixtures/ThirdParty/apollo-ios/Tests/ApolloPerformanceTests/Responses/IssuesAndCommentsForRepository.json")

    /// Reads the body as the engine reads an answer (onto a tape), checks it as `type` and builds
    /// its records in one walk over the tape, and writes them; answers the record count.
    static func write<Data: RootSelectionSet>(_ body: Foundation.Data, as type: Data.Type = OrdersQuery.Data.self, into store: NormalizedStore)
        async throws -> Int
    {
        let writer = CacheWriter(store: store)
        guard let data = try JSONTape(reading: body).root["data"] else { fatalError("the benchmark's response has no data") }
        let checked = try writer.check(ReadObject.tape(data), as: type, at: CacheNaming.queryRoot, variables: [:])
        await writer.write(checked)
        return checked.records.count
    }

    /// The `data` of a response body.
    static func data(of body: Data) throws -> JSONObject {
        guard case .object(let envelope) = try JSONParser.parse(body), let data = envelope["data"]?.objectValue else {
            fatalError("the benchmark's response has no data")
        }
        return data
    }

    /// Reads the whole response back into typed data, which `check` looks into.
    static func readBack<Data: RootSelectionSet>(_ type: Data.Type, from store: NormalizedStore, check: (Data) -> Bool) async throws {
        let outcome = await store.read(key: CacheNaming.queryRoot, selections: Data.__selections, parent: Data.__parentType, variables: [:], requestMaxAge: nil)
        guard let data = outcome.data else { fatalError("the cache lost data") }
        precondition(check(Data(_dataDict: DataDict(_data: data))), "the cache read back what was written")
    }

    /// 1,000 watchers of one product each; one write that changes one product. Answers the time
    /// the write took, notification included, and how many watchers read the store again.
    static func watchers(_ body: Data) async throws -> (Double, Int) {
        let store = NormalizedStore(persistent: nil, logger: Logger(label: "bench"))
        _ = try await write(body, into: store)
        let woken = WokenCounter()
        for index in 0..<1_000 {
            let key = "Product:p\(index % productCount)-\(index / productCount)"
            // Half of the watchers watch products that exist twice over (two catalogs); all read one record.
            await CacheWriter(store: store).write(records: [key: ["__typename": "Product", "id": .string(key), "name": "Watched", "price": 1.0]])
            let refresh: NormalizedStore.Refresh = { store in
                _ = store.record(key)
                woken.increment()
                return [key]
            }
            _ = await store.addWatcher(dependencies: [key], refresh: refresh)
        }
        let before = await store.rereadCount
        let clock = ContinuousClock()
        let elapsed = await clock.measure {
            await CacheWriter(store: store).write(records: ["Product:p7-0": ["__typename": "Product", "id": "Product:p7-0", "name": "Changed", "price": 2.0]])
        }
        let rereads = await store.rereadCount - before
        precondition(woken.value == rereads, "every reread is a refresh")
        return (Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000, rereads)
    }

    final class WokenCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func increment() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    static func makeResponse() -> Data {
        var orders: [JSONValue] = []
        for order in 0..<orderCount {
            var lines: [JSONValue] = []
            for line in 0..<linesPerOrder {
                let product = (order * 7 + line * 13) % productCount
                lines.append([
                    "__typename": "Line", "id": .string("o\(order)-l\(line)"), "quantity": .int(1 + line),
                    "note": "Deliver with the rest of the order, please; leave it at the door if nobody answers.",
                    "product": [
                        "__typename": "Product", "id": .string("p\(product)"), "name": .string("Product number \(product)"),
                        "description": .string("Product \(product): a plain description, long enough to look like the copy a real catalog shows."),
                        "price": .double(Double(product % 100) + 0.5), "tags": ["pantry", .string("shelf-\(product % 12)")],
                    ],
                ])
            }
            let customer = order % customerCount
            orders.append([
                "__typename": "Order", "id": .string("o\(order)"), "number": .int(100_000 + order),
                "placedAt": "2026-11-22T03:00:00Z", "status": "DELIVERED",
                "customer": [
                    "__typename": "Customer", "id": .string("c\(customer)"), "name": .string("Customer \(customer)"),
                    "email": .string("customer\(customer)@example.com"),
                ],
                "lines": .array(lines),
            ])
        }
        return JSONSerializer.data(["data": ["orders": .array(orders)]])
    }

    static func seconds(_ clock: ContinuousClock, _ body: () throws -> Void) throws -> Double {
        let elapsed = try clock.measure(body)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func secondsAsync(_ clock: ContinuousClock, _ body: () async throws -> Void) async throws -> Double {
        let start = clock.now
        try await body()
        let elapsed = clock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    static func format(_ value: Double, digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }
}

/// The Orders query, its selection set written as the generator writes one.
struct OrdersQuery: GraphQLQuery {
    static let operationName = "Orders"
    static let document = "query Orders { orders { __typename id number placedAt status customer { __typename id name email } lines { __typename id quantity note product { __typename id name description price tags } } } }"

    static let objects = (
        query: ParentType.object("Query"), order: ParentType.object("Order", keyFields: ["id"]),
        customer: ParentType.object("Customer", keyFields: ["id"]), line: ParentType.object("Line", keyFields: ["id"]),
        product: ParentType.object("Product", keyFields: ["id"])
    )

    struct Data: RootSelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = OrdersQuery.objects.query
        static let __selections: [Selection] = [.field(Field("orders", .nonNull(.list(.nonNull(.object(Order.self))))))]
        var orders: [Order] { __data["orders"] }

        struct Order: SelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = OrdersQuery.objects.order
            static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("number", .nonNull(.scalar(Int.self)))),
                .field(Field("placedAt", .nonNull(.scalar(String.self)))),
                .field(Field("status", .nonNull(.scalar(String.self)))),
                .field(Field("customer", .nonNull(.object(Customer.self)))),
                .field(Field("lines", .nonNull(.list(.nonNull(.object(Line.self)))))),
            ]
            var lines: [Line] { __data["lines"] }
        }

        struct Customer: SelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = OrdersQuery.objects.customer
            static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("name", .nonNull(.scalar(String.self)))),
                .field(Field("email", .nonNull(.scalar(String.self)))),
            ]
        }

        struct Line: SelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = OrdersQuery.objects.line
            static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("quantity", .nonNull(.scalar(Int.self)))),
                .field(Field("note", .scalar(String.self))),
                .field(Field("product", .nonNull(.object(Product.self)))),
            ]
        }

        struct Product: SelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = OrdersQuery.objects.product
            static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("name", .nonNull(.scalar(String.self)))),
                .field(Field("description", .nonNull(.scalar(String.self)))),
                .field(Field("price", .nonNull(.scalar(Double.self)))),
                .field(Field("tags", .nonNull(.list(.nonNull(.scalar(String.self)))))),
            ]
        }
    }
}
