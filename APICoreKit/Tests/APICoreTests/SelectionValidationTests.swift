@_spi(Engine) @_spi(Generated) import APICore
import Foundation
import StarWarsOperations
import Testing

/// A selection set with `@include`, a named fragment and a type case, written as the generator
/// writes them.
struct ConditionalHero: RootSelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = ParentType.object("Query")
    static let __selections: [Selection] = [.field(Field("hero", .object(Hero.self)))]
    var hero: Hero? { __data["hero"] }

    struct Hero: SelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.abstract("Character", possibleTypes: ["Human", "Droid"])
        static let __selections: [Selection] = [
            .field(Field("__typename", .nonNull(.scalar(String.self)))),
            .conditional([.include(if: "withName")], [.field(Field("name", .nonNull(.scalar(String.self))))]),
            .fragment(HeroDetails.self),
            .inlineFragment(AsHuman.self),
        ]
        var name: String? { __data["name"] }
        var heroDetails: HeroDetails { _toFragment() }
        var asHuman: AsHuman? { _asInlineFragment() }

        struct AsHuman: SelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = ParentType.object("Human")
            static let __selections: [Selection] = [.field(Field("height", .nonNull(.scalar(Double.self))))]
            var height: Double { __data["height"] }
        }
    }
}

struct HeroDetails: Fragment {
    static let fragmentDefinition = "fragment HeroDetails on Character { appearsIn }"
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = ParentType.abstract("Character", possibleTypes: ["Human", "Droid"])
    static let __selections: [Selection] = [
        .field(Field("appearsIn", .nonNull(.list(.scalar(GraphQLEnum<Episode>.self)))))
    ]
    var appearsIn: [GraphQLEnum<Episode>?] { __data["appearsIn"] }
}

