import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

/// HTTP batching against the loopback server, which answers a JSON array as Apollo Server does
/// with `allowBatchedHttpRequests` on (and refuses it as it does with it off).
@Suite("HTTP batching")
struct BatchingTests {
    static let humans = ["1000": "Luke Skywalker", "1001": "Darth Vader", "1002": "Han Solo", "1003": "Leia Organa", "1004": "Wilhuff Tarkin"]

    static func client(_ server: TestServer, window: Duration, maxOperations: Int = 10, cache: Bool = false) -> any APIClient {
        makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, cache: cache ? CacheConfiguration() : nil, retryPolicy: nil, deduplicatesQueries: false,
            batching: HTTPBatching(window: window, maxOperations: maxOperations)))
    }

    /// The names each query answered, by id, fetched all at once.
    static func fetchAll(_ ids: [String], with client: any APIClient) async -> [String: Result<String?, APIError>] {
        await withTaskGroup(of: (String, Result<String?, APIError>).self) { group in
            for id in ids {
                group.addTask {
                    do throws(APIError) {
                        return (id, .success(try await client.fetch(HumanQuery(id: id), cachePolicy: .networkOnly).value.human?.name))
                    } catch {
                        return (id, .failure(error))
                    }
                }
            }
            var results: [String: Result<String?, APIError>] = [:]
            for await (id, result) in group { results[id] = result }
            return results
        }
    }

    @Test("a full batch leaves at once as one POST of an array; each caller gets its own answer")
    func fullBatch() async throws {
        let server = try await TestServer.start()
        // A window far longer than the test: only filling the batch can send it.
        let client = Self.client(server, window: .seconds(600), maxOperations: 5)
        let results = await Self.fetchAll(Self.humans.keys.sorted(), with: client)
        for (id, name) in Self.humans { #expect(try results[id]?.get() == name, "\(id)") }
        #expect(server.batchSizes == [5])
        let posts = server.requests(to: "graphql")
        #expect(posts.count == 1)
        #expect(posts.first?.headers["content-type"] == "application/json")
        await server.stop()
    }

    @Test("operations gathered within the window go together; the rest go in the next batch")
    func window() async throws {
        let server = try await TestServer.start()
        let client = Self.client(server, window: .seconds(2), maxOperations: 3)
        let results = await Self.fetchAll(Self.humans.keys.sorted(), with: client)
        for (id, name) in Self.humans { #expect(try results[id]?.get() == name, "\(id)") }
        // Three leave when the batch is full, two when the window closes.
        #expect(server.batchSizes == [3, 2])
        await server.stop()
    }

    @Test("in one batch, an operation's errors are its own: the others succeed")
    func errorsStayWithTheirOperation() async throws {
        let server = try await TestServer.start()
        let client = Self.client(server, window: .seconds(600), maxOperations: 3)
        async let hero = client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        async let invalid = Self.outcome { () async throws(APIError) in try await client.fetch(InvalidQuery(), cachePolicy: .networkOnly) }
        async let review = client.perform(CreateReviewMutation(episode: nil, review: ReviewInput(stars: 5)))
        #expect(try await hero.value.hero?.name == "R2-D2")
        #expect(try await review.value.createReview?.stars == 5)
        guard case .failure(.graphQL(let failure)) = await invalid else {
            Issue.record("expected the invalid query's own GraphQL error, got \(await invalid)")
            return await server.stop()
        }
        #expect(failure.operationName == "Invalid")
        #expect(failure.errors.first?.message.contains("doesNotExist") == true)
        #expect(server.batchSizes == [3])
        await server.stop()
    }

    @Test("a request that opts out, or whose headers differ, goes on its own; a batch of one is a plain request")
    func optOutAndHeaders() async throws {
        // The client lives inside: released before the server stops, its pooled connections close first.
        try await TestServer.with { (server: TestServer) async throws in
            let client = Self.client(server, window: .milliseconds(200), maxOperations: 2)
            var alone = GraphQLRequest(HumanQuery(id: "1000"))
            alone.allowsBatching = false
            let other = GraphQLRequest(HumanQuery(id: "1001"), headers: ["x-tenant": "b"])
            async let first = client.fetch(alone, cachePolicy: .networkOnly)
            async let second = client.fetch(GraphQLRequest(HumanQuery(id: "1002")), cachePolicy: .networkOnly)
            async let third = client.fetch(other, cachePolicy: .networkOnly)
            #expect(try await first.value.human?.name == "Luke Skywalker")
            #expect(try await second.value.human?.name == "Han Solo")
            #expect(try await third.value.human?.name == "Darth Vader")
            #expect(server.batchSizes.isEmpty)
            let bodies = server.requests(to: "graphql").map { String(decoding: $0.body, as: UTF8.self) }
            #expect(bodies.count == 3)
            #expect(bodies.allSatisfy { $0.hasPrefix("{") })
        }
    }

    @Test("a server that does not batch: every caller in the batch gets a clear error naming its operation")
    func serverWithoutBatching() async throws {
        let server = try await TestServer.start()
        server.refuseBatches()
        let client = Self.client(server, window: .seconds(600), maxOperations: 2)
        let results = await Self.fetchAll(["1000", "1001"], with: client)
        for id in ["1000", "1001"] {
            guard case .failure(.invalidResponse(let failure))? = results[id] else {
                Issue.record("expected an invalid response for \(id), got \(String(describing: results[id]))")
                continue
            }
            #expect(failure.kind == .notBatchAnswer(operations: 2))
            #expect(failure.statusCode == 400)
            #expect(failure.request == "Human")
            #expect(failure.description.contains("Operation batching disabled"))
            #expect(failure.description.contains("HTTPBatching"))
        }

        // One object with 200, as a server that reads only the first operation might answer.
        server.respond("/graphql", status: 200, body: #"{"data":{"human":null}}"#)
        let again = await Self.fetchAll(["1002", "1003"], with: client)
        guard case .failure(.invalidResponse(let failure))? = again["1002"] else {
            Issue.record("expected an invalid response, got \(String(describing: again["1002"]))")
            return await server.stop()
        }
        #expect(failure.kind == .notBatchAnswer(operations: 2))
        #expect(failure.statusCode == 200)
        await server.stop()
    }

    @Test("a batch answered 503 gives each caller the 503; a transport failure reaches every caller")
    func wholeBatchFailures() async throws {
        let server = try await TestServer.start()
        let client = Self.client(server, window: .seconds(600), maxOperations: 2)
        server.respond("/graphql", status: 503, contentType: "text/plain", body: "down for maintenance")
        let results = await Self.fetchAll(["1000", "1001"], with: client)
        for id in ["1000", "1001"] {
            guard case .failure(.httpStatus(let failure))? = results[id] else {
                Issue.record("expected HTTP 503 for \(id), got \(String(describing: results[id]))")
                continue
            }
            #expect(failure.statusCode == 503)
        }
        await server.stop()
        let gone = await Self.fetchAll(["1000", "1001"], with: client)
        for id in ["1000", "1001"] {
            guard case .failure(.transport)? = gone[id] else {
                Issue.record("expected a transport failure for \(id), got \(String(describing: gone[id]))")
                continue
            }
        }
    }

    @Test("a caller cancelled while its batch gathers leaves it; the others are answered")
    func cancelWhileGathering() async throws {
        let server = try await TestServer.start()
        let client = Self.client(server, window: .seconds(3), maxOperations: 10)
        let cancelled = Task { () async -> Result<String?, APIError> in
            await Self.outcome { () async throws(APIError) in try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly).value.human?.name }
        }
        async let kept = client.fetch(HumanQuery(id: "1001"), cachePolicy: .networkOnly)
        cancelled.cancel()
        guard case .failure(.cancelled) = await cancelled.value else {
            Issue.record("expected the cancelled caller to end cancelled, got \(await cancelled.value)")
            return await server.stop()
        }
        #expect(try await kept.value.human?.name == "Darth Vader")
        // The cancelled operation went nowhere: the kept one travelled alone, as a plain request.
        #expect(server.batchSizes.isEmpty)
        #expect(server.requests(to: "graphql").count == 1)
        await server.stop()
    }

    @Test("batched answers are written to the cache, as unbatched ones are")
    func cacheWrites() async throws {
        let server = try await TestServer.start()
        let client = Self.client(server, window: .seconds(600), maxOperations: 2, cache: true)
        _ = await Self.fetchAll(["1000", "1003"], with: client)
        #expect(try await client.fetch(HumanQuery(id: "1003"), cachePolicy: .cacheOnly).value.human?.name == "Leia Organa")
        #expect(server.batchSizes == [2])
        await server.stop()
    }

    @Test("a batch whose token went stale: one refresh, and each operation retried, batched again")
    func staleToken() async throws {
        let server = try await TestServer.start()
        let tokens = server.currentTokens
        let store = InMemoryTokenStore(AuthToken(accessToken: tokens.access, refreshToken: tokens.refresh))
        let client = makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, cache: nil, authentication: bearer(store), retryPolicy: nil, deduplicatesQueries: false,
            batching: HTTPBatching(window: .seconds(600), maxOperations: 2)))
        server.expireAccessToken()
        async let first = client.fetch(ProtectedQuery(), cachePolicy: .networkOnly)
        async let second = client.fetch(ProtectedQuery(), cachePolicy: .networkOnly)
        let answers = try await [first.value.protected, second.value.protected]
        #expect(answers.allSatisfy { $0 != nil })
        #expect(server.refreshCount == 1)
        #expect(server.batchSizes == [2, 2])
        await server.stop()
    }

    static func outcome<T>(_ body: () async throws(APIError) -> T) async -> Result<T, APIError> {
        do throws(APIError) {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }
}
