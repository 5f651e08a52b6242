@_spi(Engine) @_spi(Generated) @_spi(Tools) import APICore
import APICoreSupport
import Foundation
import StarWarsOperations
import Testing

/// The records of `object` built both ways: the tree's walk, and the tape's over the same text.
/// `nil` from the tape: the answer is one for the tree's walk.
private func recordsBothWays<T: SelectionSet>(
    _: T.Type, _ object: JSONObject, variables: JSONObject = [:], errors: [GraphQLError] = [],
    keyFunctions: [String: @Sendable (JSONObject) -> String?] = [:], expiry: Date? = nil, expiryByPath: [String: Date] = [:]
) throws -> (tree: ResponseRecords, tape: ResponseRecords?) {
    let now = Date(timeIntervalSince1970: 1_000_000)
    func fresh() -> ResponseRecords {
        ResponseRecords(variables: variables, keyFunctions: keyFunctions, errors: errors, expiry: expiry, expiryByPath: expiryByPath, receivedAt: now)
    }
    var validator = SelectionValidator(variables: variables, recorder: fresh())
    var tree = object
    try validator.validate(&tree, selections: T.__selections, in: T.__parentType, recordingAt: validator.recorder?.place(key: "QUERY_ROOT"))
    var onTape: ResponseRecords? = fresh()
    let root = onTape?.place(key: "QUERY_ROOT")
    let tape = try JSONTape(reading: JSONSerializer.string(.object(object)))
    let checked = try TapeCheck.check(tape.root, plan: TapePlan.of(T.self), variables: variables, recorder: &onTape, at: root)
    // Records kept on the tape until written: made trees, they are the same records.
    var kept: ResponseRecords? = ResponseRecords(
        variables: variables, keyFunctions: keyFunctions, errors: errors, expiry: expiry, expiryByPath: expiryByPath, receivedAt: now,
        keepingOnTape: true)
    let keptRoot = kept?.place(key: "QUERY_ROOT")
    if checked, try TapeCheck.check(tape.root, plan: TapePlan.of(T.self), variables: variables, recorder: &kept, at: keptRoot), let kept, let onTape {
        #expect(Set(kept.records.keys).isDisjoint(with: kept.onTape.keys))
        #expect(kept.records.merging(kept.onTape.mapValues(\.fields)) { tree, _ in tree } == onTape.records)
        #expect(kept.expires == onTape.expires)
    }
    return (validator.recorder!, checked ? onTape : nil)
}

@Suite("Recording answers on their tape")
struct TapeRecordingTests {
    @Test("every combination of variables and hostile values: the tape's records are the tree's, key for key")
    func combinations() throws {
        let values: [JSONValue?] = [nil, .null, 7, "text", ["x": 1], true, 1.5]
        let friendsValues: [JSONValue?] = values + [JSONValue.array([["__typename": "Human", "name": "Han"], .null])]
        var compared = 0
        for withName in [false, true] {
            for skipFriends in [false, true] {
                for typename in ["Droid", "Human"] {
                    for name in values + ["R2-D2"] {
                        for friends in friendsValues {
                            var hero: JSONObject = ["__typename": .string(typename), "primaryFunction": "Astromech"]
                            hero["name"] = name
                            hero["friends"] = friends
                            let variables: JSONObject = ["withName": .bool(withName), "skipFriends": .bool(skipFriends)]
                            guard let (tree, tape) = try? recordsBothWays(HeroConditionalQuery.Data.self, ["hero": .object(hero)], variables: variables),
                                  let tape
                            else { continue }
                            #expect(tape.records == tree.records, "\(hero) under \(variables)")
                            compared += 1
                        }
                    }
                }
            }
        }
        #expect(compared > 10)
    }

    @Test("objects in a list are records of their own (the object whole, when it is all leaves), referenced from the list")
    func keyedList() throws {
        let item: (Int) -> JSONValue = { ["id": .string("item-\($0)"), "name": "Item", "description": "d\u{e9}", "price": 1.5, "tags": ["a", "b"]] }
        let data: JSONObject = ["catalog": .array((0..<5).map(item))]
        let (tree, tape) = try recordsBothWays(CatalogQuery.Data.self, data, variables: ["count": 5])
        #expect(tape?.records == tree.records)
        #expect(tree.records["QUERY_ROOT.catalog(count:5).3"]?["tags"] == ["a", "b"])
        #expect(tree.records["QUERY_ROOT"]?["catalog(count:5)"]?.arrayValue?.count == 5)
    }

    @Test("errors, key functions and expiry are honoured alike: an errored field is not recorded; keys and dates are the same")
    func errorsKeysAndExpiry() throws {
        let data: JSONObject = ["human": ["__typename": "Human", "id": "1000", "name": "Luke", "homePlanet": nil]]
        let errors = [GraphQLError(message: "no planet", path: ["human", "homePlanet"])]
        let expiry = Date(timeIntervalSince1970: 2_000_000)
        let (tree, tape) = try recordsBothWays(
            HumanQuery.Data.self, data, variables: ["id": "1000"], errors: errors, expiry: expiry,
            expiryByPath: ["human.name": Date(timeIntervalSince1970: 1_500_000)])
        #expect(tape?.records == tree.records)
        #expect(tape?.expires == tree.expires)
        #expect(tree.records["Human:1000"]?["homePlanet"] == nil)
        #expect(tree.records["Human:1000"]?["name"] == "Luke")

        let keyed = try recordsBothWays(
            HumanQuery.Data.self, data, variables: ["id": "1000"], keyFunctions: ["Human": { $0["name"]?.stringValue }])
        #expect(keyed.tape?.records == keyed.tree.records)
        #expect(keyed.tree.records["Human:Luke"] != nil)
    }
}
