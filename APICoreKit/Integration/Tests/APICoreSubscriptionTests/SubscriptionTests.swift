@_spi(Generated) import APICore
import APICoreLive
import APICoreTestServer
import APICoreWebSocket
import Foundation
import Synchronization
import StarWarsOperations
import Testing

@Suite("Subscriptions over WebSocket")
struct SubscriptionTests {
    @Test("a subscription streams typed events and ends when the server completes it", arguments: SubscriptionProtocol.allCases)
    func streamsAndCompletes(_ subprotocol: SubscriptionProtocol) async throws {
        try await withSubscriptions(subprotocol) { server, client in
            var numbers: [Int] = []
            for try await data in client.subscribe(CounterSubscription(to: 5)) { numbers.append(data.counter) }
            #expect(numbers == [1, 2, 3, 4, 5])
            let messages = server.webSocketMessages
            #expect(messages.allSatisfy { $0.subprotocol == subprotocol.rawValue })
            let start = subprotocol == .graphQLTransportWS ? "subscribe" : "start"
            #expect(messages.map(\.type) == ["connection_init", start])
            // The last subscription gone, the client closes the socket.
            #expect(await eventually { server.openWebSocketCount == 0 })
        }
    }

    @Test("events come from mutations, filtered by the subscription's variables", arguments: SubscriptionProtocol.allCases)
    func mutationEvents(_ subprotocol: SubscriptionProtocol) async throws {
        try await withSubscriptions(subprotocol) { server, client in
            let request = GraphQLRequest(ReviewAddedSubscription(episode: .some(.init(.jedi)))) { $0.reviewAdded?.stars }
            let reviews = SubscriptionRecorder(client.subscribe(request))
            #expect(await eventually { server.subscriberCount("reviewAdded") == 1 })
            #expect(reviews.states.last == .active)
            _ = try await client.perform(CreateReviewMutation(episode: .some(.init(.empire)), review: ReviewInput(stars: 1)))
            _ = try await client.perform(CreateReviewMutation(episode: .some(.init(.jedi)), review: ReviewInput(stars: 5)))
            #expect(await reviews.waitFor(1))
            #expect(reviews.values == [5])
            reviews.stop()
        }
    }

