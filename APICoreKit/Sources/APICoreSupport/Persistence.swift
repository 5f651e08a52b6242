@_spi(Engine) @_spi(Generated) import APICore
import Foundation

// What the engine and the persistent stores share: records as the normalized cache keeps them,
// the protocols a store across launches implements, and the offline queue's stored mutations.

/// Where the normalized cache keeps its records: in memory only, or in memory in front of a
/// persistent store (see `APICoreSQLite`).
public struct NormalizedCacheStorage: Sendable {
    package let persistent: (any PersistentRecordStore)?
    /// Where the offline queue keeps its mutations; `nil`: in memory, for the life of the client.
    package let queue: (any PersistentMutationQueue)?
    /// Whether the client only reads this storage: it reads and watches records, and hears of
    /// what other processes write, but writes nothing there (answers from the server are kept in
    /// memory only) and refuses what would change it: mutations and writes through `client.cache`
    /// (see `SQLiteCache.readOnlyStorage(at:logger:)`).
    public let isReadOnly: Bool

    package init(persistent: (any PersistentRecordStore)?, queue: (any PersistentMutationQueue)? = nil, readOnly: Bool = false) {
        self.persistent = persistent
        self.queue = queue
        self.isReadOnly = readOnly
    }

    /// Records in memory, for the life of the client.
    public static let inMemory = NormalizedCacheStorage(persistent: nil)
}

/// One normalized record: an object's fields by storage key (`name` or `name(arg:value)`),
/// references to other records as `{"__ref": key}`, when it was last received, and when the
/// fields a server gave a maximum age expire.
package struct CacheRecord: Sendable, Equatable {
    package var key: String
    package var fields: JSONObject
    package var receivedAt: Date
    /// Expiry by storage key, for the fields whose server said how long they may be cached.
    package var expires: [String: Date]

    package init(key: String, fields: JSONObject, receivedAt: Date, expires: [String: Date] = [:]) {
        self.key = key
        self.fields = fields
        self.receivedAt = receivedAt
        self.expires = expires
    }
}

extension CacheRecord {
    /// Fills in, from `stored`, the fields this record (what memory has, never older) lacks,
    /// with their expiry; the later of the two receipts is kept.
    package mutating func fill(from stored: CacheRecord) {
        fields.merge(stored.fields) { memory, _ in memory }
        expires.merge(stored.expires) { memory, _ in memory }
        receivedAt = max(receivedAt, stored.receivedAt)
    }
}

/// A store that keeps records across launches. The engine keeps the records it uses in memory
/// in front of it, merges there, and hands the store whole records to save, and for root records
/// (``RootRecordKey``) the fields that changed.
package protocol PersistentRecordStore: Sendable {
    /// Whether the store has a size bound and so wants to know which records are used
    /// (``save(_:fields:removing:unlessWrittenSince:used:keeping:)``'s `used`).
    var tracksUse: Bool { get }
    /// The records with these keys that exist.
    func load(_ keys: [String]) throws -> [String: CacheRecord]
    /// Saves these records (replacing same keys) and these changes to records kept field by
    /// field, removes those keys and marks the `used` ones as just used, in one transaction; a
    /// store over its size bound then removes the least recently used records that `keeping`
    /// does not keep. Answers how many it removed so.
    ///
    /// With `unlessWrittenSince`, a key to remove stays when its record was received after that
    /// time (another client of the store, such as another process on the same file, wrote it
    /// since): garbage collection removes only what was there when it began.
    @discardableResult
    func save(
        _ records: [CacheRecord], fields: [FieldChanges], removing: [String], unlessWrittenSince: Date?, used: [String], keeping: KeptRecords
    ) throws -> Int
    /// Those of `names` that the root record `key` has; `nil` when the store has none of them.
    func loadFields(_ names: [String], of key: String) throws -> CacheRecord?
    /// Removes every record.
    func removeAll() throws
    /// Every record (to find keys by pattern).
    func loadAll() throws -> [CacheRecord]
    /// How many records there are of each type (`__typename`; a root under its key, a record
    /// without one under `(untyped)`), and when the one received longest ago was: counted by the
    /// store, not read into memory.
    func typeCounts() throws -> (byType: [String: Int], oldest: Date?)
    /// Up to `limit` of the records kept whole, in key order, after `key` (from the first when
    /// `nil`): garbage collection reads the store a page at a time.
    func records(after key: String?, limit: Int) throws -> [CacheRecord]
    /// Up to `limit` keys of the records kept whole that were received at `receivedBy` or
    /// before, in key order, after `key`.
    func keys(after key: String?, receivedBy: Date, limit: Int) throws -> [String]
    /// The keys of the records kept field by field (the roots).
    func rootKeys() throws -> [String]
    /// The names of the fields of a record kept field by field.
    func fieldNames(of key: String) throws -> [String]
    /// The fields of a record kept field by field whose expiry is before `date`.
    func fieldsExpired(of key: String, before date: Date) throws -> [String]
    /// Those of `keys` that the store has.
    func existing(_ keys: [String]) throws -> Set<String>
    /// The size of the store's files in bytes.
    func bytesOnDisk() -> Int
    /// Where the store keeps its records (a file's path), so that two stores of the same place in
    /// one process can wait for each other's writes; `nil` when it cannot be shared.
    var location: String? { get }
    /// What other clients of the store (other processes on the same file) wrote or removed after
    /// `position`; from `nil`, nothing, at the position where the store is now. A store that only
    /// this client uses answers nothing.
    func changes(after position: Int64?) throws -> StoreChanges
    /// A number that differs from the last one it answered whenever any client (this one
    /// included) committed to the store since, read without a transaction: what lets a look at
    /// ``changes(after:)`` be skipped while nothing happens. `nil` when the store cannot tell.
    func commitVersion() -> Int64?
}

