@_spi(Generated) import APICore
import APICoreLive
import Foundation
@_spi(Generated) import HasuraAPI
import Testing

/// A kit on a Hasura-style backend (`Interop/hasura`): boolean expressions that hold themselves
/// (`_and`, `_or`, `_not`, relationships), `order_by`, aggregates and an `on_conflict` upsert,
/// generated into `HasuraAPI` and sent to a graphql-core server (the Python port of graphql-js)
/// that coerces the variables as the reference does and evaluates the filters on its rows. The
/// answers show that every expression arrived whole; the server's record of the variables it
/// received shows exactly what was sent.
@Suite("Interop with a Hasura-style graphql-core server", .serialized)
struct HasuraTests {
    typealias Authors = HasuraAPI.authors_bool_exp
    typealias Articles = HasuraAPI.articles_bool_exp

    static func withServer<T>(_ body: (InteropServer, any APIClient) async throws -> T) async throws -> T {
        let server = try await InteropServer.start(script: "hasura/server.py")
        do {
            let result = try await body(server, InteropTests.client(server))
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// The variables of every request the server received, in order, as JSON.
    static func received(_ server: InteropServer) async throws -> [JSONValue] {
        var request = URLRequest(url: server.httpURL)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"query":"__received"}"#.utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        guard case .object(let answer) = try JSONValue(parsing: data), case .array(let received)? = answer["received"] else {
            Issue.record("the server did not answer its record: \(String(decoding: data, as: UTF8.self))")
            return []
        }
        return received
    }

    @Test("nested boolean expressions in variables: _not, a relationship, a default order_by; aggregates per author")
    func authorsWithArticles() async throws {
        try await Self.withServer { server, client in
            let query = AuthorsWithArticlesQuery(
                where: Authors(_not: .some(Authors(name: .some(.init(_eq: "Bob"))))),
                articlesWhere: .some(Articles(rating: .some(.init(_gte: 3)))))
            let authors = try await client.fetch(query, cachePolicy: .networkOnly).value.authors
            #expect(authors.map(\.name) == ["Ada", "Cy"])
            #expect(authors[0].articles.map(\.fragments.articleFields.title) == ["Boolean algebra", "Swift on servers"])
            #expect(authors[0].articles_aggregate.aggregate?.count == 2)
            #expect(authors[0].articles_aggregate.aggregate?.avg?.rating == 4.5)
            #expect(authors[1].articles.map(\.fragments.articleFields.id) == [5])
            let sent = try await Self.received(server)
            #expect(sent.last == [
                "where": ["_not": ["name": ["_eq": "Bob"]]],
                "articlesWhere": ["rating": ["_gte": 3]],
            ] as JSONValue)
        }
    }

    @Test("a literal expression in the document: _or of a comparison and an _and with a _not through a relationship")
    func literalExpression() async throws {
        try await Self.withServer { _, client in
            let articles = try await client.fetch(HighlyRatedOrAboutSwiftQuery(), cachePolicy: .networkOnly).value.articles
            #expect(articles.map(\.id) == [1, 2, 5])
        }
    }

    @Test("an expression built deep in Swift: _or of _and and a double _not, _in and _is_null, ordered through a relationship")
    func deepExpression() async throws {
        try await Self.withServer { server, client in
            let about = Articles(_and: .some([
                Articles(title: .some(.init(_ilike: "%swift%"))),
                Articles(author: .some(Authors(articles: .some(Articles(rating: .some(.init(_is_null: true))))))),
            ]))
            let chosen = Articles(_not: .some(Articles(_not: .some(Articles(id: .some(.init(_in: .some([2]))))))))
            let query = ArticlesWhereQuery(
                where: Articles(_or: .some([about, chosen])),
                order: .some([HasuraAPI.articles_order_by(author: .some(.init(name: .some(.init(.desc))))), .init(id: .some(.init(.asc)))]),
                limit: 10)
            let articles = try await client.fetch(query, cachePolicy: .networkOnly).value.articles
            // Cy's "Swift concurrency" (Cy has an article without a rating), then Ada's "Boolean algebra".
            #expect(articles.map(\.fragments.articleFields.id) == [5, 2])
            let sent = try await Self.received(server)
            #expect(sent.last == [
                "where": ["_or": [
                    ["_and": [["title": ["_ilike": "%swift%"]], ["author": ["articles": ["rating": ["_is_null": true]]]]]],
                    ["_not": ["_not": ["id": ["_in": [2]]]]],
                ]],
                "order": [["author": ["name": "desc"]], ["id": "asc"]],
                "limit": 10,
            ] as JSONValue)
        }
    }

    @Test("an upsert: inserted, then updated through on_conflict's columns; without on_conflict the server's uniqueness error")
    func upsert() async throws {
        try await Self.withServer { _, client in
            let row = HasuraAPI.articles_insert_input(author_id: 2, id: 9, rating: 1, title: "Draft")
            let inserted = try await client.perform(UpsertArticleMutation(object: row)).value.insert_articles_one
            #expect(inserted?.fragments.articleFields.title == "Draft")
            let conflict = HasuraAPI.articles_on_conflict(
                constraint: .init(.articlesPkey), update_columns: .some([.init(.title)]),
                where: .some(Articles(author: .some(Authors(name: .some(.init(_eq: "Bob")))))))
            let changed = HasuraAPI.articles_insert_input(id: 9, rating: 5, title: "Final")
            let updated = try await client.perform(UpsertArticleMutation(object: changed, on_conflict: .some(conflict))).value
            #expect(updated.insert_articles_one?.fragments.articleFields.title == "Final")
            #expect(updated.insert_articles_one?.fragments.articleFields.rating == 1)  // not among update_columns
            do {
                _ = try await client.perform(UpsertArticleMutation(object: changed))
                Issue.record("a duplicate key was accepted")
            } catch {
                #expect("\(error)".contains("Uniqueness violation"), "\(error)")
            }
        }
    }
}