@Suite("Validating responses against selection-set metadata")
struct SelectionValidationTests {
    @Test("@include decides whether a field must be present")
    func include() throws {
        let droid: JSONObject = ["hero": ["__typename": "Droid", "appearsIn": ["JEDI"]]]
        let without = try ConditionalHero(validating: droid, variables: ["withName": false])
        #expect(without.hero?.name == nil)
        #expect(throws: GraphQLDecodingError(path: ["hero", "name"], message: "missing field 'name'")) {
            try ConditionalHero(validating: droid, variables: ["withName": true])
        }
    }

    @Test("a named fragment on the same type always applies; its fields are checked")
    func fragment() throws {
        let data = try ConditionalHero(validating: ["hero": ["__typename": "Droid", "appearsIn": ["JEDI", "HOTH"]]])
        #expect(data.hero?.heroDetails.appearsIn == [.case(.jedi), .unknown("HOTH")])
        #expect(throws: GraphQLDecodingError(path: ["hero", "appearsIn", 1], message: "expected an enum value (a string), found a number")) {
            try ConditionalHero(validating: ["hero": ["__typename": "Droid", "appearsIn": ["JEDI", 3]]])
        }
    }

    @Test("a type case applies only when __typename matches")
    func typeCase() throws {
        let droid = try ConditionalHero(validating: ["hero": ["__typename": "Droid", "appearsIn": []]])
        #expect(droid.hero?.asHuman == nil)
        let human = try ConditionalHero(validating: ["hero": ["__typename": "Human", "appearsIn": [], "height": 1.72]])
        #expect(human.hero?.asHuman?.height == 1.72)
        #expect(throws: GraphQLDecodingError(path: ["hero", "height"], message: "missing field 'height'")) {
            try ConditionalHero(validating: ["hero": ["__typename": "Human", "appearsIn": []]])
        }
    }

    @Test("null in a non-null field, and objects where a list belongs, are named with their path")
    func nonNull() {
        #expect(throws: GraphQLDecodingError(path: ["hero", "appearsIn"], message: "null for a non-null field")) {
            try ConditionalHero(validating: ["hero": ["__typename": "Droid", "appearsIn": nil]])
        }
        #expect(throws: GraphQLDecodingError(path: ["hero", "appearsIn"], message: "expected a list, found an object")) {
            try ConditionalHero(validating: ["hero": ["__typename": "Droid", "appearsIn": ["a": 1]]])
        }
        #expect(throws: GraphQLDecodingError(path: ["hero"], message: "expected an object, found a string")) {
            try ConditionalHero(validating: ["hero": "R2-D2"])
        }
    }

    @Test("a field a condition leaves out is removed, whatever the server sent for it, so accessors never trap")
    func leftOutFieldsAreRemoved() throws {
        // Before: validation skipped `name`, then the accessor trapped reading 7 as a String.
        let hostile: JSONObject = ["hero": ["__typename": "Droid", "name": 7, "appearsIn": []]]
        let data = try ConditionalHero(validating: hostile, variables: ["withName": false])
        #expect(data.hero?.name == nil)
        #expect(data.hero?.__data._data["name"] == nil)
        #expect(throws: GraphQLDecodingError(path: ["hero", "name"], message: "expected a string, found a number")) {
            try ConditionalHero(validating: hostile, variables: ["withName": true])
        }
    }

    @Test("every combination of variables and hostile values: an error, or data whose every accessor reads")
    func conditionalCombinations() throws {
        let hostileValues: [JSONValue?] = [nil, .null, 7, "text", ["x": 1], [1, "a"], true, 1.5]
        let friendsValues: [JSONValue?] = hostileValues + [JSONValue.array([["__typename": "Human", "name": "Han"], .null])]
        var decoded = 0
        for withName in [false, true] {
            for skipFriends in [false, true] {
                for typename in ["Droid", "Human", "Wookiee"] {
                    for name in hostileValues + ["R2-D2"] {
                        for friends in friendsValues {
                            for primaryFunction in hostileValues + ["Astromech"] {
                                var hero: JSONObject = ["__typename": .string(typename)]
                                hero["name"] = name
                                hero["friends"] = friends
                                hero["primaryFunction"] = primaryFunction
                                let variables: JSONObject = ["withName": .bool(withName), "skipFriends": .bool(skipFriends)]
                                guard let data = try? HeroConditionalQuery.Data(validating: ["hero": .object(hero)], variables: variables)
                                else { continue }
                                decoded += 1
                                let read = data.hero
                                #expect((read?.name != nil) == (withName && name?.stringValue != nil))
                                _ = read?.friends?.map { $0?.name }
                                if withName { #expect(read?.name == name?.stringValue) }
                                if skipFriends { #expect(read?.friends == nil) }
                                _ = read?.asDroid.map { ($0.name, $0.friends?.map { $0?.name }, $0.primaryFunction) }
                                if !withName { #expect(read?.asDroid?.primaryFunction == nil) }
                            }
                        }
                    }
                }
            }
        }
        #expect(decoded > 0)
    }

    @Test("scalars: Int rejects fractions, String (and ID) rejects numbers, Float accepts integers")
    func scalars() throws {
        #expect(throws: GraphQLDecodingError.self) { try Int(_fieldValue: 1.5) }
        #expect(try Int(_fieldValue: 2.0) == 2)
        #expect(throws: GraphQLDecodingError(message: "expected a string, found a number")) { try String(_fieldValue: 42) }
        #expect(try Double(_fieldValue: 3) == 3.0)
        #expect(throws: GraphQLDecodingError(message: "expected a Boolean, found a string")) { try Bool(_fieldValue: "true") }
    }
}

@Suite("APIError")
struct APIErrorTests {
    @Test("each error says what a caller can do")
    func recovery() {
        let failure = HTTPFailure(statusCode: 503, headers: [:], body: .init(), url: nil)
        #expect(APIError.httpStatus(failure).recovery == .retry)
        #expect(APIError.httpStatus(HTTPFailure(statusCode: 404, headers: [:], body: .init(), url: nil)).recovery == .fail)
        #expect(APIError.unauthorized(HTTPFailure(statusCode: 401, headers: [:], body: .init(), url: nil)).recovery == .reauthenticate)
        #expect(APIError.transport(TransportFailure(kind: .timedOut, url: nil, underlying: "")).recovery == .retry)
        #expect(APIError.transport(TransportFailure(kind: .secureConnectionFailed, url: nil, underlying: "")).recovery == .fail)
        #expect(APIError.cancelled.recovery == .fail)
        let unauthenticated = GraphQLFailure(
            errors: [GraphQLError(message: "who?", extensions: ["code": "UNAUTHENTICATED"])], partialData: nil, statusCode: 200,
            operationName: "Me")
        #expect(APIError.graphQL(unauthenticated).recovery == .reauthenticate)
    }

    @Test("GraphQL errors are read from JSON, malformed entries included")
    func graphQLErrorJSON() {
        let error = GraphQLError(json: [
            "message": "boom", "path": ["hero", "friends", 1, "name"], "locations": [["line": 2, "column": 3]],
            "extensions": ["code": "BAD"],
        ])
        #expect(error.path == ["hero", "friends", 1, "name"])
        #expect(error.locations == [GraphQLError.Location(line: 2, column: 3)])
        #expect(error.code == "BAD")
        #expect(error.description == "boom [BAD] at hero.friends.1.name")
        #expect(GraphQLError(json: "just text").message == "just text")
        #expect(GraphQLError(json: ["path": ["a"]]).message.contains("without a message"))
    }

    @Test("an HTTP body excerpt is bounded")
    func excerpt() {
        let long = HTTPFailure(statusCode: 500, headers: [:], body: .init(String(repeating: "x", count: 10_000).utf8), url: nil)
        #expect(long.bodyExcerpt.count == 513)
        #expect(long.bodyExcerpt.hasSuffix("…"))
    }

    @Test("binary in a body is described, not shown; text cut inside a character is still text")
    func binaryExcerpt() {
        let binary = Data([0x0E, 0x0D, 0xFF, 0xFE, 0x00, 0x91, 0x80] + Array(repeating: 0xC3, count: 100))
        #expect(HTTPFailure.excerpt(of: binary) == "(107 bytes that are not text)")
        let accents = Data(String(repeating: "é", count: 600).utf8)
        #expect(HTTPFailure.excerpt(of: accents, length: 10) == String(repeating: "é", count: 10) + "…")
        #expect(HTTPFailure.excerpt(of: Data("café".utf8).dropLast()) == "caf\u{FFFD}")
    }
}
