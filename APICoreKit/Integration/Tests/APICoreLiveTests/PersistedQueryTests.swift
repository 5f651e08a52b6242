@_spi(Tools) import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

@Suite("Automatic persisted queries")
struct PersistedQueryTests {
    func client(_ server: TestServer, useGET: Bool = false) -> any APIClient {
        makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, retryPolicy: nil, persistedQueries: PersistedQueries(useGETForHashedQueries: useGET)))
    }

    @Test("the hash first; on PersistedQueryNotFound the document; then the hash alone is enough")
    func roundTrip() async throws {
        let server = try await TestServer.start()
        let client = client(server)
        let first = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
        #expect(first.value.human?.name == "Luke Skywalker")
        let sent = server.requests(to: "graphql").map { try? JSONParser.parse($0.body) }
        #expect(sent.count == 2)
        let hash = SHA256.hexDigest(HumanQuery.document)
        #expect(sent[0]?["query"] == nil)
        #expect(sent[0]?["extensions"] == ["persistedQuery": ["version": 1, "sha256Hash": .string(hash)]])
        #expect(sent[1]?["query"] == .string(HumanQuery.document))
        #expect(server.persistedQueryCount == 1)

        _ = try await client.fetch(HumanQuery(id: "1003"), cachePolicy: .networkOnly)
        #expect(server.requests(to: "graphql").count == 3)
        #expect((try JSONParser.parse(server.requests(to: "graphql")[2].body))["query"] == nil)
        await server.stop()
    }

    @Test("hashed queries can travel as GET; the document after a miss goes as POST")
    func get() async throws {
        let server = try await TestServer.start()
        let client = client(server, useGET: true)
        _ = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
        _ = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
        let requests = server.requests(to: "graphql")
        #expect(requests.map(\.method) == ["GET", "POST", "GET"])
        #expect(requests[0].query["query"] == nil)
        #expect(requests[0].query["extensions"]?.contains(SHA256.hexDigest(HumanQuery.document)) == true)
        // Mutations are never sent as GET.
        _ = try await client.perform(CreateReviewMutation(episode: nil, review: ReviewInput(stars: 2)))
        #expect(server.requests(to: "graphql").suffix(2).map(\.method) == ["POST", "POST"])
        await server.stop()
    }

    @Test("PersistedQueryNotSupported: the document is sent, and hashing stops")
    func notSupported() async throws {
        let server = try await TestServer.start()
        server.refusePersistedQueries()
        let client = client(server)
        #expect(try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly).value.human?.name == "Luke Skywalker")
        _ = try await client.fetch(HumanQuery(id: "1003"), cachePolicy: .networkOnly)
        let bodies = server.requests(to: "graphql").map { try? JSONParser.parse($0.body) }
        #expect(bodies.count == 3)
        #expect(bodies[0]?["extensions"] != nil && bodies[0]?["query"] == nil)
        #expect(bodies[1]?["query"] != nil && bodies[1]?["extensions"] == nil)
        #expect(bodies[2]?["query"] != nil && bodies[2]?["extensions"] == nil)
        await server.stop()
    }

    /// What servers that never heard of persisted queries answer a hash-only request, in their words.
    static let unknowingServers: [(name: String, answer: TestServer.Canned, useGET: Bool)] = [
        ("HTTP 400, no query found", .init(status: 400, body: #"{"errors":[{"message":"No GraphQL query found in the request"}]}"#), false),
        ("a GraphQL error: the query must be a string", .init(status: 200, body: #"{"errors":[{"message":"The query must be a string."}]}"#), false),
        ("HTTP 400 as text", .init(status: 400, contentType: "text/plain", body: "Must provide query string."), false),
        ("HTTP 422 as JSON without errors", .init(status: 422, body: #"{"detail":"query is required"}"#), false),
        ("an HTML page for GET", .init(status: 200, contentType: "text/html", body: "<!DOCTYPE html><html><body>GraphiQL</body></html>"), true),
        ("HTTP 405 for GET", .init(status: 405, contentType: "text/html", body: "<h1>Method Not Allowed</h1>"), true),
    ]

    @Test("a server without persisted queries: one hash-only request, the document, then whole documents only, with a notice",
          arguments: 0..<6)
    func serverWithoutPersistedQueries(_ index: Int) async throws {
        let (name, answer, useGET) = Self.unknowingServers[index]
        let server = try await TestServer.start()
        server.ignorePersistedQueries(answering: answer)
        let log = LogCapture()
        let client = makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, logger: log.logger, retryPolicy: nil,
            persistedQueries: PersistedQueries(useGETForHashedQueries: useGET)))
        for id in ["1000", "1003", "1000"] {
            let answer = try await client.fetch(HumanQuery(id: id), cachePolicy: .networkOnly)
            #expect(answer.value.human != nil, "\(name)")
        }
        let requests = server.requests(to: "graphql")
        #expect(requests.count == 4, "\(name)")
        let hashOnly = requests.filter { $0.query["query"] == nil && (try? JSONParser.parse($0.body))?["query"] == nil }
        #expect(hashOnly.count == 1, "\(name): only the first request goes without its document")
        let notices = log.all.filter { $0.hasPrefix("[notice]") && $0.contains("persisted queries") }
        #expect(notices.count == 1, "\(name): \(log.all)")
        await server.stop()
    }

    @Test("errors of the operation itself on a hash-only request do not turn persisted queries off")
    func operationErrorsKeepHashing() async throws {
        let server = try await TestServer.start()
        let client = client(server)
        _ = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
        server.respond("graphql", with: [.init(status: 200, body: #"{"data":{"human":null},"errors":[{"message":"no human","path":["human"]}]}"#)])
        _ = try? await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
        server.respond("graphql", with: [.init(status: 503, contentType: "text/plain", body: "busy")])
        _ = try? await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
        let bodies = server.requests(to: "graphql").map { try? JSONParser.parse($0.body) }
        #expect(bodies.count == 4)
        #expect(bodies.suffix(2).allSatisfy { $0?["query"] == nil && $0?["extensions"] != nil })
        await server.stop()
    }
}

@Suite("Persisted-only operations (a server locked to its safelist)")
struct PersistedOnlyTests {
    func client(_ server: TestServer, useGET: Bool = false) -> any APIClient {
        makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, retryPolicy: nil, persistedQueries: .persistedOnly(useGET: useGET)))
    }

    static func entry(_ document: String) -> (String, String) { (SHA256.hexDigest(document), document) }

    @Test("ids alone, queries as GET and mutations as POST; the server runs them from its list")
    func idsAlone() async throws {
        let server = try await TestServer.start()
        server.lockToSafelist(Dictionary(uniqueKeysWithValues: [Self.entry(HumanQuery.document), Self.entry(CreateReviewMutation.document)]))
        let client = client(server, useGET: true)
        #expect(try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly).value.human?.name == "Luke Skywalker")
        #expect(try await client.perform(CreateReviewMutation(episode: nil, review: ReviewInput(stars: 5))).value.createReview?.stars == 5)
        let requests = server.requests(to: "graphql")
        #expect(requests.map(\.method) == ["GET", "POST"])
        #expect(requests[0].query["query"] == nil)
        #expect(requests[0].query["extensions"]?.contains(SHA256.hexDigest(HumanQuery.document)) == true)
        let body = try JSONParser.parse(requests[1].body)
        #expect(body["query"] == nil)
        #expect(body["extensions"] == ["persistedQuery": ["version": 1, "sha256Hash": .string(SHA256.hexDigest(CreateReviewMutation.document))]])
        await server.stop()
    }

    @Test("an id the server does not know: an invalid request naming the operation and the id, and no document sent")
    func unknownID() async throws {
        let server = try await TestServer.start()
        server.lockToSafelist([:])
        let error = await apiError { () async throws(APIError) in try await client(server).fetch(HeroNameQuery(), cachePolicy: .networkOnly) }
        guard case .invalidRequest(let message)? = error else {
            Issue.record("expected an invalid request, got \(String(describing: error))")
            return await server.stop()
        }
        #expect(message.contains("HeroName") && message.contains(SHA256.hexDigest(HeroNameQuery.document)))
        #expect(server.requests(to: "graphql").count == 1)
        #expect(server.requests(to: "graphql").allSatisfy { !String(decoding: $0.body, as: UTF8.self).contains("\"query\"") })
        await server.stop()
    }

    @Test("a server without persisted queries: a clear error naming the operation, never the document", arguments: [false, true])
    func serverWithout(_ ignorant: Bool) async throws {
        let server = try await TestServer.start()
        if ignorant {
            server.ignorePersistedQueries(answering: .init(status: 400, body: #"{"errors":[{"message":"No GraphQL query found in the request"}]}"#))
        } else {
            server.refusePersistedQueries()
        }
        let error = await apiError { () async throws(APIError) in try await client(server).fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly) }
        guard case .invalidRequest(let message)? = error else {
            Issue.record("expected an invalid request, got \(String(describing: error))")
            return await server.stop()
        }
        #expect(message.hasPrefix("Human: the server"))
        #expect(message.contains("persisted-only"))
        #expect(server.requests(to: "graphql").count == 1)
        await server.stop()
    }
}
