import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Synchronization
import Testing

struct Tokens: Decodable, Sendable {
    var accessToken: String
    var refreshToken: String
}

/// Counts calls from any task.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// Bearer authentication whose refresh calls the test server's `/auth/refresh`.
func bearer(_ store: any TokenStore, refreshCalls: Counter? = nil) -> Authentication {
    .bearer(BearerAuthentication(store: store) { stale, client throws(APIError) in
        refreshCalls?.increment()
        let tokens = try await client.send(RESTRequest<Tokens>.post("auth/refresh", body: ["refreshToken": stale.refreshToken ?? ""])).value
        return AuthToken(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken)
    })
}

@Suite("Retries")
struct RetryTests {
    let fast = RetryPolicy(maxAttempts: 4, initialDelay: .milliseconds(100), multiplier: 2, maxDelay: .seconds(2), jitter: 0.2)

    @Test("a server that fails twice: three attempts, waits growing within the jitter bounds")
    func backoff() async throws {
        try await withServer(retryPolicy: fast) { server, client in
            server.respond("flaky", with: [
                .init(status: 503, contentType: "text/plain", body: "busy"),
                .init(status: 502, contentType: "text/plain", body: "gateway"),
                .init(status: 200, body: #"{"ok": true}"#),
            ])
            let response = try await client.send(RESTRequest<JSONValue>.get("flaky"))
            #expect(response.value == ["ok": true])
            let times = server.requests(to: "flaky").map(\.receivedAt)
            #expect(times.count == 3)
            let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
            // Lower bounds are the policy (100 ms then 200 ms, ±20 %); upper bounds leave room for a busy machine.
            #expect(gaps[0] >= .milliseconds(80) && gaps[0] < .seconds(5))
            #expect(gaps[1] >= .milliseconds(160) && gaps[1] < .seconds(5))
        }
    }

    @Test("attempts are bounded: the last error comes back")
    func bounded() async throws {
        let policy = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(20), jitter: 0)
        try await withServer(retryPolicy: policy) { server, client in
            server.respond("down", status: 503, contentType: "text/plain", body: "down")
            let error = await apiError { () async throws(APIError) in try await client.send(RESTRequest<JSONValue>.get("down")) }
            #expect(error?.statusCode == 503)
            #expect(server.requests(to: "down").count == 3)
        }
    }

