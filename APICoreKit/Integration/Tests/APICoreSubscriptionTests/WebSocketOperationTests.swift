@_spi(Tools) import APICore
import APICoreLive
import APICoreTestServer
import APICoreTesting
import Foundation
import StarWarsOperations
import Testing

/// Queries and mutations over the subscription WebSocket (`carriesQueriesAndMutations`,
/// `GraphQLRequest.usesWebSocket`): a `subscribe` answered with one `next` and `complete`.
@Suite("Queries and mutations over the WebSocket")
struct WebSocketOperationTests {
    @Test("with the client's switch on, queries and mutations go over one socket, not HTTP", arguments: SubscriptionProtocol.allCases)
    func clientWide(_ subprotocol: SubscriptionProtocol) async throws {
        try await withSubscriptions(subprotocol, adjust: { $0.carriesQueriesAndMutations = true }) { server, client in
            let hero = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
            #expect(hero.value.hero?.name == "R2-D2")
            #expect(hero.metadata.statusCode == nil)
            let review = try await client.perform(CreateReviewMutation(episode: nil, review: ReviewInput(stars: 4, commentary: .some("over the socket"))))
            #expect(review.value.createReview?.commentary == "over the socket")
            #expect(server.requests(to: "graphql").isEmpty)
            let subscribe = subprotocol == .graphQLTransportWS ? "subscribe" : "start"
            let names = server.webSocketMessages.filter { $0.type == subscribe }.map {
                (try? JSONParser.parse(Data($0.text.utf8)))?["payload"]?["operationName"]?.stringValue
            }
            #expect(names == ["HeroName", "CreateReview"])
            // Operations in a row share the socket, which outlives each of them.
            #expect(server.webSocketConnectionCount == 1)
            // The answer went to the cache as an HTTP answer would.
            let cached = try await client.fetch(HeroNameQuery(), cachePolicy: .cacheOnly).value.hero?.name
            #expect(cached == "R2-D2")
        }
    }

    @Test("a request opts in on its own, and shares the socket a subscription holds open", arguments: SubscriptionProtocol.allCases)
    func sharesTheSubscriptionSocket(_ subprotocol: SubscriptionProtocol) async throws {
        try await withSubscriptions(subprotocol) { server, client in
            let reviews = SubscriptionRecorder(client.subscribe(ReviewAddedSubscription(episode: nil)))
            #expect(await eventually { server.subscriberCount("reviewAdded") == 1 })
            var overSocket = GraphQLRequest(HumanQuery(id: "1003"))
            overSocket.usesWebSocket = true
            let leia = try await client.fetch(overSocket, cachePolicy: .networkOnly).value.human?.name
            #expect(leia == "Leia Organa")
            // Without the switch, HTTP as before.
            let luke = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly).value.human?.name
            #expect(luke == "Luke Skywalker")
            #expect(server.requests(to: "graphql").count == 1)
            #expect(server.webSocketConnectionCount == 1)
            reviews.stop()
        }
    }

    @Test("a request can opt out of a client-wide switch", arguments: [SubscriptionProtocol.graphQLTransportWS])
    func optOut(_ subprotocol: SubscriptionProtocol) async throws {
        try await withSubscriptions(subprotocol, adjust: { $0.carriesQueriesAndMutations = true }) { server, client in
            var overHTTP = GraphQLRequest(HumanQuery(id: "1002"))
            overHTTP.usesWebSocket = false
            let han = try await client.fetch(overHTTP, cachePolicy: .networkOnly).value.human?.name
            #expect(han == "Han Solo")
            #expect(server.requests(to: "graphql").count == 1)
            #expect(server.webSocketConnectionCount == 0)
        }
    }

    @Test("an operation's errors over the socket are its GraphQL errors", arguments: SubscriptionProtocol.allCases)
    func errors(_ subprotocol: SubscriptionProtocol) async throws {
        try await withSubscriptions(subprotocol, adjust: { $0.carriesQueriesAndMutations = true }) { _, client in
            let error = await thrownError { () async throws(APIError) in try await client.fetch(InvalidQuery(), cachePolicy: .networkOnly) }
            guard case .graphQL(let failure)? = error else {
                Issue.record("expected a GraphQL error, got \(String(describing: error))")
                return
            }
            #expect(failure.operationName == "Invalid")
            #expect(failure.errors.first?.message.contains("doesNotExist") == true)
            // The socket goes on: the next operation is answered.
            let afterwards = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly).value.hero?.name
            #expect(afterwards == "R2-D2")
        }
    }

    @Test("a request that asks for the socket on a client without one is a clear error")
    func noSocket() async throws {
        let server = try await TestServer.start()
        let client = makeTestClient(APIClientConfiguration(restBaseURL: server.baseURL, retryPolicy: nil))
        var request = GraphQLRequest(HeroNameQuery())
        request.usesWebSocket = true
        let error = await thrownError { () async throws(APIError) in try await client.fetch(request, cachePolicy: .networkOnly) }
        guard case .invalidRequest(let reason)? = error else {
            Issue.record("expected an invalid request, got \(String(describing: error))")
            return await server.stop()
        }
        #expect(reason.contains("HeroName") && reason.contains("usesWebSocket"))
        #expect(server.requests(to: "graphql").isEmpty)
        await server.stop()
    }

    @Test("a server that never answers: the request's timeout ends the operation", arguments: [SubscriptionProtocol.graphQLTransportWS])
    func timeout(_ subprotocol: SubscriptionProtocol) async throws {
        try await withSubscriptions(subprotocol, adjust: { $0.carriesQueriesAndMutations = true }) { server, client in
            var silent = WebSocketBehavior()
            silent.framesOnSubscribe = []
            server.setWebSocketBehavior(silent)
            let request = GraphQLRequest(HeroNameQuery(), timeout: .milliseconds(300))
            let error = await thrownError { () async throws(APIError) in try await client.fetch(request, cachePolicy: .networkOnly) }
            guard case .transport(let failure)? = error else {
                Issue.record("expected a timeout, got \(String(describing: error))")
                return
            }
            #expect(failure.kind == .timedOut)
        }
    }
}
