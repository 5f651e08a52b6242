import Foundation
import APICoreServerSupport
import GraphQL


/// A subset of Apollo's StarWars schema (`Fixtures/ThirdParty/apollo-ios-dev`), executable, plus a few
/// fields made for tests: `failingField` (an error with a code and partial data), `protected`
/// (`UNAUTHENTICATED` without the current bearer token), `catalog(count:)` (a large response for benchmarks) and the mutation
/// `renameCharacter(id:name:)`, which changes what every later query sees.
enum StarWarsSchema {
    typealias Object = [String: any Sendable]

    static let characters: [String: Object] = {
        func human(_ id: String, _ name: String, _ friends: [String], _ appearsIn: [String], homePlanet: String?, height: Double)
            -> Object
        {
            ["__kind": "Human", "id": id, "name": name, "friendIDs": friends, "appearsIn": appearsIn,
             "homePlanet": homePlanet as (any Sendable)?, "height": height]
        }
        func droid(_ id: String, _ name: String, _ friends: [String], _ appearsIn: [String], primaryFunction: String) -> Object {
            ["__kind": "Droid", "id": id, "name": name, "friendIDs": friends, "appearsIn": appearsIn,
             "primaryFunction": primaryFunction]
        }
        let all = ["NEWHOPE", "EMPIRE", "JEDI"]
        return [
            "1000": human("1000", "Luke Skywalker", ["1002", "1003", "2000", "2001"], all, homePlanet: "Tatooine", height: 1.72),
            "1001": human("1001", "Darth Vader", ["1004"], all, homePlanet: "Tatooine", height: 2.02),
            "1002": human("1002", "Han Solo", ["1000", "1003", "2001"], all, homePlanet: nil, height: 1.8),
            "1003": human("1003", "Leia Organa", ["1000", "1002", "2000", "2001"], all, homePlanet: "Alderaan", height: 1.5),
            "1004": human("1004", "Wilhuff Tarkin", ["1001"], ["NEWHOPE"], homePlanet: nil, height: 1.8),
            "2000": droid("2000", "C-3PO", ["1000", "1002", "1003", "2001"], all, primaryFunction: "Protocol"),
            "2001": droid("2001", "R2-D2", ["1000", "1002", "1003"], all, primaryFunction: "Astromech"),
        ]
    }()

