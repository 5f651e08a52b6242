@_spi(Generated) @testable import APICore
@testable import APICoreLive
import APICoreTesting
import Foundation
import Logging
import Synchronization
import Testing

// GitHub's shape: `author` is declared `Actor`, an interface without `id`; a `User` (key field
// `id`) or a `Bot` (none) arrives. Written as the generator writes it.
private enum ActorTypes {
    static let query = ParentType.object("Query")
    static let user = ParentType.object("User", keyFields: ["id"])
    static let actor = ParentType.abstract("Actor", possibleTypes: ["Bot", "User"], keyFieldsByType: ["User": ["id"]])
}

/// `query Comments { comments { author { __typename login ... on User { id } } } }`
private struct CommentsQuery: GraphQLQuery {
    static let operationName = "Comments"
    static let document = "query Comments { comments { __typename author { __typename login ... on User { id } } } }"
    var __variables: InputDict { InputDict() }

    struct Data: RootSelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ActorTypes.query
        static let __selections: [Selection] = [.field(Field("comments", .nonNull(.list(.nonNull(.object(Comment.self))))))]

        struct Comment: SelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = ParentType.object("Comment")
            static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))), .field(Field("author", .object(Author.self))),
            ]
        }

        struct Author: SelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = ActorTypes.actor
            static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))), .field(Field("login", .nonNull(.scalar(String.self)))),
                .inlineFragment(AsUser.self),
            ]
        }

        struct AsUser: SelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = ActorTypes.user
            static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))), .field(Field("login", .nonNull(.scalar(String.self)))),
                .field(Field("id", .nonNull(.scalar(String.self)))),
            ]
        }
    }
}

/// `query Viewer { viewer { __typename id login } }`: the same user, declared as `User`.
private struct ViewerQuery: GraphQLQuery {
    static let operationName = "Viewer"
    static let document = "query Viewer { viewer { __typename id login } }"
    var __variables: InputDict { InputDict() }

    struct Data: RootSelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ActorTypes.query
        static let __selections: [Selection] = [.field(Field("viewer", .nonNull(.object(Viewer.self))))]

        struct Viewer: SelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = ActorTypes.user
            static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))), .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("login", .nonNull(.scalar(String.self)))),
            ]
        }
    }
}

@Suite("Cache keys by the object's runtime type")
struct RuntimeTypeKeyTests {
    @Test("objects under an interface without key fields are keyed by their own type's: one record per user, shared with a query that declares User")
    func keyedByRuntimeType() async throws {
        let client = APICoreLive.makeClient(APIClientConfiguration(restBaseURL: URL(string: "http://127.0.0.1:1")!, retryPolicy: nil))
        let store = try #require((client as? LiveAPIClient)?.store)
        let author: (String, String) -> JSONValue = { id, login in ["__typename": "User", "login": .string(login), "id": .string(id)] }
        let comments = try CommentsQuery.Data(validating: ["comments": [
            ["__typename": "Comment", "author": author("u1", "ann")], ["__typename": "Comment", "author": author("u1", "ann")],
            ["__typename": "Comment", "author": author("u2", "bo")],
            ["__typename": "Comment", "author": ["__typename": "Bot", "login": "dependabot"]],
        ]])
        try await client.cache.writeQuery(CommentsQuery(), data: comments)
        // Two users, each one record however often they appear; the bot, without key fields, by path.
        #expect(await store.record("User:u1")?.fields["login"] == "ann")
        #expect(await store.record("User:u2")?.fields["login"] == "bo")

        // A query that declares the field as User writes the same record, and the comments see it.
        let seen = Mutex<[[String]]>([])
        let watching = Task {
            for await result in client.watch(GraphQLRequest(CommentsQuery()) { $0.__data._data }, cachePolicy: .cacheOnly) {
                let logins = (try? result.get().value)?["comments"]?.arrayValue?.compactMap { $0["author"]?["login"]?.stringValue }
                seen.withLock { $0.append(logins ?? []) }
            }
        }
        defer { watching.cancel() }
        #expect(await eventually { seen.withLock { $0.last } == ["ann", "ann", "bo", "dependabot"] })
        #expect(await eventually { await store.watcherCounts.watchers == 1 })
        try await client.cache.writeQuery(
            ViewerQuery(), data: try ViewerQuery.Data(validating: ["viewer": ["__typename": "User", "id": "u1", "login": "ann-renamed"]]))
        #expect(await eventually { seen.withLock { $0.last } == ["ann-renamed", "ann-renamed", "bo", "dependabot"] })
    }
}
