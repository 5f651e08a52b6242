@_spi(Generated) import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

/// The two channels whose subscriptions are one streamed POST each.
enum HTTPChannel: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// Apollo's multipart protocol.
    case multipart
    /// graphql-sse's distinct connections mode.
    case serverSentEvents

    var testDescription: String { rawValue }

    func configuration(url: URL) -> SubscriptionConfiguration {
        switch self {
        case .multipart: return .multipartHTTP(url: url, ackTimeout: .seconds(30), keepAlive: nil, reconnect: nil)
        case .serverSentEvents: return .serverSentEvents(url: url, ackTimeout: .seconds(30), keepAlive: nil, reconnect: nil)
        }
    }

    /// What the request's `Accept` header starts with.
    var accept: String { self == .multipart ? "multipart/mixed;subscriptionSpec=1.0" : "text/event-stream" }

    /// What a stream cut off before its end is said to lack.
    var missingEnd: String { self == .multipart ? "closing boundary" : "complete event" }
}

/// A client whose subscriptions go over `channel` to a fresh loopback server.
private func withHTTP<T>(
    _ channel: HTTPChannel,
    cache: CacheConfiguration? = CacheConfiguration(),
    authentication: Authentication? = nil,
    adjust: (inout SubscriptionConfiguration) -> Void = { _ in },
    _ body: (TestServer, any APIClient) async throws -> T
) async throws -> T {
    try await TestServer.with { server in
        var subscriptions = channel.configuration(url: server.graphQLURL)
        adjust(&subscriptions)
        let client = makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, timeout: .seconds(30), cache: cache, authentication: authentication, retryPolicy: nil,
            subscriptions: subscriptions))
        return try await body(server, client)
    }
}

@Suite("Subscriptions over streamed HTTP: multipart and server-sent events (graphql-sse)")
struct HTTPSubscriptionTests {
    @Test("a subscription streams typed events over one POST and ends when the server completes it", arguments: HTTPChannel.allCases)
    func streamsAndCompletes(channel: HTTPChannel) async throws {
        try await withHTTP(channel) { server, client in
            var numbers: [Int] = []
            for try await data in client.subscribe(CounterSubscription(to: 5)) { numbers.append(data.counter) }
            #expect(numbers == [1, 2, 3, 4, 5])
            let requests = server.requests(to: "/graphql")
            #expect(requests.count == 1)
            #expect(requests.first?.method == "POST")
            #expect(requests.first?.headers["accept"]?.hasPrefix(channel.accept) == true)
            #expect(server.webSocketConnectionCount == 0)
        }
    }

    @Test("heartbeats keep the stream open without producing events; events from mutations arrive between them", arguments: HTTPChannel.allCases)
    func heartbeats(channel: HTTPChannel) async throws {
        try await withHTTP(channel, adjust: { $0.keepAlive = .seconds(5) }) { server, client in
            server.setSubscriptionHeartbeat(.milliseconds(10))
            let request = GraphQLRequest(ReviewAddedSubscription(episode: .some(.init(.jedi)))) { $0.reviewAdded?.stars }
            let reviews = SubscriptionRecorder(client.subscribe(request))
            #expect(await eventually { server.subscriberCount("reviewAdded") == 1 })
            #expect(await reviews.waitForState { $0 == .active })
            #expect(await eventually { server.subscriptionHeartbeatsSent >= 3 })
            _ = try await client.perform(CreateReviewMutation(episode: .some(.init(.jedi)), review: ReviewInput(stars: 4)))
            #expect(await reviews.waitFor(1))
            let heartbeatsBefore = server.subscriptionHeartbeatsSent
            #expect(await eventually { server.subscriptionHeartbeatsSent >= heartbeatsBefore + 3 })
            #expect(reviews.values == [4])
            #expect(reviews.end == nil)
            // Stopping the consumer closes the connection: the server sees the client go.
            reviews.stop()
            #expect(await eventually { server.abandonedSubscriptionStreams == 1 })
            #expect(await eventually { server.subscriberCount("reviewAdded") == 0 })
        }
    }

    @Test("an error the server sends (multipart: payload null; SSE: a next event with errors) ends the subscription, after the events before it", arguments: HTTPChannel.allCases)
    func errorPart(channel: HTTPChannel) async throws {
        try await withHTTP(channel) { server, client in
            server.failSubscriptionStreams(after: 2)
            let numbers = SubscriptionRecorder(client.subscribe(GraphQLRequest(CounterSubscription(to: 5)) { $0.counter }))
            #expect(await numbers.waitForEnd())
            #expect(numbers.values == [1, 2])
            guard case .graphQL(let failure)? = numbers.error else {
                Issue.record("expected GraphQL errors, got \(String(describing: numbers.end))")
                return
            }
            #expect(failure.errors.map(\.message) == ["the source of events failed"])
        }
    }

    @Test("a stream cut off mid-event is an error that says so when the policy does not reconnect", arguments: HTTPChannel.allCases)
    func cutWithoutReconnect(channel: HTTPChannel) async throws {
        try await withHTTP(channel) { server, client in
            server.cutSubscriptionStreams(after: 2)
            let numbers = SubscriptionRecorder(client.subscribe(GraphQLRequest(CounterSubscription(to: 5)) { $0.counter }))
            #expect(await numbers.waitForEnd())
            #expect(numbers.values == [1, 2])
            guard case .transport(let failure)? = numbers.error else {
                Issue.record("expected a transport error, got \(String(describing: numbers.end))")
                return
            }
            #expect(failure.kind == .connectionLost)
            #expect(failure.underlying.contains(channel.missingEnd))
        }
    }

