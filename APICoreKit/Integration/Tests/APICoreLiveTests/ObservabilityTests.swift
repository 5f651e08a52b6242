import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import Logging
import MetricsTestKit
import StarWarsOperations
import Synchronization
import Testing

@Suite("Logging and metrics")
struct ObservabilityTests {
    @Test("a trace-level log of logins, refreshes, cookies and queries holds no secret")
    func noSecrets() async throws {
        let log = LogCapture()
        let server = try await TestServer.start()
        let tokens = server.currentTokens
        let store = InMemoryTokenStore(AuthToken(accessToken: tokens.access, refreshToken: tokens.refresh))
        let client = makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, logger: log.logger, authentication: bearer(store), retryPolicy: nil))
        _ = try await client.send(RESTRequest<[String: String]>.get("me"))
        server.expireAccessToken()
        _ = try await client.fetch(ProtectedQuery(), cachePolicy: .networkOnly)
        let login = try await client.send(RESTRequest<Tokens>.post("auth/login", body: ["user": "ada", "password": "hunter2"]))

        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "apicore-log-\(UUID().uuidString)")
        let cookieClient = makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, logger: log.logger, authentication: .cookies(storage), retryPolicy: nil))
        _ = try await cookieClient.send(RESTRequest<JSONValue>.post("session/login", body: ["user": "ada"]))
        _ = try await cookieClient.send(RESTRequest<[String: String]>.get("session/me"))
        let session = try #require(storage.cookies(for: server.baseURL)?.first?.value)
        await server.stop()

        let text = log.text
        let secrets = [tokens.access, tokens.refresh, server.currentTokens.access, server.currentTokens.refresh,
                       login.value.accessToken, login.value.refreshToken, "hunter2", session]
        for secret in secrets { #expect(!text.contains(secret), "the log contains a secret: \(secret)") }
        #expect(text.contains("<redacted>"))
        #expect(log.all.contains { $0.hasPrefix("[info] GET http://127.0.0.1:\(server.port)/me → 200") })
        // The stale token's first attempt failed (logged), the refresh and the retry succeeded.
        #expect(log.all.contains { $0.hasPrefix("[notice] POST") && $0.contains("failed") && $0.contains("UNAUTHENTICATED") })
        #expect(log.all.contains { $0.hasPrefix("[info] POST http://127.0.0.1:\(server.port)/auth/refresh → 200") })
        #expect(log.all.contains { $0.contains("operation=Protected") && $0.contains("status=200") })
        #expect(text.contains("duration.ms="))
    }

    @Test("requests, errors by kind, latency, cache hits and misses are counted")
    func metrics() async throws {
        let metrics = TestMetrics()
        let server = try await TestServer.start()
        let client = makeTestClient(APIClientConfiguration(restBaseURL: server.baseURL, metricsFactory: metrics, retryPolicy: nil))
        _ = try await client.fetch(HumanQuery(id: "1000"))
        _ = try await client.fetch(HumanQuery(id: "1000"))
        server.respond("broken", status: 500, contentType: "text/plain", body: "boom")
        _ = try? await client.send(RESTRequest<JSONValue>.get("broken"))
        await server.stop()

        #expect(try metrics.expectCounter("apicore_requests_total", [("kind", "query"), ("operation", "Human")]).totalValue == 1)
        #expect(try metrics.expectCounter("apicore_cache_misses_total", [("operation", "Human")]).totalValue == 1)
        #expect(try metrics.expectCounter("apicore_cache_hits_total", [("operation", "Human")]).totalValue == 1)
        #expect(try metrics.expectCounter("apicore_errors_total", [("kind", "rest"), ("operation", "GET broken"), ("error", "http.500")]).totalValue == 1)
        #expect(try metrics.expectTimer("apicore_request_duration", [("kind", "query"), ("operation", "Human")]).values.count == 1)
    }
}