    @Test("Retry-After is honoured")
    func retryAfter() async throws {
        try await withServer(retryPolicy: fast) { server, client in
            server.respond("limited", with: [
                .init(status: 429, contentType: "text/plain", body: "slow down", headers: ["Retry-After": "1"]),
                .init(status: 200, body: #"{"ok": true}"#),
            ])
            _ = try await client.send(RESTRequest<JSONValue>.get("limited"))
            let times = server.requests(to: "limited").map(\.receivedAt)
            #expect(times.count == 2)
            #expect(times[1] - times[0] >= .milliseconds(950))
        }
    }

    @Test("a mutation is not retried unless the request opts in; a 404 is never retried")
    func mutations() async throws {
        try await withServer(retryPolicy: fast) { server, client in
            server.respond("graphql", with: [.init(status: 503, contentType: "text/plain", body: "busy"), .init(status: 503, contentType: "text/plain", body: "busy")])
            let error = await apiError { () async throws(APIError) in
                try await client.perform(CreateReviewMutation(episode: nil, review: ReviewInput(stars: 1)))
            }
            #expect(error?.statusCode == 503)
            #expect(server.requests(to: "graphql").count == 1)

            server.respond("graphql", with: [
                .init(status: 503, contentType: "text/plain", body: "busy"),
                .init(status: 200, body: #"{"data": {"createReview": {"__typename": "Review", "stars": 1, "commentary": null, "episode": null}}}"#),
            ])
            var optedIn = GraphQLRequest(CreateReviewMutation(episode: nil, review: ReviewInput(stars: 1)))
            optedIn.isIdempotent = true
            let retried = try await client.perform(optedIn)
            #expect(retried.value.createReview?.stars == 1)
            #expect(server.requests(to: "graphql").count == 3)

            server.respond("missing", status: 404, contentType: "text/plain", body: "no")
            _ = await apiError { () async throws(APIError) in try await client.send(RESTRequest<JSONValue>.get("missing")) }
            #expect(server.requests(to: "missing").count == 1)
        }
    }

    @Test("cancelling the caller stops retrying at once")
    func cancellation() async throws {
        let slow = RetryPolicy(maxAttempts: 5, initialDelay: .seconds(60), jitter: 0)
        try await withServer(retryPolicy: slow) { server, client in
            server.respond("down", status: 503, contentType: "text/plain", body: "down")
            let start = ContinuousClock.now
            let task = Task { () async throws(APIError) -> Response<JSONValue> in try await client.send(RESTRequest<JSONValue>.get("down")) }
            #expect(await eventually { server.requests(to: "down").count == 1 })
            task.cancel()
            guard case .failure(let error) = await task.result, case .cancelled? = error as? APIError else {
                Issue.record("expected cancelled")
                return
            }
            #expect(ContinuousClock.now - start < .seconds(30))  // the policy would wait 60 s
            #expect(server.requests(to: "down").count == 1)
        }
    }
}

@Suite("Authentication")
struct AuthenticationTests {
    @Test("twenty concurrent requests meeting an expired token: one refresh, all twenty succeed")
    func singleFlightRefresh() async throws {
        // The client lives inside: released before the server stops, its pooled connections close
        // first (a live client kept them idle, and the server's stop waited for their timeout).
        try await TestServer.with { (server: TestServer) async throws in
            let tokens = server.currentTokens
            let store = InMemoryTokenStore(AuthToken(accessToken: tokens.access, refreshToken: tokens.refresh))
            let calls = Counter()
            let client = makeTestClient(APIClientConfiguration(
                restBaseURL: server.baseURL, cache: nil, authentication: bearer(store, refreshCalls: calls), retryPolicy: nil))
            #expect(try await client.send(RESTRequest<[String: String]>.get("me")).value == ["name": "Ada"])
            server.expireAccessToken()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        if index.isMultiple(of: 2) {
                            let me = try await client.send(RESTRequest<[String: String]>.get("me"))
                            #expect(me.value == ["name": "Ada"])
                        } else {
                            // GraphQL's UNAUTHENTICATED counts as a stale token too.
                            let secret = try await client.fetch(ProtectedQuery(), cachePolicy: .networkOnly)
                            #expect(secret.value.protected == "the secret plans")
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(server.refreshCount == 1)
            #expect(calls.value == 1)
            #expect(await store.token()?.accessToken == server.currentTokens.access)
        }
    }

    @Test("a failed refresh is unauthorized and clears the token")
    func failedRefresh() async throws {
        let server = try await TestServer.start()
        let tokens = server.currentTokens
        let store = InMemoryTokenStore(AuthToken(accessToken: tokens.access, refreshToken: tokens.refresh))
        let client = makeTestClient(APIClientConfiguration(restBaseURL: server.baseURL, authentication: bearer(store), retryPolicy: nil))
        server.expireAccessToken()
        server.failRefreshes()
        let error = await apiError { () async throws(APIError) in try await client.send(RESTRequest<[String: String]>.get("me")) }
        guard case .unauthorized(let failure) = error else {
            Issue.record("expected unauthorized, got \(String(describing: error))")
            await server.stop()
            return
        }
        #expect(failure.bodyExcerpt.contains("sign in again"))
        #expect(await store.token() == nil)
        await server.stop()
    }

    @Test("the file token store keeps the token across instances, readable by its owner only")
    func fileStore() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("apicore-token-\(UUID().uuidString)/token.json")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        await FileTokenStore(url: url).setToken(AuthToken(accessToken: "a", refreshToken: "r"))
        #expect(await FileTokenStore(url: url).token() == AuthToken(accessToken: "a", refreshToken: "r"))
        let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        await FileTokenStore(url: url).clear()
        #expect(await FileTokenStore(url: url).token() == nil)
        #expect(!"\(AuthToken(accessToken: "secret-a", refreshToken: "secret-r"))".contains("secret"))
    }

    @Test("a cookie session: the Set-Cookie answer is kept in the app's storage and sent back")
    func cookies() async throws {
        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "apicore-tests-\(UUID().uuidString)")
        try await withServer(authentication: .cookies(storage)) { server, client in
            let before = await apiError { () async throws(APIError) in try await client.send(RESTRequest<[String: String]>.get("session/me")) }
            #expect(before?.statusCode == 401)
            _ = try await client.send(RESTRequest<JSONValue>.post("session/login", body: ["user": "ada"]))
            #expect(storage.cookies(for: server.baseURL)?.first?.name == "session")
            let me = try await client.send(RESTRequest<[String: String]>.get("session/me"))
            #expect(me.value == ["name": "Ada"])
        }
    }
}
