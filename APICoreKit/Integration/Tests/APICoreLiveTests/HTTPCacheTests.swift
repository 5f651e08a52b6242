import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

/// The client's HTTP cache (`APIClientConfiguration.httpCache`) against a loopback server that
/// answers GET queries as a CDN-fronted one does: `Cache-Control: max-age`, an `ETag`, `304` to a
/// matching `If-None-Match`.
@Suite("HTTP cache for GET queries")
struct HTTPCacheTests {
    static func client(_ server: TestServer, normalizedCache: Bool = false, directory: URL? = nil) -> any APIClient {
        return makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, queryMethod: .get, cache: normalizedCache ? CacheConfiguration() : nil, retryPolicy: nil,
            httpCache: HTTPCache(directory: directory)))
    }

    @Test("a fresh answer is given again without the network, with its age")
    func fresh() async throws {
        let server = try await TestServer.start()
        server.cacheGETAnswers(maxAge: 600)
        let client = Self.client(server)
        let first = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        let second = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        #expect(first.value.hero?.name == "R2-D2" && second.value.hero?.name == "R2-D2")
        #expect(server.requests(to: "graphql").count == 1)
        #expect(second.metadata.statusCode == 200)
        #expect(second.metadata.headers["age"] != nil)
        #expect(second.metadata.headers["etag"] == first.metadata.headers["etag"])
        // Other variables are another URL: the network.
        _ = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))), cachePolicy: .networkOnly)
        #expect(server.requests(to: "graphql").count == 2)
        await server.stop()
    }

    @Test("a stale answer is revalidated with If-None-Match; a 304 answers with the kept body")
    func revalidated() async throws {
        let server = try await TestServer.start()
        server.cacheGETAnswers(maxAge: 0)
        let client = Self.client(server)
        let first = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        let second = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        #expect(second.value.hero?.name == "R2-D2")
        #expect(second.metadata.statusCode == 200)
        let requests = server.requests(to: "graphql")
        #expect(requests.count == 2)
        #expect(requests.last?.headers["if-none-match"] == first.metadata.headers["etag"])
        #expect(server.notModifiedCount == 1)
        await server.stop()
    }

    @Test("a request's own Cache-Control: no-cache revalidates a fresh answer; no-store bypasses the cache")
    func requestDirectives() async throws {
        let server = try await TestServer.start()
        server.cacheGETAnswers(maxAge: 600)
        let client = Self.client(server)
        _ = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        _ = try await client.fetch(GraphQLRequest(HeroNameQuery(), headers: ["Cache-Control": "no-cache"]), cachePolicy: .networkOnly)
        #expect(server.notModifiedCount == 1)
        _ = try await client.fetch(GraphQLRequest(HeroNameQuery(), headers: ["Cache-Control": "no-store"]), cachePolicy: .networkOnly)
        let last = try #require(server.requests(to: "graphql").last)
        #expect(last.headers["if-none-match"] == nil)
        #expect(server.requests(to: "graphql").count == 3)
        await server.stop()
    }

    @Test("answers are kept apart by credentials: one user never gets another's")
    func credentials() async throws {
        let server = try await TestServer.start()
        server.cacheGETAnswers(maxAge: 600)
        let client = Self.client(server)
        let ada = GraphQLRequest(HeroNameQuery(), headers: ["Authorization": "Bearer ada"])
        let bob = GraphQLRequest(HeroNameQuery(), headers: ["Authorization": "Bearer bob"])
        _ = try await client.fetch(ada, cachePolicy: .networkOnly)
        _ = try await client.fetch(bob, cachePolicy: .networkOnly)
        #expect(server.requests(to: "graphql").count == 2)
        _ = try await client.fetch(ada, cachePolicy: .networkOnly)
        _ = try await client.fetch(bob, cachePolicy: .networkOnly)
        #expect(server.requests(to: "graphql").count == 2)
        await server.stop()
    }

    @Test("no-store and Vary: * answers are not kept; POST queries never are")
    func notKept() async throws {
        let server = try await TestServer.start()
        let client = Self.client(server)
        let body = #"{"data":{"hero":{"__typename":"Droid","id":"2001","name":"R2-D2","primaryFunction":"Astromech","friends":[]}}}"#
        for headers in [["Cache-Control": "no-store, max-age=600"], ["Cache-Control": "max-age=600", "Vary": "*"]] {
            server.respond("/graphql", with: [TestServer.Canned(status: 200, body: body, headers: headers)])
            let before = server.requests(to: "graphql").count
            _ = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
            _ = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
            #expect(server.requests(to: "graphql").count == before + 2, "\(headers)")
        }
        let post = makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, cache: nil, retryPolicy: nil, httpCache: HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 0)))
        server.respond("/graphql", with: [TestServer.Canned(status: 200, body: body, headers: ["Cache-Control": "max-age=600"])])
        let before = server.requests(to: "graphql").count
        _ = try await post.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        _ = try await post.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        #expect(server.requests(to: "graphql").count == before + 2)
        await server.stop()
    }

    @Test("an answer from the HTTP cache goes into the normalized cache, which cache policies read")
    func normalizedCacheStaysTheSource() async throws {
        let server = try await TestServer.start()
        server.cacheGETAnswers(maxAge: 600)
        let client = Self.client(server, normalizedCache: true)
        _ = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        try await client.cache.clear()
        let cleared = await thrownError { () async throws(APIError) in try await client.fetch(HeroNameQuery(), cachePolicy: .cacheOnly) }
        #expect(cleared != nil)
        // Answered by the HTTP cache (no request), written to the normalized cache all the same.
        let again = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        #expect(again.value.hero?.name == "R2-D2")
        #expect(server.requests(to: "graphql").count == 1)
        #expect(try await client.fetch(HeroNameQuery(), cachePolicy: .cacheOnly).value.hero?.name == "R2-D2")
        await server.stop()
    }

    @Test("answers outlive the client in the cache's directory")
    func onDisk() async throws {
        let server = try await TestServer.start()
        server.cacheGETAnswers(maxAge: 600)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apicore-http-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await Self.client(server, directory: directory).fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        let later = try await Self.client(server, directory: directory).fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        #expect(later.value.hero?.name == "R2-D2")
        #expect(server.requests(to: "graphql").count == 1)
        await server.stop()
    }

    @Test("an answer that varies by a header is kept per value of that header")
    func vary() async throws {
        let server = try await TestServer.start()
        let client = Self.client(server)
        let body = #"{"data":{"hero":{"__typename":"Droid","id":"2001","name":"R2-D2","primaryFunction":"Astromech","friends":[]}}}"#
        server.respond("/graphql", with: [TestServer.Canned(status: 200, body: body, headers: ["Cache-Control": "max-age=600", "Vary": "Accept-Language"])])
        let french = GraphQLRequest(HeroNameQuery(), headers: ["Accept-Language": "fr"])
        let english = GraphQLRequest(HeroNameQuery(), headers: ["Accept-Language": "en"])
        _ = try await client.fetch(french, cachePolicy: .networkOnly)
        _ = try await client.fetch(french, cachePolicy: .networkOnly)
        #expect(server.requests(to: "graphql").count == 1)
        _ = try await client.fetch(english, cachePolicy: .networkOnly)
        #expect(server.requests(to: "graphql").count == 2)
        await server.stop()
    }
}
