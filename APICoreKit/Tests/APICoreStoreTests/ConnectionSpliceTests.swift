@_spi(Generated) @testable import APICore
import APICoreSupport
@testable import APICoreLive
import Foundation
import Logging
import StarWarsOperations
import Testing

/// `query { items(first: $first, after: $after, last: $last, before: $before, offset: $offset) { pageInfo { startCursor endCursor }
/// edges { cursor node { __typename id name } } nodes { __typename id name } total } }`, `items` a connection field; `Item` is
/// keyed by `id`, so every page's items have an identity and pages are spliced in by reference.
private struct KeyedPages: RootSelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = ParentType.object("Query")
    static let __selections = PageText.root(Connection<Item>.self)
    struct Item: SelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Item", keyFields: ["id"])
        static let __selections = PageText.item
    }
}

/// The same query with `Item` not keyed: items have no identity, and pages are merged with the
/// list read from the cache.
/// The keyed connection and, beside it, one item the root refers to (`favorite`).
private struct PagesAndFavorite: RootSelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = ParentType.object("Query")
    static let __selections = PageText.root(Connection<KeyedPages.Item>.self) + Selection.parse(#"[["favorite","0"]]"#, KeyedPages.Item.self)
}

private struct UnkeyedPages: RootSelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = ParentType.object("Query")
    static let __selections = PageText.root(Connection<Item>.self)
    struct Item: SelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Item")
        static let __selections = PageText.item
    }
}

private struct Connection<Item: SelectionSet>: SelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static var __parentType: ParentType { .object("ItemConnection") }
    static var __selections: [Selection] {
        Selection.parse(#"[["pageInfo","0!"],["edges","[1!]!"],["nodes","[2!]!"],["total","3!"]]"#, PageInfo.self, Edge<Item>.self, Item.self, Int.self)
    }
}

private struct PageInfo: SelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = ParentType.object("PageInfo")
    static let __selections = Selection.parse(#"[["startCursor","0"],["endCursor","0"]]"#, String.self)
}

