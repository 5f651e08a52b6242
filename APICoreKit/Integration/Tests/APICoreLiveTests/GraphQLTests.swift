@_spi(Tools) import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

@Suite("GraphQL over HTTP against the loopback server")
struct GraphQLTests {
    @Test("a query with variables decodes into typed data, type conditions included")
    func queryWithVariables() async throws {
        try await withServer { server, client in
            let luke = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))))
            #expect(luke.value.hero?.name == "Luke Skywalker")
            #expect(luke.value.hero?.asDroid == nil)
            #expect(luke.value.hero?.friends?.compactMap { $0?.name } == ["Han Solo", "Leia Organa", "C-3PO", "R2-D2"])
            #expect(luke.metadata.source == .server)
            #expect(luke.metadata.statusCode == 200)
            #expect(luke.metadata.operationName == "HeroName")
            #expect(luke.metadata.duration > .zero)
            #expect(luke.metadata.headers["content-type"]?.hasPrefix("application/graphql-response+json") == true)

            let r2 = try await client.fetch(HeroNameQuery())
            #expect(r2.value.hero?.name == "R2-D2")
            #expect(r2.value.hero?.asDroid?.primaryFunction == "Astromech")

            let sent = try #require(server.requests(to: "graphql").first)
            #expect(sent.method == "POST")
            #expect(sent.headers["content-type"] == "application/json")
            #expect(sent.headers["accept"]?.contains("application/graphql-response+json") == true)
            let body = try JSONParser.parse(sent.body)
            #expect(body["operationName"] == "HeroName")
            #expect(body["variables"] == ["episode": "EMPIRE"])
            // The absent variable of the second call is left out, not sent as null.
            let second = try JSONParser.parse(server.requests(to: "graphql")[1].body)
            #expect(second["variables"] == nil)
        }
    }

    @Test("a request maps generated data to a domain value")
    func mapping() async throws {
        try await withServer { _, client in
            let request = GraphQLRequest(HeroNameQuery(episode: .some(.init(.jedi)))) { data in
                data.hero.map { "\($0.name) (\($0.id))" } ?? "nobody"
            }
            let name = try await client.fetch(request)
            #expect(name.value == "R2-D2 (2001)")

            struct Rejected: Error {}
            let failing = GraphQLRequest(HeroNameQuery()) { _ -> String in throw Rejected() }
            let error = await apiError { () async throws(APIError) in try await client.fetch(failing) }
            guard case .mapping(let reason) = error else {
                Issue.record("expected a mapping error, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("HeroName"))
        }
    }

    @Test("queries can travel as GET, with every variable escaped")
    func getQueries() async throws {
        try await withServer(queryMethod: .get) { server, client in
            let luke = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))))
            #expect(luke.value.hero?.name == "Luke Skywalker")
            let sent = try #require(server.requests(to: "graphql").last)
            #expect(sent.method == "GET")
            #expect(sent.query["operationName"] == "HeroName")
            #expect(sent.query["variables"] == #"{"episode":"EMPIRE"}"#)
            #expect(sent.query["query"] == HeroNameQuery.document)

            // Mutations still use POST.
            let review = try await client.perform(CreateReviewMutation(episode: .some(.init(.jedi)), review: ReviewInput(stars: 5)))
            #expect(review.value.createReview?.stars == 5)
            #expect(server.requests(to: "graphql").last?.method == "POST")
        }
    }

    @Test("a mutation with an input object; null and absent fields stay apart")
    func mutation() async throws {
        try await withServer { server, client in
            let created = try await client.perform(CreateReviewMutation(
                episode: .some(.init(.jedi)), review: ReviewInput(stars: 5, commentary: "This is a great movie!")))
            #expect(created.value.createReview?.stars == 5)
            #expect(created.value.createReview?.commentary == "This is a great movie!")
            #expect(created.value.createReview?.episode?.value == .jedi)

            _ = try await client.perform(CreateReviewMutation(episode: .null, review: ReviewInput(stars: 1, commentary: .null)))
            let body = try JSONParser.parse(try #require(server.requests(to: "graphql").last).body)
            #expect(body["variables"] == ["episode": nil, "review": ["stars": 1, "commentary": nil]])
        }
    }

    @Test("GraphQL errors keep message, path, locations, code, and the partial data")
    func partialData() async throws {
        try await withServer { _, client in
            let error = await apiError { () async throws(APIError) in try await client.fetch(HeroAndFailingQuery()) }
            guard case .graphQL(let failure) = error else {
                Issue.record("expected a GraphQL error, got \(String(describing: error))")
                return
            }
            let first = try #require(failure.errors.first)
            #expect(first.message == "the field failed on purpose")
            #expect(first.path == ["failingField"])
            #expect(first.locations == [GraphQLError.Location(line: 1, column: 49)])
            #expect(first.code == "INTERNAL_SERVER_ERROR")
            #expect(failure.statusCode == 200)
            #expect(failure.operationName == "HeroAndFailing")
            #expect(error?.recovery == .fail)
            let partial = try #require(error?.partialData(as: HeroAndFailingQuery.Data.self))
            #expect(partial.hero?.name == "R2-D2")
            #expect(partial.failingField == nil)
        }
    }

    @Test("UNAUTHENTICATED asks the caller to re-authenticate; HTTP 401 is its own case")
    func unauthenticated() async throws {
        try await withServer { server, client in
            let error = await apiError { () async throws(APIError) in try await client.fetch(ProtectedQuery()) }
            guard case .graphQL(let failure) = error else {
                Issue.record("expected a GraphQL error, got \(String(describing: error))")
                return
            }
            #expect(failure.errors.first?.code == "UNAUTHENTICATED")
            #expect(error?.recovery == .reauthenticate)

            server.respond("graphql", status: 401, contentType: "application/json", body: #"{"message":"token expired"}"#)
            let http = await apiError { () async throws(APIError) in try await client.fetch(HeroNameQuery()) }
            guard case .unauthorized(let unauthorized) = http else {
                Issue.record("expected unauthorized, got \(String(describing: http))")
                return
            }
            #expect(unauthorized.statusCode == 401)
            #expect(unauthorized.bodyExcerpt.contains("token expired"))
            #expect(http?.recovery == .reauthenticate)
        }
    }

    @Test("a request error comes back as 400 with application/graphql-response+json, and is read as GraphQL errors")
    func requestError() async throws {
        try await withServer { _, client in
            let error = await apiError { () async throws(APIError) in try await client.fetch(InvalidQuery()) }
            guard case .graphQL(let failure) = error else {
                Issue.record("expected a GraphQL error, got \(String(describing: error))")
                return
            }
            #expect(failure.statusCode == 400)
            #expect(failure.errors.first?.message.contains("doesNotExist") == true)
            #expect(failure.partialData == nil)
        }
    }

    @Test("status codes outside 2xx without a GraphQL body are HTTP errors with an excerpt")
    func httpStatus() async throws {
        try await withServer { server, client in
            server.respond("graphql", status: 503, contentType: "text/plain", body: "down for maintenance")
            let error = await apiError { () async throws(APIError) in try await client.fetch(HeroNameQuery()) }
            guard case .httpStatus(let failure) = error else {
                Issue.record("expected an HTTP status error, got \(String(describing: error))")
                return
            }
            #expect(failure.statusCode == 503)
            #expect(failure.bodyExcerpt == "down for maintenance")
            #expect(error?.recovery == .retry)
        }
    }

    @Test("a 200 body that is not JSON, not a GraphQL response, or has no data")
    func invalidBodies() async throws {
        try await withServer { server, client in
            server.respond("graphql", status: 200, contentType: "application/json", body: #"{"data": {"hero": "#)
            let garbage = await apiError { () async throws(APIError) in try await client.fetch(HeroNameQuery()) }
            guard case .invalidResponse(let failure) = garbage, case .notJSON(let parse) = failure.kind else {
                Issue.record("expected notJSON, got \(String(describing: garbage))")
                return
            }
            #expect(parse.offset == 18)
            #expect(parse.message == "unexpected end of input")
            #expect(failure.request == "HeroName")

            server.respond("graphql", status: 200, body: #"{"result": 1}"#)
            let notGraphQL = await apiError { () async throws(APIError) in try await client.fetch(HeroNameQuery()) }
            guard case .invalidResponse(let notGraphQLFailure) = notGraphQL, case .notGraphQLResponse = notGraphQLFailure.kind else {
                Issue.record("expected notGraphQLResponse, got \(String(describing: notGraphQL))")
                return
            }

            server.respond("graphql", status: 200, body: #"{"data": null}"#)
            let noData = await apiError { () async throws(APIError) in try await client.fetch(HeroNameQuery()) }
            guard case .invalidResponse(let noDataFailure) = noData, case .noData = noDataFailure.kind else {
                Issue.record("expected noData, got \(String(describing: noData))")
                return
            }
        }
    }

    @Test("data of the wrong shape names the field and its path")
    func wrongShape() async throws {
        try await withServer { server, client in
            server.respond(
                "graphql", status: 200,
                body: #"{"data":{"hero":{"__typename":"Droid","id":"2001","name":"R2-D2","primaryFunction":"Astromech","friends":[{"__typename":"Human","name":7}]}}}"#
            )
            let error = await apiError { () async throws(APIError) in try await client.fetch(HeroNameQuery()) }
            guard case .invalidResponse(let failure) = error, case .wrongShape(let shape) = failure.kind else {
                Issue.record("expected wrongShape, got \(String(describing: error))")
                return
            }
            #expect(shape.path == ["data", "hero", "friends", 0, "name"])
            #expect(shape.message == "expected a string, found a number")
            #expect(failure.description.contains("data.hero.friends.0.name"))

            server.respond("graphql", status: 200, body: #"{"data":{"hero":{"__typename":"Droid","id":"2001","friends":null}}}"#)
            let missing = await apiError { () async throws(APIError) in try await client.fetch(HeroNameQuery()) }
            guard case .invalidResponse(let missingFailure) = missing, case .wrongShape(let missingShape) = missingFailure.kind else {
                Issue.record("expected wrongShape, got \(String(describing: missing))")
                return
            }
            #expect(missingShape.path == ["data", "hero", "name"])
            #expect(missingShape.message == "missing field 'name'")
        }
    }

    @Test("a field that @include/@skip leaves out cannot crash the reader, whatever the server sends for it")
    func hostileConditionalField() async throws {
        // Before: validation skipped the left-out fields, then the accessors trapped ("a validated
        // selection set could not read name: expected a string, found a number").
        try await withServer { server, client in
            server.respond(
                "graphql", status: 200,
                body: #"{"data":{"hero":{"__typename":"Droid","name":7,"friends":"none","primaryFunction":{"a":1}}}}"#)
            let hero = try await client.fetch(HeroConditionalQuery(withName: false, skipFriends: true)).value.hero
            #expect(hero?.name == nil)
            #expect(hero?.friends == nil)
            #expect(hero?.asDroid?.primaryFunction == nil)

            server.respond("graphql", status: 200, body: #"{"data":{"hero":{"__typename":"Droid","name":7}}}"#)
            let error = await apiError { () async throws(APIError) in
                try await client.fetch(HeroConditionalQuery(withName: true, skipFriends: true))
            }
            guard case .invalidResponse(let failure) = error, case .wrongShape(let shape) = failure.kind else {
                Issue.record("expected wrongShape, got \(String(describing: error))")
                return
            }
            #expect(shape.path == ["data", "hero", "name"])
        }
    }
}
