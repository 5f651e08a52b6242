import APICore
import APICoreLive
import APICoreTestServer
import APICoreWebSocket
import Foundation
import InMemoryTracing
import StarWarsOperations
import Testing
import Tracing

/// Spans and their parent/child links with an in-memory tracer given to the client
/// (`APIClientConfiguration.tracer`), and the trace context the loopback server receives.
@Suite("Tracing")
struct TracingTests {
    static func client(_ server: TestServer, tracer: InMemoryTracer, retry: RetryPolicy? = nil, url: URL? = nil) -> any APIClient {
        makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, graphQLURL: url, timeout: .seconds(30), tracer: tracer, retryPolicy: retry,
            subscriptions: SubscriptionConfiguration(
                url: server.webSocketURL, transport: APICoreWebSocket.transport, ackTimeout: .seconds(30), keepAlive: nil,
                reconnect: quickReconnect)))
    }

    /// The finished spans named `name`.
    static func spans(_ name: String, in tracer: InMemoryTracer) -> [FinishedInMemorySpan] {
        tracer.finishedSpans.filter { $0.operationName == name }
    }

    @Test("a fetch with a retry: the operation's span, a child per attempt (the first an error), the cache write; the server gets the trace")
    func retried() async throws {
        let server = try await TestServer.start()
        let tracer = InMemoryTracer()
        let client = Self.client(server, tracer: tracer, retry: RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(10), jitter: 0))
        let answer = #"{"data":{"hero":{"__typename":"Droid","id":"2001","name":"R2-D2","primaryFunction":"Astromech","friends":[]}}}"#
        server.respond("/graphql", with: [
            TestServer.Canned(status: 503, contentType: "text/plain", body: "busy"), TestServer.Canned(status: 200, body: answer),
        ])
        let hero = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        #expect(hero.value.hero?.name == "R2-D2")
        let operation = try #require(Self.spans("query HeroName", in: tracer).first)
        #expect(operation.parentSpanID == nil)
        #expect(operation.attributes["graphql.operation.name"]?.toSpanAttribute() == "HeroName")
        #expect(operation.attributes["apicore.source"]?.toSpanAttribute() == "server")
        let attempts = Self.spans("HTTP POST", in: tracer)
        #expect(attempts.count == 2)
        #expect(attempts.allSatisfy { $0.parentSpanID == operation.spanID && $0.traceID == operation.traceID })
        #expect(attempts.first?.status?.code == .error)
        #expect(attempts.last?.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(attempts.last?.attributes["http.response.body.size"]?.toSpanAttribute() == .int64(Int64(answer.utf8.count)))
        let write = try #require(Self.spans("cache write", in: tracer).first)
        #expect(write.parentSpanID == operation.spanID)
        // Each attempt carried its own span's context.
        let sent = server.requests(to: "graphql").map { $0.headers[InMemoryTracer.spanIDKey] }
        #expect(sent == attempts.map(\.spanID))
        #expect(server.requests(to: "graphql").allSatisfy { $0.headers[InMemoryTracer.traceIDKey] == operation.traceID })
        await server.stop()
    }

    @Test("a REST call: its span, an HTTP child, the trace in the request's headers")
    func rest() async throws {
        let server = try await TestServer.start()
        let tracer = InMemoryTracer()
        let client = Self.client(server, tracer: tracer)
        _ = try await client.send(RESTRequest<EmptyResponse>.get("items"))
        let operation = try #require(Self.spans("GET items", in: tracer).first)
        #expect(operation.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        let attempt = try #require(Self.spans("HTTP GET", in: tracer).first)
        #expect(attempt.parentSpanID == operation.spanID)
        #expect(server.requests(to: "items").first?.headers[InMemoryTracer.spanIDKey] == attempt.spanID)
        await server.stop()
    }

    @Test("a cache hit: the operation's span says so and has no HTTP child")
    func cacheHit() async throws {
        let server = try await TestServer.start()
        let tracer = InMemoryTracer()
        let client = Self.client(server, tracer: tracer)
        _ = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        tracer.clearFinishedSpans()
        _ = try await client.fetch(HeroNameQuery(), cachePolicy: .cacheElseNetwork)
        let operation = try #require(Self.spans("query HeroName", in: tracer).first)
        #expect(operation.attributes["apicore.source"]?.toSpanAttribute() == "cache")
        #expect(operation.attributes["apicore.cache_policy"]?.toSpanAttribute() == "cacheElseNetwork")
        #expect(Self.spans("HTTP POST", in: tracer).isEmpty)
        await server.stop()
    }

    @Test("@defer: a child span per incremental part, beside the exchange")
    func deferred() async throws {
        let server = try await TestServer.start()
        let tracer = InMemoryTracer()
        let client = Self.client(server, tracer: tracer)
        _ = try await client.fetch(HeroDeferredQuery(), cachePolicy: .networkOnly)
        let operation = try #require(Self.spans("query HeroDeferred", in: tracer).first)
        let parts = Self.spans("incremental part", in: tracer)
        #expect(!parts.isEmpty)
        #expect(parts.allSatisfy { $0.parentSpanID == operation.spanID })
        await server.stop()
    }

    @Test("a subscription: its span, a child per event; the socket's connection_init carries the trace")
    func subscription() async throws {
        let server = try await TestServer.start()
        let tracer = InMemoryTracer()
        let client = Self.client(server, tracer: tracer)
        var numbers: [Int] = []
        for try await data in client.subscribe(CounterSubscription(to: 2)) { numbers.append(data.counter) }
        #expect(numbers == [1, 2])
        let subscription = try #require(Self.spans("subscription Counter", in: tracer).first)
        let events = Self.spans("subscription event Counter", in: tracer)
        #expect(events.count == 2)
        #expect(events.allSatisfy { $0.parentSpanID == subscription.spanID })
        let initMessage = try #require(server.webSocketMessages.first { $0.type == "connection_init" })
        #expect(initMessage.text.contains(subscription.traceID), "\(initMessage.text)")
        #expect(server.webSocketUpgradeHeaders.first?[InMemoryTracer.traceIDKey] == subscription.traceID)
        await server.stop()
    }
}
