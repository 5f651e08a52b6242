@_spi(Generated) @_spi(Engine) @_spi(Tools) @testable import APICore
import APICoreSupport
@testable import APICoreLive
@testable import APICoreSQLite
import APICoreTesting
import Foundation
import GitHubOperations
import Logging
import Testing

/// A cold read from SQLite, of GitHub's real answer (Fixtures/ThirdParty/apollo-ios): 100 issues,
/// each with its author and up to 100 comments with theirs.
@Suite("Cold reads from SQLite")
struct ColdReadTests {
    static let answer = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Fixtures/ThirdParty/apollo-ios/Tests/ApolloPerformanceTests/Responses/IssuesAndCommentsForRepository.json")

    typealias Query = IssuesAndCommentsForRepositoryQuery

    @Test("a cold read loads a level of the answer at a time (a few queries, not one per list) and only records the query reads; it reads what memory read")
    func levelByLevel() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let writer = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        let cacheWriter = CacheWriter(store: writer)
        let data = try #require(try JSONTape(reading: Data(contentsOf: Self.answer)).root["data"])
        let checked = try cacheWriter.check(ReadObject.tape(data), as: Query.Data.self, at: CacheNaming.queryRoot, variables: [:])
        await cacheWriter.write(checked)
        await writer.persisted()
        let warm = await writer.read(key: CacheNaming.queryRoot, selections: Query.Data.__selections, parent: Query.Data.__parentType, variables: [:], requestMaxAge: nil)

        let counting = CountingStore(try #require(SQLiteCache.storage(at: file).persistent))
        let reader = NormalizedStore(persistent: counting, logger: Logger(label: "test"))
        let cold = await reader.read(key: CacheNaming.queryRoot, selections: Query.Data.__selections, parent: Query.Data.__parentType, variables: [:], requestMaxAge: nil)
        let read = try #require(cold.data as JSONObject?)
        #expect(read == warm.data)
        #expect(Query.Data(_dataDict: DataDict(_data: read)).repository?.issues.nodes?.count == 100)
        let loads = counting.loads.withLock { $0 }
        // The root, the repository, the issues' connection, then a level each: the issues, their
        // authors and comments' connections, the comments, their authors. One query per list
        // (before) was over 200.
        #expect(loads.count <= 8, "\(loads.count) loads: \(loads.map(\.count))")
        let loaded = Set(loads.joined().filter { !CacheNaming.isRoot($0) })
        #expect(loaded.count == checked.records.count - 1, "every record but the root loaded once")
        #expect(loaded.isSubset(of: cold.dependencies.keys), "a record the read does not read was loaded")
    }
}

/// The SQLite store, counting the keys of each load.
private final class CountingStore: PersistentRecordStore, @unchecked Sendable {
    let base: any PersistentRecordStore
    let loads = Locked<[[String]]>([])

    init(_ base: any PersistentRecordStore) { self.base = base }

    var tracksUse: Bool { base.tracksUse }
    var location: String? { base.location }
    func load(_ keys: [String]) throws -> [String: CacheRecord] {
        loads.withLock { $0.append(keys) }
        return try base.load(keys)
    }
    func save(_ records: [CacheRecord], fields: [FieldChanges], removing: [String], unlessWrittenSince: Date?, used: [String], keeping: KeptRecords)
        throws -> Int
    {
        try base.save(records, fields: fields, removing: removing, unlessWrittenSince: unlessWrittenSince, used: used, keeping: keeping)
    }
    func loadFields(_ names: [String], of key: String) throws -> CacheRecord? { try base.loadFields(names, of: key) }
    func removeAll() throws { try base.removeAll() }
    func loadAll() throws -> [CacheRecord] { try base.loadAll() }
    func typeCounts() throws -> (byType: [String: Int], oldest: Date?) { try base.typeCounts() }
    func records(after key: String?, limit: Int) throws -> [CacheRecord] { try base.records(after: key, limit: limit) }
    func keys(after key: String?, receivedBy date: Date, limit: Int) throws -> [String] { try base.keys(after: key, receivedBy: date, limit: limit) }
    func rootKeys() throws -> [String] { try base.rootKeys() }
    func fieldNames(of key: String) throws -> [String] { try base.fieldNames(of: key) }
    func fieldsExpired(of key: String, before date: Date) throws -> [String] { try base.fieldsExpired(of: key, before: date) }
    func existing(_ keys: [String]) throws -> Set<String> { try base.existing(keys) }
    func bytesOnDisk() -> Int { base.bytesOnDisk() }
}
