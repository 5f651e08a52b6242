@_spi(Engine) @_spi(Generated) import APICore
import APICoreSupport
import Foundation

/// The one way into the cache. A server's answer (whole, with partial data, or in `@defer`
/// increments), a subscription event, a typed write or update, an optimistic response and the
/// answer to a replayed queued mutation are all checked and written here; raw record edits,
/// removals, clearing and optimistic layers go through it too. The store's changing methods ask
/// for an ``Access``, which only this file makes.
///
/// ``check(_:as:at:variables:errors:policy:mergingPages:recording:)`` checks data against its
/// selections and builds its records in the same walk (`SelectionValidator` with
/// `ResponseRecords`); the checked data is what the caller maps to its value, and
/// ``write(_:removingLayer:)`` merges the records into the store. Without a cache, data is still
/// checked and nothing is recorded.
package struct CacheWriter: Sendable {
    /// The store written to; `nil` for a client without a cache.
    package let store: NormalizedStore?
    /// The app's cache keys, by type name.
    package let keys: [String: CacheConfiguration.KeyFunction]

    /// What the store's changing methods ask for: only the writer has one, so every change to the
    /// cache goes through it.
    package struct Access: Sendable {
        fileprivate init() {}
    }

    private static let access = Access()

    /// The store's own collections (on open, after so many records written) as `policy` asks,
    /// granted by the writer: a collection removes records and expired fields, so it runs with the
    /// writer's access like every other change.
    package static func automaticCollection(_ policy: CacheConfiguration.GarbageCollection?) -> AutomaticCollection? {
        policy.map { AutomaticCollection(policy: $0, access: access) }
    }

    /// A collection policy with the writer's access to carry it out.
    package struct AutomaticCollection: Sendable {
        let policy: CacheConfiguration.GarbageCollection
        let access: Access
    }

    /// A writer into `store` (none: data is only checked), with the app's cache keys.
    package init(store: NormalizedStore?, keys: [String: CacheConfiguration.KeyFunction] = [:]) {
        self.store = store
        self.keys = keys
    }

    /// Data checked against the selections of `Data`, and the records it makes under `key`.
    package struct Checked<Data: SelectionSet>: Sendable {
        /// The data, checked (fields that conditions left out removed, pending fragments listed):
        /// a tree when records were built from it, else possibly still on the answer's tape.
        package var data: DataDict
        /// The records made trees, by key.
        package var recordTrees: [String: JSONObject] = [:]
        /// The records still on the answer's tape (``check(_:as:at:variables:errors:policy:mergingPages:recording:keepingOnTape:)``
        /// with `keepingOnTape`), by key.
        package var onTape: [String: TapeRecord] = [:]
        /// The records, by key (those on the tape made trees).
        package var records: [String: JSONObject] {
            guard !onTape.isEmpty else { return recordTrees }
            return recordTrees.merging(onTape.mapValues(\.fields)) { tree, _ in tree }
        }
        /// How many records there are.
        package var recordCount: Int { recordTrees.count + onTape.count }
        /// When the records' fields expire, by record key and storage key.
        package var expires: [String: [String: Date]] = [:]
        /// Where the data goes (a root record, or a fragment's record), and what it was checked
        /// under: the records of merged pages are built from these again.
        let key: String
        let variables: JSONObject
        let errors: [GraphQLError]
        let policy: ServerCachePolicy
        /// How the data's connection pages join the lists the cache holds.
        var pages: PageMerge = .none
    }

    /// How a page of a connection joins the list the cache holds.
    package enum PageMerge: Sendable {
        /// The data holds no page to join (or nothing is recorded).
        case none
        /// The page's references are spliced into the stored lists, in the write.
        case splicing([ConnectionPages.Splice])
        /// The page has items without identity: the write reads the list, merges the page into
        /// it, and records the whole.
        case rereading
    }

    /// Checks `data` against the selections of `Data` and, with a store, builds its records under
    /// `key` in the same walk. `errors` are those of a response with partial data (the fields they
    /// name are not recorded); `policy` is what the server said about caching the answer. With
    /// `mergingPages` (a server's page of a connection), the records wait for the write; without
    /// `recording` (data that is not written), none are built.
    package func check<Data: SelectionSet>(
        _ data: JSONObject, as _: Data.Type, at key: String, variables: JSONObject, errors: [GraphQLError] = [],
        policy: ServerCachePolicy = .none, mergingPages: Bool = false, recording: Bool = true
    ) throws(GraphQLDecodingError) -> Checked<Data> {
        var checked = Checked<Data>(data: DataDict(_data: data), key: key, variables: variables, errors: errors, policy: policy)
        let recording = recording && store != nil
        var validator = SelectionValidator(variables: variables, recorder: recording ? records(of: checked) : nil)
        let root = validator.recorder?.place(key: key)
        var object = data
        try validator.validate(&object, selections: Data.__selections, in: Data.__parentType, recordingAt: root)
        checked.data = DataDict(_data: object)
        guard let records = validator.recorder else { return checked }
        if mergingPages && ConnectionPages.appear(in: Data.self) {
            guard !records.hasUnidentifiedPageItems else {
                // Recorded again from the merged list, in the write.
                checked.pages = .rereading
                return checked
            }
            let splices = ConnectionPages(variables: variables).splices(in: object, selections: Data.__selections, at: key, records: records)
            if !splices.isEmpty { checked.pages = .splicing(splices) }
        }
        checked.recordTrees = records.records
        checked.expires = records.expires
        return checked
    }

    /// ``check(_:as:at:variables:errors:policy:mergingPages:recording:)`` for data as it was read:
    /// data still on its tape is checked there, and its records (with a store) built in the same
    /// walk; the data stays on the tape. A server's page of a connection, and an answer only the
    /// tree's walk takes (a deferred fragment, a field a condition left out but sent), go over
    /// the tree. With `keepingOnTape`, a record that is an object of the tape whole stays there
    /// until it is written (``Checked/onTape``: a subscription's events written together).
    package func check<Data: SelectionSet>(
        _ data: ReadObject, as _: Data.Type, at key: String, variables: JSONObject, errors: [GraphQLError] = [],
        policy: ServerCachePolicy = .none, mergingPages: Bool = false, recording: Bool = true, keepingOnTape: Bool = false
    ) throws(GraphQLDecodingError) -> Checked<Data> {
        let recording = recording && store != nil
        if case .tape(let value) = data, !(recording && mergingPages && ConnectionPages.appear(in: Data.self)) {
            var records = recording ? self.records(variables: variables, errors: errors, policy: policy, keepingOnTape: keepingOnTape) : nil
            let root = records?.place(key: key)
            if try TapeCheck.check(value, plan: TapePlan.of(Data.self), variables: variables, recorder: &records, at: root) {
                var checked = Checked<Data>(data: Data(checkedOnTape: value).__data, key: key, variables: variables, errors: errors, policy: policy)
                checked.recordTrees = records?.records ?? [:]
                checked.onTape = records?.onTape ?? [:]
                checked.expires = records?.expires ?? [:]
                return checked
            }
        }
        return try check(data.tree, as: Data.self, at: key, variables: variables, errors: errors, policy: policy, mergingPages: mergingPages, recording: recording)
    }

    /// ``check(_:as:at:variables:errors:policy:mergingPages:recording:)`` for data built or changed
    /// on the client (a typed write, an update, an optimistic response): a mismatch is the
    /// caller's mistake.
    package func check<Data: SelectionSet>(local data: JSONObject, as _: Data.Type, at key: String, named name: String, variables: JSONObject)
        throws(APIError) -> Checked<Data>
    {
        do throws(GraphQLDecodingError) {
            return try check(data, as: Data.self, at: key, variables: variables)
        } catch {
            throw .invalidRequest("the data written for \(name) does not match its selections: \(error)")
        }
    }

    /// The records of checked data, to be built (`nil` without a cache).
    private func records<Data>(of checked: Checked<Data>) -> ResponseRecords? {
        records(variables: checked.variables, errors: checked.errors, policy: checked.policy)
    }

    /// Records to build from a response's data, as the server's policy says they expire; `nil`
    /// without a cache.
    package func records(
        variables: JSONObject, errors: [GraphQLError] = [], policy: ServerCachePolicy = .none, receivedAt: Date = Date(), keepingOnTape: Bool = false
    ) -> ResponseRecords? {
        guard store != nil else { return nil }
        return ResponseRecords(
            variables: variables, keyFunctions: keys, errors: errors,
            expiry: policy.maxAge.map { receivedAt.addingTimeInterval($0.seconds) },
            expiryByPath: policy.hints.mapValues { receivedAt.addingTimeInterval($0.seconds) }, receivedAt: receivedAt,
            keepingOnTape: keepingOnTape)
    }

    /// Writes checked data; `layer` is an optimistic layer the write takes away in the same step.
    /// Connection pages join the lists the cache has, read and written together (so that two
    /// pages written at once both stay).
    package func write<Data>(_ checked: Checked<Data>, removingLayer layer: UInt64? = nil) async {
        guard let store else { return }
        switch checked.pages {
        case .none:
            await store.merge(checked.records, expires: checked.expires, removingLayer: layer, by: Self.access)
        case .splicing(let splices):
            await store.transaction { @Sendable store in
                var records = checked.records
                // Loaded at once (a persistent store), and known absent when new.
                store.preload(records.keys.filter { !CacheNaming.isRoot($0) })
                ConnectionPages.splice(
                    splices, into: &records, existing: { store.record($0)?.fields }, field: { store.storedField($0, of: $1) })
                store.merge(records, expires: checked.expires, removingLayer: layer, by: Self.access)
            }
        case .rereading:
            await rereadingPages(checked, into: store, removingLayer: layer)
        }
    }

    /// Writes several checked data in order, in one step on the store when none joins connection
    /// pages (a subscription's events that arrived together). Their records are joined first,
    /// each field as the last of them wrote it (its value and its expiry: what the store would
    /// hold after writing them one by one), so that an object every event carries is compared
    /// and saved once; the watchers of what changed are told.
    package func write<Data>(_ batch: [Checked<Data>]) async {
        guard let store, let first = batch.first else { return }
        guard batch.count > 1 else { return await write(first) }
        for checked in batch {
            guard case .none = checked.pages else {
                for checked in batch { await write(checked) }
                return
            }
        }
        var joined = JoinedRecords()
        for checked in batch { joined.join(checked) }
        let (records, expires) = joined.finished()
        await store.merge(records, expires: expires, by: Self.access)
    }

    /// Writes a page whose items have no identity: the list the cache has, read, the page merged
    /// into it, and the whole recorded again.
    private func rereadingPages<Data>(_ checked: Checked<Data>, into store: NormalizedStore, removingLayer layer: UInt64?) async {
        await store.transaction { @Sendable store in
            var data = checked.data._data
            if let existing = store.read(
                key: checked.key, selections: Data.__selections, parent: Data.__parentType, variables: checked.variables, requestMaxAge: nil,
                layered: false
            ).data {
                data = ConnectionPages(variables: checked.variables).merge(data, into: existing, selections: Data.__selections)
            }
            // Both were checked against the same selections, so the merged data passes; were it not
            // to, the page alone is written.
            let merged = (try? recorded(data, like: checked)) ?? (try? recorded(checked.data._data, like: checked))
            store.merge(merged?.records ?? [:], expires: merged?.expires ?? [:], removingLayer: layer, by: Self.access)
        }
    }

    /// `data` checked and recorded as `checked` was.
    private func recorded<Data>(_ data: JSONObject, like checked: Checked<Data>) throws(GraphQLDecodingError) -> ResponseRecords? {
        var object = data
        var validator = SelectionValidator(variables: checked.variables, recorder: records(of: checked))
        let root = validator.recorder?.place(key: checked.key)
        try validator.validate(&object, selections: Data.__selections, in: Data.__parentType, recordingAt: root)
        return validator.recorder
    }

    /// Writes checked data if reading `selection` (without optimistic layers) still gives
    /// `expected`: the write of a read-change-write that no other write came into. Answers
    /// whether it wrote.
    package func write<Data>(_ checked: Checked<Data>, ifStill expected: JSONObject, at selection: CacheSelection) async -> Bool {
        guard let store else { return false }
        return await store.merge(checked.records, ifStill: expected, at: selection, by: Self.access)
    }

    /// Writes records that were checked before (an increment's, a queued mutation's answer);
    /// `layer` is an optimistic layer the write takes away in the same step.
    package func write(records: [String: JSONObject], expires: [String: [String: Date]] = [:], removingLayer layer: UInt64? = nil) async {
        guard let store, !records.isEmpty || layer != nil else { return }
        await store.merge(records, expires: expires, removingLayer: layer, by: Self.access)
    }

    /// Replaces one record's fields by what `update` makes of them (a raw edit, unchecked).
    package func update(_ key: String, _ update: @Sendable (inout JSONObject) -> Void) async {
        await store?.update(key, by: Self.access, update)
    }

    /// Removes one record.
    package func remove(_ key: String) async {
        await store?.remove(key, by: Self.access)
    }

    /// Removes every record and optimistic layer, in memory and in the persistent store.
    package func removeAll() async {
        await store?.removeAll(by: Self.access)
    }

    /// Lays checked data over the cache as an optimistic layer until ``removeLayer(_:)``; answers
    /// its id (`nil` without a cache).
    package func lay<Data>(_ checked: Checked<Data>) async -> UInt64? {
        await lay(records: checked.records)
    }

    /// Lays records that were checked before (a queued mutation's optimistic answer, from an
    /// earlier launch) over the cache as an optimistic layer; answers its id.
    package func lay(records: [String: JSONObject]) async -> UInt64? {
        await store?.addLayer(records, by: Self.access)
    }

    /// Collects the store's garbage (``NormalizedStore/collectGarbage(maxStaleness:by:)``): expired
    /// records and fields, dangling references, unreachable records. Nothing without a store.
    package func collectGarbage(maxStaleness: Duration) async -> CacheCollection {
        await store?.collectGarbage(maxStaleness: maxStaleness, by: Self.access) ?? CacheCollection()
    }

    /// Sets up a collection whose slices the store's `collectSlice()` runs, one at a time (for
    /// tests that stop between slices).
    package func prepareCollection(maxStaleness: Duration) async {
        await store?.prepareCollection(maxStaleness: maxStaleness, by: Self.access)
    }

    /// Takes an optimistic layer away; its records' watchers are told.
    package func removeLayer(_ id: UInt64) async {
        await store?.removeLayer(id, by: Self.access)
    }
}