extension PersistentRecordStore {
    /// Not shared.
    package var location: String? { nil }
    /// No other client.
    package func changes(after position: Int64?) throws -> StoreChanges { StoreChanges(position: position ?? 0) }
    /// Nothing to tell.
    package func commitVersion() -> Int64? { nil }
}

/// What other clients of a persistent store changed since a position of its change log.
package struct StoreChanges: Sendable, Equatable {
    /// The position these changes bring the reader to.
    package var position: Int64
    /// The record keys written or removed, and the fields of roots (kept field by field) as
    /// ``CacheNaming/fieldDependency(_:_:)`` names them.
    package var keys: [String]
    /// Whether anything may have changed: another client cleared the store, or wrote more than
    /// the log keeps since `position`.
    package var everything: Bool

    package init(position: Int64, keys: [String] = [], everything: Bool = false) {
        self.position = position
        self.keys = keys
        self.everything = everything
    }
}

/// A change to some fields of a root record, which the store keeps field by field so that a
/// write costs what it changes rather than the whole root. A store answers such a record, assembled, from ``PersistentRecordStore/load(_:)``.
package struct FieldChanges: Sendable, Equatable {
    package var key: String
    /// The fields written, by storage key.
    package var set: JSONObject
    /// The expiry of those written fields that have one.
    package var expires: [String: Date]
    /// The fields removed.
    package var removed: [String]
    package var receivedAt: Date

    package init(key: String, set: JSONObject, expires: [String: Date] = [:], removed: [String] = [], receivedAt: Date) {
        self.key = key
        self.set = set
        self.expires = expires
        self.removed = removed
        self.receivedAt = receivedAt
    }
}

/// The records a store must not trim: those active watchers read.
package struct KeptRecords: Sendable {
    package let contains: @Sendable (String) -> Bool

    package init(_ contains: @escaping @Sendable (String) -> Bool) { self.contains = contains }

    /// None.
    package static let none = KeptRecords { _ in false }
}

/// A mutation as the offline queue keeps it across launches: what is needed to send it again
/// without its generated type (name, document, variables), the records of its optimistic
/// response, and why the server refused it, if it did.
package struct StoredMutation: Sendable, Equatable {
    package var id: String
    package var operationName: String
    package var document: String
    package var variables: JSONObject
    /// The optimistic response's records, by key, laid over the cache until the mutation is done.
    package var optimistic: [String: JSONObject]?
    package var enqueuedAt: Date
    /// The refusal, as ``APIError/queueRecord`` writes it; `nil` while it waits.
    package var failure: JSONObject?

    package init(
        id: String, operationName: String, document: String, variables: JSONObject, optimistic: [String: JSONObject]?, enqueuedAt: Date,
        failure: JSONObject? = nil
    ) {
        self.id = id
        self.operationName = operationName
        self.document = document
        self.variables = variables
        self.optimistic = optimistic
        self.enqueuedAt = enqueuedAt
        self.failure = failure
    }
}

/// Where the offline queue keeps its mutations across launches (the SQLite cache's file).
package protocol PersistentMutationQueue: Sendable {
    /// Every mutation kept, in queue order.
    func loadQueue() throws -> [StoredMutation]
    /// Adds a mutation at the end, durably before it returns.
    func enqueue(_ mutation: StoredMutation) throws
    /// Records why the server refused a mutation.
    func setFailure(_ failure: JSONObject, of id: String) throws
    /// Removes a mutation.
    func removeQueued(_ id: String) throws
    /// Claims the right to send the queue for `holder` until `until`, or renews its claim;
    /// answers whether `holder` has it. Another holder's claim stands until it expires (a process
    /// killed while it sent leaves its claim to expire), so that one process at a time sends.
    func claimQueue(for holder: String, until: Date) throws -> Bool
    /// Gives `holder`'s claim up (nothing when another holder has it).
    func releaseQueue(for holder: String) throws
}

extension PersistentMutationQueue {
    /// A queue only this client uses: always its own.
    package func claimQueue(for holder: String, until: Date) throws -> Bool { true }
    package func releaseQueue(for holder: String) throws {}
}

extension APIError {
    /// Why a mutation that uploads files is not queued.
    package static func uploadsCannotWait(_ operationName: String) -> APIError {
        .invalidRequest("\(operationName) uploads files, and a mutation with uploads cannot wait in the offline queue: perform it instead")
    }

    /// The error as a queued mutation keeps it on disk: a GraphQL failure's errors and status, an
    /// HTTP failure's status and body excerpt, anything else its description.
    package var queueRecord: JSONObject {
        switch self {
        case .graphQL(let failure):
            return [
                "errors": .array(failure.errors.map(\.jsonValue)),
                "status": failure.statusCode.map { .int($0) } ?? .null,
            ]
        case .httpStatus(let failure), .unauthorized(let failure):
            return ["status": .int(failure.statusCode), "body": .string(failure.bodyExcerpt)]
        default:
            return ["message": .string(description)]
        }
    }

    /// An error as ``queueRecord`` kept it, for the mutation `operationName`.
    package init(queueRecord record: JSONObject, operationName: String) {
        if let errors = record["errors"]?.arrayValue {
            self = .graphQL(GraphQLFailure(
                errors: errors.map(GraphQLError.init(json:)), partialData: nil, statusCode: record["status"]?.intValue,
                operationName: operationName))
        } else if let status = record["status"]?.intValue {
            let failure = HTTPFailure(statusCode: status, headers: [:], body: Data((record["body"]?.stringValue ?? "").utf8), url: nil)
            self = status == 401 ? .unauthorized(failure) : .httpStatus(failure)
        } else {
            self = .invalidRequest(record["message"]?.stringValue ?? "\(operationName) was refused by the server")
        }
    }
}