    @Test("ten subscriptions share one socket, each with its own id and its own events")
    func tenOnOneSocket() async throws {
        try await withSubscriptions { server, client in
            let results = try await withThrowingTaskGroup(of: (Int, [Int]).self) { group in
                for count in 1...10 {
                    group.addTask {
                        var numbers: [Int] = []
                        for try await data in client.subscribe(CounterSubscription(to: count * 3)) { numbers.append(data.counter) }
                        return (count, numbers)
                    }
                }
                return try await group.reduce(into: [Int: [Int]]()) { $0[$1.0] = $1.1 }
            }
            for count in 1...10 { #expect(results[count] == Array(1...(count * 3))) }
            let subscribes = server.webSocketMessages.filter { $0.type == "subscribe" }
            #expect(subscribes.count == 10)
            #expect(Set(subscribes.compactMap(\.id)).count == 10)
            #expect(Set(subscribes.map(\.connection)).count == 1)
            #expect(server.webSocketConnectionCount == 1)
        }
    }

    @Test("a dropped socket is reopened and the subscription resumed, without duplicates", arguments: SubscriptionProtocol.allCases)
    func reconnects(_ subprotocol: SubscriptionProtocol) async throws {
        try await withSubscriptions(subprotocol) { server, client in
            let reviews = SubscriptionRecorder(client.subscribe(GraphQLRequest(ReviewAddedSubscription()) { $0.reviewAdded?.stars }))
            #expect(await eventually { server.subscriberCount("reviewAdded") == 1 })
            _ = try await client.perform(CreateReviewMutation(episode: nil, review: ReviewInput(stars: 1)))
            #expect(await reviews.waitFor(1))

            server.closeWebSockets()
            #expect(await reviews.waitForState({ $0 == .active }, count: 2))
            #expect(reviews.states.contains { $0.isReconnecting })
            #expect(await eventually { server.subscriberCount("reviewAdded") == 1 })
            #expect(server.webSocketConnectionCount == 2)

            _ = try await client.perform(CreateReviewMutation(episode: nil, review: ReviewInput(stars: 2)))
            _ = try await client.perform(CreateReviewMutation(episode: nil, review: ReviewInput(stars: 3)))
            #expect(await reviews.waitFor(3))
            try await Task.sleep(for: .milliseconds(100))
            #expect(reviews.values == [1, 2, 3])
            #expect(reviews.end == nil)
            // Subscribed once on each socket.
            let start = subprotocol == .graphQLTransportWS ? "subscribe" : "start"
            #expect(server.webSocketMessages.filter { $0.type == start }.map(\.connection) == [1, 2])
            reviews.stop()
        }
    }

    @Test("reconnecting gives up after the policy's attempts, with the last failure")
    func givesUp() async throws {
        try await withSubscriptions { server, client in
            let counter = SubscriptionRecorder(client.subscribe(GraphQLRequest(ReviewAddedSubscription()) { $0.reviewAdded?.stars }))
            #expect(await eventually { server.subscriberCount("reviewAdded") == 1 })
            await server.stop()
            #expect(await counter.waitForEnd(timeout: .seconds(10)))
            guard case .webSocket(let failure)? = counter.error, case .gaveUp(let attempts, let last) = failure.kind else {
                Issue.record("expected a gave-up failure, got \(String(describing: counter.error))")
                return
            }
            #expect(attempts == quickReconnect.maxAttempts)
            #expect(last.contains("refused"))
            #expect(counter.states.filter(\.isReconnecting).count == quickReconnect.maxAttempts - 1)
        }
    }

    @Test("without reconnection, a refused connection is a transport error")
    func refusedWithoutReconnect() async throws {
        try await withSubscriptions(adjust: { $0.url = URL(string: "ws://127.0.0.1:1/graphql")!; $0.reconnect = nil }) { _, client in
            let error = await subscriptionError(client.subscribe(CounterSubscription(to: 1)))
            guard case .transport(let failure)? = error else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
            #expect(failure.kind == .connectionRefused)
        }
    }

    @Test("ending the iteration sends complete and closes the idle socket", arguments: SubscriptionProtocol.allCases)
    func cancellingSendsComplete(_ subprotocol: SubscriptionProtocol) async throws {
        try await withSubscriptions(subprotocol) { server, client in
            let consumer = Task {
                for try await _ in client.subscribe(ReviewAddedSubscription()) {}
            }
            #expect(await eventually { server.subscriberCount("reviewAdded") == 1 })
            consumer.cancel()
            let stop = subprotocol == .graphQLTransportWS ? "complete" : "stop"
            #expect(await eventually { server.webSocketMessages.contains { $0.type == stop } })
            let start = subprotocol == .graphQLTransportWS ? "subscribe" : "start"
            let subscribed = server.webSocketMessages.first { $0.type == start }?.id
            #expect(server.webSocketMessages.first { $0.type == stop }?.id == subscribed)
            #expect(await eventually { server.subscriberCount("reviewAdded") == 0 })
            #expect(await eventually { server.openWebSocketCount == 0 })
        }
    }

    @Test("a subscription event wakes a watcher of the same record")
    func eventWakesWatcher() async throws {
        try await withSubscriptions { server, client in
            let luke = WatchRecorder(client.watch(GraphQLRequest(HumanQuery(id: "1000")) { $0.human?.name }))
            #expect(await eventually { luke.values == ["Luke Skywalker"] })
            let renames = SubscriptionRecorder(client.subscribe(GraphQLRequest(CharacterRenamedSubscription()) { $0.characterRenamed.name }))
            #expect(await eventually { server.subscriberCount("characterRenamed") == 1 })

            // Another client renames Luke: only the subscription tells this one.
            let other = makeTestClient(APIClientConfiguration(restBaseURL: server.baseURL, cache: nil, retryPolicy: nil))
            _ = try await other.perform(RenameCharacterMutation(id: "1000", name: "Red Five"))
            #expect(await renames.waitFor(1))
            #expect(await eventually { luke.values == ["Luke Skywalker", "Red Five"] })
            renames.stop()
            luke.stop()
        }
    }

    @Test("a server error for an operation ends only that subscription, as a GraphQL error")
    func operationError() async throws {
        try await withSubscriptions { server, client in
            let counter = SubscriptionRecorder(client.subscribe(GraphQLRequest(ReviewAddedSubscription()) { $0.reviewAdded?.stars }))
            #expect(await eventually { server.subscriberCount("reviewAdded") == 1 })
            let error = await subscriptionError(client.subscribe(NoSuchFieldSubscription()))
            guard case .graphQL(let failure)? = error else {
                Issue.record("expected a GraphQL error, got \(String(describing: error))")
                return
            }
            #expect(failure.operationName == "NoSuchField")
            #expect(failure.errors.first?.message.contains("nope") == true)
            _ = try await client.perform(CreateReviewMutation(episode: nil, review: ReviewInput(stars: 4)))
            #expect(await counter.waitFor(1))
            #expect(counter.end == nil)
            counter.stop()
        }
    }

    @Test("no subscription configuration is a clear error")
    func notConfigured() async throws {
        let client = makeTestClient(APIClientConfiguration(restBaseURL: URL(string: "http://127.0.0.1:1/")!))
        let error = await subscriptionError(client.subscribe(CounterSubscription(to: 1)))
        guard case .invalidRequest(let reason)? = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("APIClientConfiguration.subscriptions"))
    }
}

/// `subscription NoSuchField { nope }`: the server rejects it.
struct NoSuchFieldSubscription: GraphQLSubscription {
    static let operationName = "NoSuchField"
    static let document = "subscription NoSuchField { nope }"

    struct Data: RootSelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Subscription")
        static let __selections: [Selection] = [.field(Field("nope", .scalar(String.self)))]
    }
}

/// The error a subscription ends with, or a test failure when it completes.
func subscriptionError<Value>(_ subscription: APISubscription<Value>, sourceLocation: SourceLocation = #_sourceLocation) async -> APIError? {
    do throws(APIError) {
        for try await _ in subscription {}
        Issue.record("expected the subscription to fail; it completed", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Collects a watcher's values.
final class WatchRecorder<Value: Sendable>: Sendable {
    private final class Box: Sendable {
        let values = Mutex<[Value]>([])
    }

    private let box = Box()
    private let task: Task<Void, Never>

    init(_ stream: APIStream<Result<Response<Value>, APIError>>) {
        let box = self.box
        task = Task {
            for await element in stream { if let value = try? element.get().value { box.values.withLock { $0.append(value) } } }
        }
    }

    var values: [Value] { box.values.withLock { $0 } }
    func stop() { task.cancel() }
}
