import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

@Suite("Automatic persisted queries")
struct PersistedQueryTests {
    func client(_ server: TestServer, useGET: Bool = false) -> any APIClient {
        APICoreLive.makeClient(APIClientConfiguration(
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
}
