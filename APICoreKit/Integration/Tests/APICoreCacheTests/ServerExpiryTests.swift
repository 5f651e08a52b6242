@_spi(Generated) @testable import APICore
@testable import APICoreLive
import APICoreTestServer
import Foundation
import Logging
import StarWarsOperations
import Testing

/// A canned answer to `HumanQuery` with these headers and `extensions`.
private func human(headers: [String: String] = [:], extensions: String? = nil) -> TestServer.Canned {
    let body = #"{"data":{"human":{"__typename":"Human","id":"1000","name":"Luke Skywalker","homePlanet":"Tatooine"}}"#
        + (extensions.map { #","extensions":"# + $0 } ?? "") + "}"
    return TestServer.Canned(status: 200, body: body, headers: headers)
}

@Suite("Server-driven cache expiry")
struct ServerExpiryTests {
    @Test("Cache-Control: max-age keeps an answer fresh; no-cache expires it at once; no-store keeps it out of the cache")
    func cacheControl() async throws {
        try await withCachingServer { server, client in
            server.respond("graphql", with: [human(headers: ["Cache-Control": "public, max-age=3600"])])
            _ = try await client.fetch(HumanQuery(id: "1000"))
            #expect(try await client.fetch(HumanQuery(id: "1000")).source == .cache)
            #expect(server.requests(to: "graphql").count == 1)

            server.respond("graphql", with: [human(headers: ["Cache-Control": "no-cache"])])
            _ = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
            let stale = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly)
            #expect(stale.metadata.isStale)
            #expect(try await client.fetch(HumanQuery(id: "1000")).source == .server)
            #expect(server.requests(to: "graphql").count == 3)

            try await client.cache.clear()
            server.respond("graphql", with: [human(headers: ["Cache-Control": "private, no-store"])])
            #expect(try await client.fetch(HumanQuery(id: "1000")).value.human?.name == "Luke Skywalker")
            await #expect(throws: APIError.self) { try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly) }
        }
    }

    @Test("Apollo cache hints: a field past its hint is a miss, though its object's hint is long")
    func cacheHints() async throws {
        try await withCachingServer { server, client in
            let hints = #"{"cacheControl":{"version":1,"hints":[{"path":["human"],"maxAge":3600},{"path":["human","homePlanet"],"maxAge":0}]}}"#
            server.respond("graphql", with: [human(extensions: hints)])
            _ = try await client.fetch(HumanQuery(id: "1000"))
            #expect(try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly).metadata.isStale)
            #expect(try await client.fetch(HumanQuery(id: "1000")).source == .server)

            let long = #"{"cacheControl":{"version":1,"hints":[{"path":["human"],"maxAge":3600}]}}"#
            server.respond("graphql", with: [human(extensions: long)])
            _ = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
            #expect(try await client.fetch(HumanQuery(id: "1000")).source == .cache)
        }
    }
}
