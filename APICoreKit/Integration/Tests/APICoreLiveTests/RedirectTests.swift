import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

/// The client follows redirects itself (URLSession's transport follows none), so that nothing the
/// app meant for one server reaches another: two loopback servers on two ports are two origins.
@Suite("Redirects")
struct RedirectTests {
    /// What the app sends with every request: a bearer token, a cookie, an API key of its own.
    static let credentials = ["Authorization": "Bearer secret-token", "Cookie": "session=secret-cookie", "X-API-Key": "secret-key"]

    static func redirect(_ status: Int, to url: URL) -> [TestServer.Canned] {
        [TestServer.Canned(status: status, contentType: "text/plain", body: "moved", headers: ["Location": url.absoluteString])]
    }

    @Test("a 307 to another origin: the query is asked again there (POST, same body), with no Authorization, Cookie or other header of the app's")
    func crossOriginDropsCredentials() async throws {
        try await TestServer.with { other in
            try await TestServer.with { server in
                server.respond("old-graphql", with: Self.redirect(307, to: other.graphQLURL))
                let client = makeTestClient(APIClientConfiguration(
                    restBaseURL: server.baseURL, graphQLURL: server.baseURL.appendingPathComponent("old-graphql"),
                    defaultHeaders: Self.credentials, retryPolicy: nil))
                let hero = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
                #expect(hero.value.hero?.name == "R2-D2")
                let first = try #require(server.requests(to: "old-graphql").first)
                #expect(first.headers["authorization"] == "Bearer secret-token")  // the app's own server got them
                let followed = try #require(other.requests(to: "graphql").first)
                #expect(followed.method == "POST")
                #expect(followed.body == first.body)
                #expect(followed.headers["content-type"]?.hasPrefix("application/json") == true)
                for name in ["authorization", "cookie", "x-api-key"] { #expect(followed.headers[name] == nil, "\(name) went to another origin") }
            }
        }
    }

    @Test("the bearer token of the client's authentication does not follow a redirect to another origin either")
    func crossOriginDropsBearerAuthentication() async throws {
        try await TestServer.with { other in
            try await TestServer.with { server in
                server.respond("moved", with: Self.redirect(302, to: other.baseURL.appendingPathComponent("echo")))
                let client = makeTestClient(APIClientConfiguration(
                    restBaseURL: server.baseURL,
                    authentication: .bearer(BearerAuthentication(store: InMemoryTokenStore(AuthToken(accessToken: "secret-token"))) { stale, _ in stale }),
                    retryPolicy: nil))
                _ = try await client.send(RESTRequest<EmptyResponse>.get("moved"))
                #expect(server.requests(to: "moved").first?.headers["authorization"] == "Bearer secret-token")
                let followed = try #require(other.requests(to: "echo").first)
                #expect(followed.headers["authorization"] == nil)
            }
        }
    }

    @Test("a redirect within the origin keeps every header, and a 303 after a POST asks with GET and no body")
    func sameOriginKeepsHeaders() async throws {
        try await withServer(defaultHeaders: Self.credentials) { server, client in
            server.respond("moved", with: Self.redirect(308, to: server.baseURL.appendingPathComponent("echo")))
            _ = try await client.send(RESTRequest<EmptyResponse>.get("moved"))
            let followed = try #require(server.requests(to: "echo").first)
            for (name, value) in Self.credentials { #expect(followed.headers[name.lowercased()] == value) }

            server.respond("form", with: Self.redirect(303, to: server.baseURL.appendingPathComponent("echo")))
            _ = try await client.send(RESTRequest<EmptyResponse>.post("form", body: ["name": "Flour"]))
            let after = try #require(server.requests(to: "echo").last)
            #expect(after.method == "GET")
            #expect(after.body.isEmpty)
            #expect(after.headers["content-type"] == nil)
        }
    }

    @Test("a redirect loop ends after ten hops with a transport error naming where it stopped")
    func loopEnds() async throws {
        // Eleven requests under one timeout: a loaded machine (a CI run beside) once took over 10 s.
        try await withServer(timeout: .seconds(120)) { server, client in
            server.respond("loop", with: Self.redirect(307, to: server.baseURL.appendingPathComponent("loop")))
            let error = await apiError { () async throws(APIError) in try await client.send(RESTRequest<EmptyResponse>.get("loop")) }
            guard case .transport(let failure)? = error else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
            #expect(failure.underlying.contains("more than 10 redirects"))
            #expect(server.requests(to: "loop").count == 11)
        }
    }
}
