import APICore
import APICoreLive
import APICoreTestServer
import APICoreWebSocket
import Foundation
import Logging
import StarWarsOperations
import Testing

/// The WebSocket upgrade as a third-party server sees it: `Host` and `Origin` with the port, headers
/// the app sets replacing the defaults, and an upgrade refused with an HTTP status taken as the
/// server's answer, not as a network blip; then the socket re-authenticated after 4401/4403.
@Suite("WebSocket handshake and re-authentication")
struct HandshakeTests {
    /// A client whose subscriptions go to `url`.
    static func client(
        _ url: URL, headers: [String: String] = [:], reconnect: RetryPolicy? = quickReconnect, authentication: Authentication? = nil,
        restBaseURL: URL? = nil
    ) -> any APIClient {
        let subscriptions = SubscriptionConfiguration(
            url: url, transport: APICoreWebSocket.transport, headers: headers, ackTimeout: .seconds(10), keepAlive: nil, reconnect: reconnect)
        return makeTestClient(APIClientConfiguration(
            restBaseURL: restBaseURL ?? URL(string: "http://127.0.0.1:9/")!, timeout: .seconds(30), cache: nil, logger: Logger(label: "test"),
            authentication: authentication, retryPolicy: nil, subscriptions: subscriptions))
    }

    @Test("the upgrade carries Host and Origin with the port; an Origin the app sets replaces it, an empty one leaves it out",
          arguments: [nil, "https://app.example", ""])
    func originWithPort(_ configured: String?) async throws {
        let server = try ScriptedHTTPServer(answer: ScriptedHTTPServer.response(status: "403 Forbidden"))
        defer { server.stop() }
        let url = URL(string: "ws://127.0.0.1:\(server.port)/graphql")!
        let client = Self.client(url, headers: configured.map { ["origin": $0] } ?? [:], reconnect: nil)
        _ = await subscriptionError(client.subscribe(CounterSubscription(to: 1)))

        #expect(server.headerValues("Host") == ["127.0.0.1:\(server.port)"])
        switch configured {
        case nil: #expect(server.headerValues("Origin") == ["http://127.0.0.1:\(server.port)"])
        case ""?: #expect(server.headerValues("Origin") == [])
        case let value?: #expect(server.headerValues("Origin") == [value])
        }
        #expect(server.headerValues("Sec-WebSocket-Protocol") == ["graphql-transport-ws"])
        #expect(server.requests.first?.hasPrefix("GET /graphql HTTP/1.1\r\n") == true)
    }

    @Test("an upgrade refused with 401/403 asks for new credentials and 4xx fails, at once; 5xx is retried",
          arguments: [401, 403, 404, 426, 503])
    func refusedHandshake(_ status: Int) async throws {
        let server = try ScriptedHTTPServer(answer: ScriptedHTTPServer.response(status: "\(status) Refused", body: "<html>no</html>"))
        defer { server.stop() }
        let client = Self.client(URL(string: "ws://127.0.0.1:\(server.port)/graphql")!)
        let subscription = SubscriptionRecorder(client.subscribe(CounterSubscription(to: 1)))
        #expect(await subscription.waitForEnd(timeout: .seconds(30)))
        let error = try #require(subscription.error)
        guard case .webSocket(let failure) = error else {
            Issue.record("expected a WebSocket failure, got \(error)")
            return
        }
        if status >= 500 {
            // Every attempt of the policy was made, and the last failure names the status.
            guard case .gaveUp(let attempts, let last) = failure.kind else {
                Issue.record("expected the reconnection to give up, got \(failure)")
                return
            }
            #expect(attempts == quickReconnect.maxAttempts)
            #expect(last.contains("HTTP \(status)"))
            #expect(server.requests.count == quickReconnect.maxAttempts)
            #expect(error.recovery == .retry)
        } else {
            guard case .handshakeRefused(let refused, _) = failure.kind else {
                Issue.record("expected a refused handshake, got \(failure)")
                return
            }
            #expect(refused == status)
            #expect(error.description.contains("refused the WebSocket upgrade with HTTP \(status)"))
            #expect(error.recovery == ([401, 403].contains(status) ? .reauthenticate : .fail))
            #expect(server.requests.count == 1)
            #expect(!subscription.states.contains { $0.isReconnecting })
        }
    }

    @Test("after 4403 the bearer token is refreshed once and the subscription goes on; a failed refresh ends it asking for credentials",
          arguments: [true, false])
    func reauthenticatesTheSocket(_ refreshWorks: Bool) async throws {
        try await TestServer.with { server in
            let tokens = InMemoryTokenStore(AuthToken(accessToken: "stale", refreshToken: server.currentTokens.refresh))
            if !refreshWorks { server.failRefreshes() }
            let authentication = BearerAuthentication(store: tokens) { stale, client throws(APIError) in
                let fresh = try await client.send(RESTRequest<JSONValue>.post("auth/refresh", body: ["refreshToken": stale.refreshToken ?? ""])).value
                return AuthToken(accessToken: fresh["accessToken"]?.stringValue ?? "", refreshToken: fresh["refreshToken"]?.stringValue)
            }
            var behavior = WebSocketBehavior()
            behavior.requiresToken = true
            server.setWebSocketBehavior(behavior)
            let client = Self.client(server.webSocketURL, authentication: .bearer(authentication), restBaseURL: server.baseURL)
            let subscription = SubscriptionRecorder(client.subscribe(CounterSubscription(to: 2)))
            #expect(await subscription.waitForEnd(timeout: .seconds(30)))
            if refreshWorks {
                #expect(subscription.values.map(\.counter) == [1, 2])
                #expect(subscription.error == nil)
                #expect(server.refreshCount == 1)
                // The second socket carried the fresh token.
                let inits = server.webSocketMessages.filter { $0.type == "connection_init" }
                #expect(inits.count == 2)
                #expect(inits.last?.text.contains("Bearer \(server.currentTokens.access)") == true)
            } else {
                #expect(subscription.values.isEmpty)
                #expect(subscription.error?.recovery == .reauthenticate)
                #expect(subscription.error.map { if case .webSocket(let failure) = $0 { failure.closeCode == 4403 } else { false } } == true)
                #expect(server.webSocketMessages.filter { $0.type == "connection_init" }.count == 1)
            }
        }
    }
}