    @Test("a stream cut off mid-way is reopened and the subscription sent again, states saying so", arguments: HTTPChannel.allCases)
    func cutAndReconnect(channel: HTTPChannel) async throws {
        try await withHTTP(channel, adjust: { $0.reconnect = quickReconnect }) { server, client in
            server.cutSubscriptionStreams(after: 1)
            let numbers = SubscriptionRecorder(client.subscribe(GraphQLRequest(CounterSubscription(to: 3)) { $0.counter }))
            #expect(await numbers.waitForState { $0.isReconnecting })
            server.cutSubscriptionStreams(after: nil)
            #expect(await numbers.waitForEnd())
            if case .failed(let error)? = numbers.end { Issue.record("the subscription failed: \(error)") }
            // Each cut stream gave its first event; the whole one gave all three.
            #expect(numbers.values.suffix(3) == [1, 2, 3])
            #expect(numbers.values.dropLast(3).allSatisfy { $0 == 1 })
            #expect(server.requests(to: "/graphql").count == numbers.values.count - 2)
            #expect(numbers.states.first == .connecting)
            #expect(numbers.states.contains(.active))
        }
    }

    @Test("a server that goes silent (no event, no heartbeat) for twice keepAlive is taken for dead", arguments: HTTPChannel.allCases)
    func silence(channel: HTTPChannel) async throws {
        try await withHTTP(channel, adjust: { $0.keepAlive = .milliseconds(100) }) { server, client in
            server.setSubscriptionHeartbeat(nil)
            let request = GraphQLRequest(ReviewAddedSubscription(episode: nil)) { $0.reviewAdded?.stars }
            let reviews = SubscriptionRecorder(client.subscribe(request))
            #expect(await reviews.waitForEnd())
            guard case .transport(let failure)? = reviews.error else {
                Issue.record("expected a transport error, got \(String(describing: reviews.end))")
                return
            }
            #expect(failure.kind == .timedOut)
            #expect(failure.underlying.contains("heartbeat"))
            // The client closed the connection. The server finds out when a write fails (over
            // TCP, the first write after the client's close still goes out), so events go on.
            #expect(await eventually {
                if server.abandonedSubscriptionStreams == 0 {
                    _ = try? await client.perform(CreateReviewMutation(episode: .some(.init(.jedi)), review: ReviewInput(stars: 2)))
                }
                return server.abandonedSubscriptionStreams == 1
            })
        }
    }

    @Test("each event is written to the cache: a watcher of the same record sees it", arguments: HTTPChannel.allCases)
    func eventWakesWatcher(channel: HTTPChannel) async throws {
        try await withHTTP(channel) { server, client in
            let luke = WatchRecorder(client.watch(GraphQLRequest(HumanQuery(id: "1000")) { $0.human?.name }))
            #expect(await eventually { luke.values == ["Luke Skywalker"] })
            let renames = SubscriptionRecorder(client.subscribe(GraphQLRequest(CharacterRenamedSubscription()) { $0.characterRenamed.name }))
            #expect(await eventually { server.subscriberCount("characterRenamed") == 1 })
            let other = makeTestClient(APIClientConfiguration(restBaseURL: server.baseURL, cache: nil, retryPolicy: nil))
            _ = try await other.perform(RenameCharacterMutation(id: "1000", name: "Red Five"))
            #expect(await renames.waitFor(1))
            #expect(await eventually { luke.values == ["Luke Skywalker", "Red Five"] })
            renames.stop()
            luke.stop()
        }
    }

    @Test("a subscription the server refuses (a validation error) fails with the server's errors", arguments: HTTPChannel.allCases)
    func refused(channel: HTTPChannel) async throws {
        try await withHTTP(channel) { _, client in
            let error = await subscriptionError(client.subscribe(NoSuchFieldSubscription()))
            guard case .graphQL(let failure)? = error else {
                Issue.record("expected GraphQL errors, got \(String(describing: error))")
                return
            }
            #expect(!failure.errors.isEmpty)
        }
    }

    @Test("a subscription refused with 401 refreshes the token once through the chain and streams", arguments: HTTPChannel.allCases)
    func refreshesOnce(channel: HTTPChannel) async throws {
        let tokens = InMemoryTokenStore(AuthToken(accessToken: "stale", refreshToken: "refresh-1"))
        let authentication = BearerAuthentication(store: tokens) { stale, client throws(APIError) in
            let fresh = try await client.send(RESTRequest<JSONValue>.post("auth/refresh", body: ["refreshToken": stale.refreshToken ?? ""])).value
            return AuthToken(accessToken: fresh["accessToken"]?.stringValue ?? "", refreshToken: fresh["refreshToken"]?.stringValue)
        }
        try await withHTTP(channel, authentication: .bearer(authentication)) { server, client in
            var numbers: [Int] = []
            for try await data in client.subscribe(CounterSubscription(to: 3)) { numbers.append(data.counter) }
            #expect(numbers == [1, 2, 3])
            #expect(server.refreshCount == 1)
            let requests = server.requests(to: "/graphql")
            #expect(requests.map { $0.headers["authorization"] } == ["Bearer stale", "Bearer \(server.currentTokens.access)"])
        }
    }
}
