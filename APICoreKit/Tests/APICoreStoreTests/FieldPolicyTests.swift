@_spi(Generated) @testable import APICore
import APICoreSupport
@testable import APICoreLive
import Foundation
import Logging
import Testing

private enum LibraryTypes {
    static let query = ParentType.object("Query")
    static let book = ParentType.object("Book", keyFields: ["id"])
    static let edition = ParentType.object("Edition", keyFields: ["isbn", "year"])
}

private struct Book: SelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = LibraryTypes.book
    static let __selections: [Selection] = [
        .field(Field("__typename", .nonNull(.scalar(String.self)))), .field(Field("id", .nonNull(.scalar(String.self)))),
        .field(Field("title", .nonNull(.scalar(String.self)))),
    ]
}

private struct Edition: SelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = LibraryTypes.edition
    static let __selections: [Selection] = [.field(Field("printRun", .nonNull(.scalar(Int.self))))]
}

@Suite("Field policies: reads redirected to the records that key arguments name")
struct FieldPolicyTests {
    let store = NormalizedStore(persistent: nil, logger: Logger(label: "test"))
    let root = CacheNaming.rootKey(for: .query)

    func read(_ field: Field, variables: JSONObject = [:]) async -> JSONObject? {
        await store.read(
            key: root, selections: [.field(field)], parent: LibraryTypes.query, variables: variables, requestMaxAge: nil
        ).data
    }

    @Test("one argument, several arguments in key-field order, a list argument giving a list, and a variable")
    func redirects() async {
        await CacheWriter(store: store).write(records: [
            "Book:1": ["__typename": "Book", "id": "1", "title": "Dune"], "Book:2": ["__typename": "Book", "id": "2", "title": "Emma"],
            "Edition:978:1965": ["printRun": 2000],
        ])
        let book = await read(Field("book", .object(Book.self), arguments: ["id": .value("1")], keyArgs: ["id"]))
        #expect(book?["book"]?["title"] == "Dune")
        let byVariable = await read(Field("book", .object(Book.self), arguments: ["id": .variable("id")], keyArgs: ["id"]), variables: ["id": "2"])
        #expect(byVariable?["book"]?["title"] == "Emma")
        let edition = await read(
            Field("edition", .object(Edition.self), arguments: ["year": .value(1965), "isbn": .value("978")], keyArgs: ["isbn", "year"]))
        #expect(edition?["edition"]?["printRun"] == 2000)
        let books = await read(Field("books", .list(.object(Book.self)), arguments: ["ids": .value(["2", "1"])], keyArgs: ["ids"]))
        #expect(books?["books"]?.arrayValue?.compactMap { $0["title"]?.stringValue } == ["Emma", "Dune"])
    }

    @Test("a redirect to a record the cache lacks is a miss; without a policy, an unstored field is a miss; a stored field wins")
    func misses() async {
        await CacheWriter(store: store).write(records: ["Book:1": ["__typename": "Book", "id": "1", "title": "Dune"]])
        #expect(await read(Field("book", .object(Book.self), arguments: ["id": .value("9")], keyArgs: ["id"])) == nil)
        #expect(await read(Field("books", .list(.object(Book.self)), arguments: ["ids": .value(["1", "9"])], keyArgs: ["ids"])) == nil)
        #expect(await read(Field("book", .object(Book.self), arguments: ["id": .value("1")])) == nil)
        let field = Field("book", .object(Book.self), arguments: ["id": .value("1")], keyArgs: ["id"])
        await CacheWriter(store: store).write(records: [root: [CacheNaming.storageKey(field, variables: [:]): .null]])
        let stored = await read(field)
        #expect(stored?["book"] == .null)
    }
}
