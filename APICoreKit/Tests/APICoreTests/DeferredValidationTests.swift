@_spi(Generated) import APICore
import Foundation
import Testing

/// A hero with a deferred fragment (`... @defer(label: "details", if: $deferDetails) { height friends { name } }`),
/// written as generated code writes it.
private struct DeferredHero: RootSelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = ParentType.object("Human")
    static let __selections: [Selection] = [
        .field(Field("name", .nonNull(.scalar(String.self)))),
        .deferred(Deferral("details", label: "details", if: .include(if: "deferDetails")), [.inlineFragment(Details.self)]),
    ]
    var name: String { __data["name"] }
    var details: Deferred<Details> { _deferred("details") }

    struct Details: SelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Human")
        static let __selections: [Selection] = [
            .field(Field("height", .nonNull(.scalar(Double.self)))),
            .field(Field("friends", .nonNull(.list(.nonNull(.object(Friend.self)))))),
        ]
        var height: Double { __data["height"] }
        var friends: [Friend] { __data["friends"] }
    }

    struct Friend: SelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Human")
        static let __selections: [Selection] = [.field(Field("name", .nonNull(.scalar(String.self))))]
        var name: String { __data["name"] }
    }
}

@Suite("Deferred fragments in validation")
struct DeferredValidationTests {
    let deferring: JSONObject = ["deferDetails": true]

    @Test("a deferred fragment whose fields have not arrived is pending, not missing")
    func pending() throws {
        let data = try DeferredHero(validating: ["name": "Luke"], variables: deferring)
        #expect(data.name == "Luke")
        #expect(data.details == .pending)
    }

    @Test("once its fields are there, it is fulfilled and its accessors read them")
    func fulfilled() throws {
        let data = try DeferredHero(validating: ["name": "Luke", "height": 1.72, "friends": [["name": "Han"]]], variables: deferring)
        let details = try #require(data.details.value)
        #expect(details.height == 1.72)
        #expect(details.friends.map(\.name) == ["Han"])
    }

    @Test("a field of the fragment nested deeper and still missing keeps it pending")
    func nestedMissing() throws {
        let data = try DeferredHero(validating: ["name": "Luke", "height": 1.72, "friends": [[:]]], variables: deferring)
        #expect(data.details == .pending)
    }

    @Test("a value of the wrong type in a deferred fragment is an error, not pending")
    func wrongType() {
        #expect(throws: GraphQLDecodingError.self) {
            try DeferredHero(validating: ["name": "Luke", "height": "tall", "friends": []], variables: deferring)
        }
    }

    @Test("not deferred (if: false), its fields are required like any other")
    func notDeferred() {
        #expect(throws: GraphQLDecodingError.self) { try DeferredHero(validating: ["name": "Luke"], variables: ["deferDetails": false]) }
    }

    @Test("validated again with the fields arrived, the pending mark goes")
    func markCleared() throws {
        let first = try DeferredHero(validating: ["name": "Luke"], variables: deferring)
        var object = first.__data._data
        object["height"] = 1.72
        object["friends"] = []
        let second = try DeferredHero(validating: object, variables: deferring)
        #expect(second.details.value?.height == 1.72)
        #expect(second.__data._data[Deferral.pendingKey] == nil)
    }
}