    static func make(state: Locked<TestServer.State>, events: EventHub) throws -> GraphQLSchema {
        let episode = try GraphQLEnumType(
            name: "Episode",
            values: ["NEWHOPE": GraphQLEnumValue(value: "NEWHOPE"), "EMPIRE": GraphQLEnumValue(value: "EMPIRE"),
                     "JEDI": GraphQLEnumValue(value: "JEDI")])
        let lengthUnit = try GraphQLEnumType(
            name: "LengthUnit", values: ["METER": GraphQLEnumValue(value: "METER"), "FOOT": GraphQLEnumValue(value: "FOOT")])

        // Names can be changed with `renameCharacter`; everything else is fixed.
        let nameResolver: GraphQLFieldResolve = { source, _, _, _ in
            let object = source as? Object
            let id = object?["id"] as? String ?? ""
            return state.withLock { $0.renamed[id] } ?? object?["name"] as? String
        }
        let friendsResolver: GraphQLFieldResolve = { source, _, _, _ in
            ((source as? Object)?["friendIDs"] as? [String] ?? []).compactMap { characters[$0] }
        }
        let character = try GraphQLInterfaceType(
            name: "Character",
            resolveType: { value, _ in ((value as? Object)?["__kind"] as? String) ?? "Human" }
        )
        character.fields = {
            [
                "id": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                "name": GraphQLField(type: GraphQLNonNull(GraphQLString)),
                "appearsIn": GraphQLField(type: GraphQLNonNull(GraphQLList(episode))),
                "friends": GraphQLField(type: GraphQLList(character)),
            ]
        }
        let human = try GraphQLObjectType(
            name: "Human",
            fields: [
                "id": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                "name": GraphQLField(type: GraphQLNonNull(GraphQLString), resolve: nameResolver),
                "appearsIn": GraphQLField(type: GraphQLNonNull(GraphQLList(episode))),
                "friends": GraphQLField(type: GraphQLList(character), resolve: friendsResolver),
                "homePlanet": GraphQLField(type: GraphQLString),
                "height": GraphQLField(
                    type: GraphQLFloat, args: ["unit": GraphQLArgument(type: lengthUnit, defaultValue: "METER")],
                    resolve: { source, args, _, _ in
                        let meters = (source as? Object)?["height"] as? Double ?? 0
                        return args["unit"].string == "FOOT" ? meters * 3.28084 : meters
                    }),
            ],
            interfaces: [character]
        )
        let droid = try GraphQLObjectType(
            name: "Droid",
            fields: [
                "id": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                "name": GraphQLField(type: GraphQLNonNull(GraphQLString), resolve: nameResolver),
                "appearsIn": GraphQLField(type: GraphQLNonNull(GraphQLList(episode))),
                "friends": GraphQLField(type: GraphQLList(character), resolve: friendsResolver),
                "primaryFunction": GraphQLField(type: GraphQLString),
            ],
            interfaces: [character]
        )
        let review = try GraphQLObjectType(
            name: "Review",
            fields: [
                "episode": GraphQLField(type: episode),
                "stars": GraphQLField(type: GraphQLNonNull(GraphQLInt)),
                "commentary": GraphQLField(type: GraphQLString),
            ]
        )
        let reviewInput = try GraphQLInputObjectType(
            name: "ReviewInput",
            fields: [
                "stars": InputObjectField(type: GraphQLNonNull(GraphQLInt)),
                "commentary": InputObjectField(type: GraphQLString),
            ]
        )
        let catalogItem = try GraphQLObjectType(
            name: "CatalogItem",
            fields: [
                "id": GraphQLField(type: GraphQLNonNull(GraphQLID)),
                "name": GraphQLField(type: GraphQLNonNull(GraphQLString)),
                "description": GraphQLField(type: GraphQLNonNull(GraphQLString)),
                "price": GraphQLField(type: GraphQLNonNull(GraphQLFloat)),
                "tags": GraphQLField(type: GraphQLNonNull(GraphQLList(GraphQLNonNull(GraphQLString)))),
            ]
        )

        let pageInfo = try GraphQLObjectType(
            name: "PageInfo",
            fields: [
                "startCursor": GraphQLField(type: GraphQLString),
                "endCursor": GraphQLField(type: GraphQLString),
                "hasNextPage": GraphQLField(type: GraphQLNonNull(GraphQLBoolean)),
                "hasPreviousPage": GraphQLField(type: GraphQLNonNull(GraphQLBoolean)),
            ]
        )
        let catalogConnection = try GraphQLObjectType(
            name: "CatalogConnection",
            fields: [
                "nodes": GraphQLField(type: GraphQLNonNull(GraphQLList(GraphQLNonNull(catalogItem)))),
                "pageInfo": GraphQLField(type: GraphQLNonNull(pageInfo)),
            ]
        )
        let characterConnection = try GraphQLObjectType(
            name: "CharacterConnection",
            fields: [
                "nodes": GraphQLField(type: GraphQLNonNull(GraphQLList(GraphQLNonNull(character)))),
                "pageInfo": GraphQLField(type: GraphQLNonNull(pageInfo)),
            ]
        )

        let query = try GraphQLObjectType(
            name: "Query",
            fields: [
                // The first 5,000 catalog items, a page at a time (cursors are ids).
                "catalogPage": GraphQLField(
                    type: GraphQLNonNull(catalogConnection),
                    args: ["first": GraphQLArgument(type: GraphQLNonNull(GraphQLInt)), "after": GraphQLArgument(type: GraphQLString)],
                    resolve: { _, args, _, _ in catalogPage(first: args["first"].int ?? 0, after: args["after"].string) }),
                // Characters by id, a page at a time (cursors are ids): forward with first/after,
                // backward with last/before.
                "characterPage": GraphQLField(
                    type: GraphQLNonNull(characterConnection),
                    args: [
                        "first": GraphQLArgument(type: GraphQLInt), "after": GraphQLArgument(type: GraphQLString),
                        "last": GraphQLArgument(type: GraphQLInt), "before": GraphQLArgument(type: GraphQLString),
                    ],
                    resolve: { _, args, _, _ in
                        characterPage(first: args["first"].int, after: args["after"].string, last: args["last"].int, before: args["before"].string)
                    }),
                // Characters by id, `limit` of them from `offset` on: a paged field that is the list.
                "characterList": GraphQLField(
                    type: GraphQLNonNull(GraphQLList(GraphQLNonNull(character))),
                    args: ["offset": GraphQLArgument(type: GraphQLInt, defaultValue: 0), "limit": GraphQLArgument(type: GraphQLNonNull(GraphQLInt))],
                    resolve: { _, args, _, _ in
                        characters.keys.sorted().dropFirst(max(0, args["offset"].int ?? 0)).prefix(max(0, args["limit"].int ?? 0)).compactMap { characters[$0] }
                    }),
                "hero": GraphQLField(
                    type: character, args: ["episode": GraphQLArgument(type: episode)],
                    resolve: { _, args, _, _ in
                        args["episode"].string == "EMPIRE" ? characters["1000"] : characters["2001"]
                    }),
                "human": GraphQLField(
                    type: human, args: ["id": GraphQLArgument(type: GraphQLNonNull(GraphQLID))],
                    resolve: { _, args, _, _ in characters[args["id"].string ?? ""].flatMap { $0["__kind"] as? String == "Human" ? $0 : nil } }),
                "character": GraphQLField(
                    type: character, args: ["id": GraphQLArgument(type: GraphQLNonNull(GraphQLID))],
                    resolve: { _, args, _, _ in characters[args["id"].string ?? ""] }),
                "reviews": GraphQLField(
                    type: GraphQLList(review), args: ["episode": GraphQLArgument(type: GraphQLNonNull(episode))],
                    resolve: { _, args, _, _ in
                        let episode = args["episode"].string
                        return state.withLock { $0.reviews }.filter { $0["episode"] as? String == episode }
                    }),
                "catalog": GraphQLField(
                    type: GraphQLNonNull(GraphQLList(GraphQLNonNull(catalogItem))),
                    args: ["count": GraphQLArgument(type: GraphQLNonNull(GraphQLInt))],
                    resolve: { _, args, _, _ in catalog(count: args["count"].int ?? 0) }),
                "failingField": GraphQLField(
                    type: GraphQLString,
                    resolve: { _, _, _, _ in throw CodedError(code: "INTERNAL_SERVER_ERROR", message: "the field failed on purpose") }),
                "protected": GraphQLField(
                    type: GraphQLString,
                    resolve: { _, _, context, _ in
                        guard (context as? AuthContext)?.authorized == true else {
                            throw CodedError(code: "UNAUTHENTICATED", message: "log in to see this")
                        }
                        return "the secret plans"
                    }),
            ]
        )
        let mutation = try GraphQLObjectType(
            name: "Mutation",
            fields: [
                "renameCharacter": GraphQLField(
                    type: character,
                    args: ["id": GraphQLArgument(type: GraphQLNonNull(GraphQLID)), "name": GraphQLArgument(type: GraphQLNonNull(GraphQLString))],
                    resolve: { _, args, _, _ in
                        let id = args["id"].string ?? ""
                        guard let character = characters[id] else { return nil }
                        let name = args["name"].string ?? ""
                        state.withLock { $0.renamed[id] = name }
                        events.publish("characterRenamed", character)
                        return character
                    }),
                "createReview": GraphQLField(
                    type: review,
                    args: ["episode": GraphQLArgument(type: episode), "review": GraphQLArgument(type: GraphQLNonNull(reviewInput))],
                    resolve: { _, args, _, _ in
                        let input = args["review"]
                        var created: Object = ["stars": input["stars"].int ?? 0]
                        if let episode = args["episode"].string { created["episode"] = episode }
                        if let commentary = input["commentary"].string { created["commentary"] = commentary }
                        let stored = created
                        state.withLock { $0.reviews.append(stored) }
                        events.publish("reviewAdded", stored)
                        return created
                    })
            ]
        )
        // Subscription fields resolve to the event itself.
        let event: GraphQLFieldResolve = { source, _, _, _ in source }
        let subscription = try GraphQLObjectType(
            name: "Subscription",
            fields: [
                "reviewAdded": GraphQLField(
                    type: review, args: ["episode": GraphQLArgument(type: episode)], resolve: event,
                    subscribe: { _, args, _, _ in
                        let wanted = args["episode"].string
                        return events.stream("reviewAdded") { wanted == nil || ($0 as? Object)?["episode"] as? String == wanted }
                    }),
                "characterRenamed": GraphQLField(
                    type: GraphQLNonNull(character), resolve: event, subscribe: { _, _, _, _ in events.stream("characterRenamed") }),
                "counter": GraphQLField(
                    type: GraphQLNonNull(GraphQLInt), args: ["to": GraphQLArgument(type: GraphQLNonNull(GraphQLInt))], resolve: event,
                    subscribe: { _, args, _, _ in
                        let last = min(args["to"].int ?? 0, 100_000)
                        return AsyncThrowingStream<any Sendable, any Error> { continuation in
                            for number in stride(from: 1, through: last, by: 1) { continuation.yield(number) }
                            continuation.finish()
                        }
                    }),
                "catalogFeed": GraphQLField(
                    type: GraphQLNonNull(catalogItem), resolve: event, subscribe: { _, _, _, _ in events.stream("catalogFeed") }),
            ]
        )
        return try GraphQLSchema(
            query: query, mutation: mutation, subscription: subscription, types: [human, droid],
            directives: [
                GraphQLIncludeDirective, GraphQLSkipDirective, GraphQLDeprecatedDirective, GraphQLSpecifiedByDirective, GraphQLOneOfDirective,
                IncrementalDelivery.deferDirective, IncrementalDelivery.streamDirective,
            ])
    }

