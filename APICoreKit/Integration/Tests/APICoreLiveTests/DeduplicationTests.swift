import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

/// Identical queries in flight share one request. Answers are held back by a gate, and a caller
/// that joins a request under way says so in the log, so the tests wait on events, not timers.
@Suite("De-duplication")
struct DeduplicationTests {
    static let luke = #"{"data":{"human":{"__typename":"Human","id":"1000","name":"Luke","homePlanet":null}}}"#

    /// How many callers joined a request already under way.
    static func joins(_ log: LogCapture) -> Int { log.all.filter { $0.contains("shares the identical request in flight") }.count }

    @Test("identical queries in flight share one request; each caller maps its own value")
    func shared() async throws {
        let log = LogCapture()
        try await withServer(logger: log.logger) { server, client in
            let gate = TestServer.Gate()
            server.respond("graphql", with: [.init(status: 200, body: Self.luke, gate: gate), .init(status: 200, body: Self.luke)])
            let a = Task { () async throws(APIError) in
                try await client.fetch(GraphQLRequest(HumanQuery(id: "1000")) { $0.human?.name }, cachePolicy: .networkOnly)
            }
            let b = Task { () async throws(APIError) in
                try await client.fetch(GraphQLRequest(HumanQuery(id: "1000")) { $0.human?.id }, cachePolicy: .networkOnly)
            }
            let c = Task { () async throws(APIError) in
                try await client.fetch(GraphQLRequest(HumanQuery(id: "1000")) { $0.human?.name.count }, cachePolicy: .networkOnly)
            }
            #expect(await eventually { server.requests(to: "graphql").count == 1 && Self.joins(log) == 2 })
            gate.open()
            let (name, id, length) = try await (a.value, b.value, c.value)
            #expect(name.value == "Luke")
            #expect(id.value == "1000")
            #expect(length.value == 4)
            #expect(server.requests(to: "graphql").count == 1)
            // Different variables are a different request; a later identical one is a new request.
            _ = try await client.fetch(HumanQuery(id: "1001"), cachePolicy: .networkOnly)
            _ = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
            #expect(server.requests(to: "graphql").count == 3)
            #expect(Self.joins(log) == 2)
        }
    }

    @Test("one caller cancelling does not cancel the others; mutations are never shared")
    func cancellationAndMutations() async throws {
        let log = LogCapture()
        try await withServer(logger: log.logger) { server, client in
            let gate = TestServer.Gate()
            server.respond("graphql", with: [.init(status: 200, body: Self.luke, gate: gate)])
            let leaving = Task { () async throws(APIError) in try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly) }
            let staying = Task { () async throws(APIError) in try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly) }
            #expect(await eventually { server.requests(to: "graphql").count == 1 && Self.joins(log) == 1 })
            leaving.cancel()
            guard case .failure(let error) = await leaving.result, case .cancelled? = error as? APIError else {
                Issue.record("expected the cancelled caller to see cancelled")
                return
            }
            gate.open()
            let kept = try await staying.value
            #expect(kept.value.human?.name == "Luke")
            #expect(server.requests(to: "graphql").count == 1)

            // Two identical mutations held at the server at once: two requests, neither shared.
            let held = TestServer.Gate()
            server.respond("graphql", with: [.init(
                status: 200, body: #"{"data":{"createReview":{"__typename":"Review","stars":1,"commentary":null,"episode":null}}}"#, gate: held)])
            let first = Task { () async throws(APIError) in try await client.perform(CreateReviewMutation(episode: nil, review: ReviewInput(stars: 1))) }
            let second = Task { () async throws(APIError) in try await client.perform(CreateReviewMutation(episode: nil, review: ReviewInput(stars: 1))) }
            #expect(await eventually { server.requests(to: "graphql").count == 3 })
            held.open()
            _ = try await (first.value, second.value)
            #expect(server.requests(to: "graphql").count == 3)
            #expect(Self.joins(log) == 1)
        }
    }
}