extension CacheWriter {
    /// A server's data checked against the operation's selections, with its records built in the
    /// same walk (unless not `recording`; `keepingOnTape` as the check of a `ReadObject` above):
    /// `errors` are those of partial data, `policy` what the server said of caching it; data of the
    /// wrong shape is an invalid response.
    func check<Operation: GraphQLOperation, Value>(
        _ data: ReadObject, of request: GraphQLRequest<Operation, Value>, errors: [GraphQLError] = [], policy: ServerCachePolicy = .none,
        recording: Bool = true, keepingOnTape: Bool = false, response: TransportResponse?
    ) throws(APIError) -> CacheWriter.Checked<Operation.Data> {
        do throws(GraphQLDecodingError) {
            return try check(
                data, as: Operation.Data.self, at: CacheNaming.rootKey(for: Operation.operationType), variables: request.operation.coercedVariables,
                errors: errors, policy: policy, mergingPages: true, recording: recording, keepingOnTape: keepingOnTape)
        } catch {
            throw .invalidResponse(InvalidResponse(
                kind: .wrongShape(error.prefixed(by: .field("data"))), statusCode: response?.statusCode, request: Operation.operationName,
                bodyExcerpt: HTTPFailure.excerpt(of: response?.body ?? Data())))
        }
    }
}
