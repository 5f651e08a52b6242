@_spi(Generated) import APICore
import Testing

/// Where a pager finds the list it maps element by element: the one list field of a selection
/// set's objects, through object fields and fragments, not into lists.
@Suite("The path to a list of objects")
struct ListPathTests {
    struct Item: SelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Item")
        static let __selections: [Selection] = [.field(Field("id", .nonNull(.scalar(String.self))))]
    }

    /// `connection { nodes { id } ... on Connection { nodes { id } } }`, and `groups { items { id } }`.
    struct Root: SelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Query")
        static let __selections: [Selection] = [
            .field(Field("connection", alias: "page", .nonNull(.object(Connection.self)))),
            .field(Field("groups", .list(.object(Group.self)))),
        ]
    }

    struct Connection: SelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Connection")
        static let __selections: [Selection] = [
            .field(Field("nodes", .nonNull(.list(.nonNull(.object(Item.self)))))),
            .conditional([.include(if: "more")], [.inlineFragment(Connection.Again.self)]),
        ]

        struct Again: SelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = ParentType.object("Connection")
            static let __selections: [Selection] = [.field(Field("nodes", .nonNull(.list(.nonNull(.object(Item.self))))))]
        }
    }

    struct Group: SelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Group")
        static let __selections: [Selection] = [.field(Field("items", .list(.object(Item.self))))]
    }

    /// The same element type in two lists: `first { id } second { id }`.
    struct Twice: SelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Query")
        static let __selections: [Selection] = [
            .field(Field("first", .list(.object(Item.self)))),
            .field(Field("second", .list(.object(Item.self)))),
        ]
    }

    @Test("found by response keys through an object field and a fragment that selects the same list")
    func found() {
        let path = Selection.path(toListOf: ObjectIdentifier(Item.self), in: Root.__selections)
        #expect(path == ResponsePath([.field("page"), .field("nodes")]))
        #expect(Selection.path(toListOf: ObjectIdentifier(Group.self), in: Root.__selections) == ResponsePath([.field("groups")]))
    }

    @Test("none for a type in no list, or only inside another list; none when two lists hold it")
    func notFound() {
        #expect(Selection.path(toListOf: ObjectIdentifier(Connection.self), in: Root.__selections) == nil)
        #expect(Selection.path(toListOf: ObjectIdentifier(Item.self), in: Group.__selections) == ResponsePath([.field("items")]))
        #expect(Selection.path(toListOf: ObjectIdentifier(Item.self), in: Twice.__selections) == nil)
    }
}
