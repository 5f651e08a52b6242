@_spi(Generated) @testable import APICore
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
                model = model.map { ConnectionPages(variables: variables).merge(checked.data, into: $0, selections: Data.__selections) } ?? checked.data
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