    /// `count` catalog items of about 200 bytes each.
    static func characterPage(first: Int?, after: String?, last: Int?, before: String?) -> Object {
        let ids = characters.keys.sorted()
        var slice = ids[...]
        if let after, let index = slice.firstIndex(of: after) { slice = slice[(index + 1)...] }
        if let before, let index = slice.firstIndex(of: before) { slice = slice[..<index] }
        if let first { slice = slice.prefix(max(0, first)) }
        if let last { slice = slice.suffix(max(0, last)) }
        let info: Object = [
            "startCursor": slice.first as (any Sendable)?, "endCursor": slice.last as (any Sendable)?,
            "hasNextPage": slice.last.map { $0 != ids.last } ?? false, "hasPreviousPage": slice.first.map { $0 != ids.first } ?? false,
        ]
        return ["nodes": slice.compactMap { characters[$0] }, "pageInfo": info]
    }

    static let pagedCatalog = catalog(count: 5_000)

    static func catalogPage(first: Int, after: String?) -> Object {
        let start = after.flatMap { cursor in pagedCatalog.firstIndex { $0["id"] as? String == cursor }.map { $0 + 1 } } ?? 0
        let slice = pagedCatalog[min(start, pagedCatalog.count)..<min(start + max(0, first), pagedCatalog.count)]
        let info: Object = [
            "startCursor": slice.first?["id"] as (any Sendable)?, "endCursor": slice.last?["id"] as (any Sendable)?,
            "hasNextPage": slice.endIndex < pagedCatalog.count, "hasPreviousPage": slice.startIndex > 0,
        ]
        return ["nodes": Array(slice), "pageInfo": info]
    }

    static func catalog(count: Int) -> [Object] {
        (0..<max(0, min(count, 100_000))).map { index in
            [
                "id": "item-\(index)",
                "name": "Catalog item number \(index)",
                "description": "A plain description of item \(index), long enough to look like real product copy.",
                "price": Double(index % 1000) + 0.99,
                "tags": ["tag-\(index % 7)", "tag-\(index % 11)", "tag-\(index % 13)"],
            ]
        }
    }
}