private struct Edge<Item: SelectionSet>: SelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static var __parentType: ParentType { .object("ItemEdge") }
    static var __selections: [Selection] { Selection.parse(#"[["cursor","0!"],["node","1!"]]"#, String.self, Item.self) }
}

private enum PageText {
    static func root(_ connection: any SelectionSet.Type) -> [Selection] {
        Selection.parse(
            #"[["items","0!",{"args":{"first":{"$":"first"},"after":{"$":"after"},"last":{"$":"last"},"before":{"$":"before"},"offset":{"$":"offset"}},"page":["first","after","last","before","offset"]}]]"#,
            connection)
    }
    static let item = Selection.parse(#"[["__typename","0!"],["id","0!"],["name","0!"]]"#, String.self)
}

@Suite("Connection pages spliced into the cached list")
struct ConnectionSpliceTests {
    /// A page of `ids` written `step`-th, and the variables that place it.
    static func page(_ ids: [Int], step: Int, typename: String) -> JSONObject {
        let items: [JSONValue] = ids.map { ["__typename": .string(typename), "id": .string("\($0)"), "name": .string("item \($0) at \(step)")] }
        return ["items": [
            "pageInfo": ["startCursor": .string("start \(step)"), "endCursor": .string("end \(step)")],
            "edges": .array(items.map { ["cursor": .string("cursor \(step)"), "node": $0] }), "nodes": .array(items), "total": .int(step),
        ]]
    }

    static func variables(_ position: ConnectionPages.Position) -> JSONObject {
        switch position {
        case .first: return ["first": 3]
        case .after: return ["first": 3, "after": "x"]
        case .before: return ["last": 3, "before": "x"]
        case .offset(let offset): return ["first": 3, "offset": .int(offset)]
        }
    }

    /// Random page sequences (seeded) written into a store, each read back and compared with the
    /// same pages merged whole, as JSON.
    func compareWithWholeListMerge<Data: RootSelectionSet>(_: Data.Type, typename: String, splices: Bool) async throws {
        var random = SeededGenerator(seed: 35)
        for sequence in 0..<120 {
            let store = NormalizedStore(persistent: nil, logger: Logger(label: "test"))
            let writer = CacheWriter(store: store)
            var model: JSONObject?
            for step in 0..<6 {
                let listCount = model?["items"]?["nodes"]?.arrayValue?.count ?? 0
                let position: ConnectionPages.Position =
                    step == 0 ? .first : [.first, .after, .after, .before, .offset(Int.random(in: 1...listCount + 2, using: &random))].randomElement(using: &random)!
                let ids = Array((1...12).shuffled(using: &random).prefix(Int.random(in: 1...4, using: &random)))
                let data = Self.page(ids, step: step, typename: typename)
                let variables = Self.variables(position)
                let checked = try writer.check(data, as: Data.self, at: CacheNaming.queryRoot, variables: variables, mergingPages: true)
                if case .splicing = checked.pages { #expect(splices) } else if position != .first { #expect(!splices) }
                await writer.write(checked)
                model = model.map { ConnectionPages(variables: variables).merge(checked.data._data, into: $0, selections: Data.__selections) } ?? checked.data._data
                let read = await store.read(
                    key: CacheNaming.queryRoot, selections: Data.__selections, parent: Data.__parentType, variables: variables, requestMaxAge: nil
                ).data
                #expect(read == model, "sequence \(sequence), step \(step), \(position): \(ids)")
                if read != model { return }
            }
        }
    }

    @Test("pages of items with identity are spliced by reference: every sequence reads as the whole list merged")
    func keyed() async throws {
        try await compareWithWholeListMerge(KeyedPages.self, typename: "Item", splices: true)
    }

    @Test("pages of items without identity are merged with the list read back: every sequence reads as the whole list merged")
    func unkeyed() async throws {
        try await compareWithWholeListMerge(UnkeyedPages.self, typename: "Item", splices: false)
    }

    @Test("a connection's edges are keyed by their node, so a page put in front leaves the records after it as they were")
    func edgesKeyedByNode() async throws {
        let store = NormalizedStore(persistent: nil, logger: Logger(label: "test"))
        let writer = CacheWriter(store: store)
        await writer.write(try writer.check(Self.page([1, 2], step: 0, typename: "Item"), as: KeyedPages.self, at: CacheNaming.queryRoot, variables: Self.variables(.first), mergingPages: true))
        let edge = await store.record("QUERY_ROOT.items.edges.Item:1")
        #expect(edge?.fields["cursor"] == "cursor 0")
        let front = try writer.check(Self.page([3], step: 1, typename: "Item"), as: KeyedPages.self, at: CacheNaming.queryRoot, variables: Self.variables(.before), mergingPages: true)
        // Only the page's own records, the list's and pageInfo's.
        #expect(Set(front.records.keys) == ["QUERY_ROOT", "QUERY_ROOT.items", "QUERY_ROOT.items.pageInfo", "QUERY_ROOT.items.edges.Item:3", "Item:3"])
        await writer.write(front)
        let list = await store.record("QUERY_ROOT.items")?.fields["edges"]?.arrayValue?.compactMap(CacheNaming.referencedKey)
        #expect(list == ["QUERY_ROOT.items.edges.Item:3", "QUERY_ROOT.items.edges.Item:1", "QUERY_ROOT.items.edges.Item:2"])
    }
}

@Suite("A watcher reads again only what changed")
struct WatcherMemoTests {
    @Test("after random pages, item changes, removals and optimistic layers, a watcher's read equals a fresh read")
    func memoEqualsFreshRead() async throws {
        var random = SeededGenerator(seed: 0x3E40)
        let store = NormalizedStore(persistent: nil, logger: Logger(label: "test"))
        let writer = CacheWriter(store: store)
        let variables = ConnectionSpliceTests.variables(.first)
        let selection = CacheSelection(KeyedPages.self, at: CacheNaming.queryRoot, variables: variables)
        await writer.write(try writer.check(ConnectionSpliceTests.page([1, 2, 3], step: 0, typename: "Item"), as: KeyedPages.self, at: CacheNaming.queryRoot, variables: variables, mergingPages: true))
        let seen = Locked<CacheRead?>(nil)
        let id = await store.transaction { @Sendable store in
            let id = store.addWatcher(dependencies: [], selection: selection.memoKey) { store in
                let read = store.read(selection)
                seen.withLock { $0 = read }
                return read.dependencies
            }
            let first = store.read(selection)
            seen.withLock { $0 = first }
            store.setDependencies(first.dependencies, of: id)
            return id
        }
        var layers: [UInt64] = []
        var grown = 0
        for step in 1...300 {
            switch Int.random(in: 0..<6, using: &random) {
            case 0, 1:
                let position: ConnectionPages.Position = [.after, .before, .offset(Int.random(in: 1...6, using: &random)), .first].randomElement(using: &random)!
                let ids = Array((1...40).shuffled(using: &random).prefix(Int.random(in: 1...5, using: &random)))
                let checked = try writer.check(ConnectionSpliceTests.page(ids, step: step, typename: "Item"), as: KeyedPages.self, at: CacheNaming.queryRoot, variables: ConnectionSpliceTests.variables(position), mergingPages: true)
                await writer.write(checked)
            case 2:
                let item = Int.random(in: 1...40, using: &random)
                await CacheWriter(store: store).update("Item:\(item)") { $0["name"] = .string("renamed at \(step)") }
            case 3 where step % 7 == 0:
                // A record gone: the list misses, until a page brings it back.
                await CacheWriter(store: store).remove("Item:\(Int.random(in: 1...40, using: &random))")
            case 4:
                layers.append(try #require(await CacheWriter(store: store).lay(records: ["Item:\(Int.random(in: 1...40, using: &random))": ["name": .string("optimistic \(step)")]])))
            default:
                if let layer = layers.popLast() { await CacheWriter(store: store).removeLayer(layer) }
            }
            // Read without the memo (a selection no watcher watches).
            var unwatched = selection
            unwatched.memoKey = nil
            let fresh = await store.read(unwatched)
            let watched = seen.withLock { $0 }
            #expect(watched?.data == fresh.data, "step \(step)")
            #expect(watched?.dependencies.keys == fresh.dependencies.keys, "step \(step)")
            // The index holds the same, whether the read replaced the keys or added to them.
            let indexed = await store.dependencies(ofWatcher: id)
            #expect(indexed?.held == fresh.dependencies.keys && indexed?.indexed == fresh.dependencies.keys, "step \(step)")
            if watched?.dependencies.growth != nil { grown += 1 }
            if watched?.data != fresh.data { break }
        }
        // Pages put after the list grew it: some reads were handed on as what they added.
        #expect(grown > 0)
        await store.removeWatcher(id)
        #expect(await store.transaction { @Sendable store in !store.watchers.hasMemos })
    }

    @Test("pages that grow the list are added to the watcher's keys; a write that also changes another field's object replaces them")
    func growthAndChange() async throws {
        let store = NormalizedStore(persistent: nil, logger: Logger(label: "test"))
        let writer = CacheWriter(store: store)
        func write(_ ids: [Int], step: Int, _ position: ConnectionPages.Position, favorite: Int) async throws {
            var data = ConnectionSpliceTests.page(ids, step: step, typename: "Item")
            data["favorite"] = ["__typename": "Item", "id": .string("\(favorite)"), "name": .string("favorite \(favorite)")]
            let variables = ConnectionSpliceTests.variables(position)
            await writer.write(try writer.check(data, as: PagesAndFavorite.self, at: CacheNaming.queryRoot, variables: variables, mergingPages: true))
        }
        let selection = CacheSelection(PagesAndFavorite.self, at: CacheNaming.queryRoot, variables: ConnectionSpliceTests.variables(.first))
        try await write([1, 2], step: 0, .first, favorite: 100)
        let last = Locked<CacheRead?>(nil)
        let id = await store.addWatcher(of: selection, label: "test", refresh: { store in
            let read = store.read(selection)
            last.withLock { $0 = read }
            return read.dependencies
        }, initial: { read in last.withLock { $0 = read } })
        var unwatched = selection
        unwatched.memoKey = nil
        for (step, favorite) in [(1, 100), (2, 100), (3, 101), (4, 101)] {
            try await write([2 * step + 1, 2 * step + 2], step: step, .after, favorite: favorite)
            let fresh = await store.read(unwatched)
            let indexed = await store.dependencies(ofWatcher: id)
            #expect(indexed?.held == fresh.dependencies.keys && indexed?.indexed == fresh.dependencies.keys, "step \(step)")
            // The list grew alone at steps 2 and 4: what the page added was handed on.
            #expect((last.withLock { $0?.dependencies.growth } != nil) == (step == 2 || step == 4), "step \(step)")
        }
        #expect(await store.dependencies(ofWatcher: id)?.held.contains("Item:101") == true)
        #expect(await store.dependencies(ofWatcher: id)?.held.contains("Item:100") == false)
        await store.removeWatcher(id)
    }

    @Test("an object the list dropped, changed while unwatched, and back unchanged, reads as it is now")
    func droppedThenBack() async throws {
        let store = NormalizedStore(persistent: nil, logger: Logger(label: "test"))
        let writer = CacheWriter(store: store)
        func write(_ ids: [Int], step: Int, _ position: ConnectionPages.Position) async throws {
            let variables = ConnectionSpliceTests.variables(position)
            await writer.write(try writer.check(ConnectionSpliceTests.page(ids, step: step, typename: "Item"), as: KeyedPages.self, at: CacheNaming.queryRoot, variables: variables, mergingPages: true))
        }
        let selection = CacheSelection(KeyedPages.self, at: CacheNaming.queryRoot, variables: ConnectionSpliceTests.variables(.first))
        try await write([1, 2], step: 0, .first)
        let seen = Locked<JSONObject?>(nil)
        let id = await store.addWatcher(of: selection, label: "test", refresh: { store in
            let read = store.read(selection)
            seen.withLock { $0 = read.data }
            return read.dependencies
        }, initial: { read in seen.withLock { $0 = read.data } })
        try await write([1], step: 1, .first)
        // Item 2 is no longer read: its change wakes nobody.
        await CacheWriter(store: store).update("Item:2") { $0["name"] = "item 2 at 5" }
        // Back in the list, as it now is: its record does not change.
        try await write([2], step: 5, .after)
        let names = seen.withLock { $0?["items"]?["nodes"]?.arrayValue?.compactMap { $0["name"]?.stringValue } }
        #expect(names == ["item 1 at 1", "item 2 at 5"])
        await store.removeWatcher(id)
    }
}
