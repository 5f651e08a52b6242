import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

/// `@defer` end to end against the loopback server, in both formats it writes.
@Suite("Incremental delivery (@defer)")
struct DeferTests {
    static let formats: [(name: String, url: @Sendable (TestServer) -> URL)] = [
        ("current", { $0.graphQLURL }), ("2022", { $0.graphQL2022URL }),
    ]

    func client(_ server: TestServer, url: URL, timeout: Duration = .seconds(30)) -> any APIClient {
        makeTestClient(APIClientConfiguration(restBaseURL: server.baseURL, graphQLURL: url, timeout: timeout, retryPolicy: nil))
    }

    /// R2-D2's friends: Luke, Han, Leia (humans); C-3PO is not among them, so every droid check
    /// goes through the friends of Luke instead.
    @Test("fetch returns once every part has arrived: nested deferred fragments and fragments on list items fulfilled", arguments: [0, 1])
    func fetchWhole(format: Int) async throws {
        let server = try await TestServer.start()
        let client = client(server, url: Self.formats[format].url(server))
        let response = try await client.fetch(HeroDeferredQuery(), cachePolicy: .networkOnly)
        let hero = try #require(response.value.hero)
        #expect(hero.name == "R2-D2")
        let friends = try #require(hero.friendsFragment.value?.friends)
        #expect(friends.compactMap { $0?.name } == ["Luke Skywalker", "Han Solo", "Leia Organa"])
        #expect(friends.allSatisfy { $0?.droidDetails == nil })  // all humans
        let accept = server.requests(to: "graphql").first?.headers["accept"] ?? server.requests(to: "graphql-2022").first?.headers["accept"]
        #expect(accept?.contains("multipart/mixed;deferSpec=20220824") == true)
        await server.stop()
    }

    @Test("responses yields the first part with the fragment pending, then each increment as it is merged", arguments: [0, 1])
    func eachPart(format: Int) async throws {
        let server = try await TestServer.start()
        let client = client(server, url: Self.formats[format].url(server))
        var results: [Response<HeroDeferredQuery.Data>] = []
        for await result in client.responses(GraphQLRequest(HeroDeferredQuery()), cachePolicy: .networkOnly) {
            results.append(try result.get())
        }
        // The first part, the friends fragment; the droid fragments of three humans apply to none.
        try #require(results.count == 2)
        #expect(results[0].value.hero?.name == "R2-D2")
        #expect(results[0].value.hero?.friendsFragment == .pending)
        #expect(results[1].value.hero?.friendsFragment.value?.friends?.count == 3)
        #expect(results.allSatisfy { $0.metadata.source == .server && $0.metadata.statusCode == 200 })
        await server.stop()
    }

    @Test("a deferred fragment on list items: one increment per droid among the friends", arguments: [0, 1])
    func listItems(format: Int) async throws {
        let server = try await TestServer.start()
        let client = client(server, url: Self.formats[format].url(server))
        // Luke's friends: Han, Leia (humans), C-3PO and R2-D2 (droids).
        var results: [Response<HeroDeferredQuery.Data>] = []
        for await result in client.responses(GraphQLRequest(HeroDeferredQuery(episode: .some(.case(.empire)))), cachePolicy: .networkOnly) {
            results.append(try result.get())
        }
        // The first part, the friends, then one part per droid friend.
        try #require(results.count == 4)
        #expect(results[0].value.hero?.name == "Luke Skywalker")
        #expect(results[0].value.hero?.friendsFragment == .pending)
        let friendsThen = try #require(results[1].value.hero?.friendsFragment.value?.friends)
        #expect(friendsThen.compactMap { $0?.droidDetails } == [.pending, .pending])
        let friendsAtLast = try #require(results[3].value.hero?.friendsFragment.value?.friends)
        #expect(friendsAtLast.compactMap { $0?.droidDetails?.value?.primaryFunction } == ["Protocol", "Astromech"])
        #expect(friendsAtLast.compactMap { $0?.name } == ["Han Solo", "Leia Organa", "C-3PO", "R2-D2"])
        await server.stop()
    }

    @Test("@defer(if: false) is answered whole, without deferral, in one result")
    func notDeferred() async throws {
        let server = try await TestServer.start()
        let client = client(server, url: server.graphQLURL)
        var results: [Response<HeroDeferredQuery.Data>] = []
        for await result in client.responses(GraphQLRequest(HeroDeferredQuery(withFriends: false)), cachePolicy: .networkOnly) {
            results.append(try result.get())
        }
        try #require(results.count == 1)
        #expect(results[0].value.hero?.friendsFragment.value?.friends?.count == 3)
        await server.stop()
    }

    @Test("an increment with a field error: the error with its path, the data so far, and the stream goes on to the end", arguments: [0, 1])
    func incrementErrors(format: Int) async throws {
        let server = try await TestServer.start()
        let client = client(server, url: Self.formats[format].url(server))
        var results: [Result<Response<DeferredFailingQuery.Data>, APIError>] = []
        for await result in client.responses(GraphQLRequest(DeferredFailingQuery()), cachePolicy: .networkOnly) {
            results.append(result)
        }
        try #require(results.count == 2)
        #expect(try results[0].get().value.failing == .pending)
        guard case .failure(.graphQL(let failure)) = results[1] else {
            Issue.record("expected a GraphQL error, got \(results[1])")
            return
        }
        #expect(failure.errors.first?.path == ["failingField"])
        #expect(failure.partialData?["hero"]?["name"] == "R2-D2")

        await #expect(throws: APIError.self) { _ = try await client.fetch(DeferredFailingQuery(), cachePolicy: .networkOnly) }
        await server.stop()
    }

    @Test("an increment whose field error a @catch(to: NULL) field catches: a success, the field nil, the error in the metadata", arguments: [0, 1])
    func caughtIncrementErrors(format: Int) async throws {
        let server = try await TestServer.start()
        let client = client(server, url: Self.formats[format].url(server))
        var results: [Result<Response<DeferredCaughtQuery.Data>, APIError>] = []
        for await result in client.responses(GraphQLRequest(DeferredCaughtQuery()), cachePolicy: .networkOnly) {
            results.append(result)
        }
        try #require(results.count == 2)
        #expect(try results[0].get().value.failing == .pending)
        let last = try results[1].get()
        #expect(last.value.hero?.name == "R2-D2")
        #expect(last.value.failing.value != nil && last.value.failing.value?.failingField == nil)
        #expect(last.metadata.caughtErrors.map(\.path) == [["failingField"]])
        // fetch gives the last result, not an error.
        let fetched = try await client.fetch(DeferredCaughtQuery(), cachePolicy: .networkOnly)
        #expect(fetched.value.failing.value?.failingField == nil && fetched.metadata.caughtErrors.count == 1)
        await server.stop()
    }

    @Test("errors caught in the first part and in an increment: each listed once, the answer a success", arguments: [0, 1])
    func caughtInBothParts(format: Int) async throws {
        let server = try await TestServer.start()
        let client = client(server, url: Self.formats[format].url(server))
        let response = try await client.fetch(CaughtTwiceQuery(), cachePolicy: .networkOnly)
        guard case .failure = response.value.failingField else {
            Issue.record("the first part's error was not caught: \(response.value.failingField)")
            return
        }
        #expect(response.value.again.value != nil && response.value.again.value?.again == nil)
        #expect(response.metadata.caughtErrors.compactMap(\.path).sorted { $0.description < $1.description } == [["again"], ["failingField"]])
        await server.stop()
    }

    @Test("a server that stops mid-answer: a clear error, not a hang", arguments: [0, 1])
    func cutOff(format: Int) async throws {
        let server = try await TestServer.start()
        server.cutIncrementalAnswers(after: 1)
        let client = client(server, url: Self.formats[format].url(server))
        do {
            _ = try await client.fetch(HeroDeferredQuery(), cachePolicy: .networkOnly)
            Issue.record("expected an error")
        } catch {
            guard case .transport(let failure) = error else {
                Issue.record("expected a transport failure, got \(error)")
                return
            }
            #expect(failure.kind == .connectionLost)
        }
        await server.stop()
    }

    @Test("a consumer that stops after the first part ends the exchange: the server sees the connection go")
    func cancelMidStream() async throws {
        let server = try await TestServer.start()
        // Parts after the first come 5 s apart; the server notices a closed connection when it
        // writes after it (the second write after the close fails). Read to the end, the answer
        // would leave the count at 0. A second apart, a loaded machine once closed the connection
        // only after the last part was written, and the count stayed 0: the gap is the slack.
        server.delayIncrementalParts(by: .seconds(5))
        let client = client(server, url: server.graphQLURL)
        for await result in client.responses(GraphQLRequest(HeroDeferredQuery()), cachePolicy: .networkOnly) {
            #expect(try result.get().value.hero?.friendsFragment == .pending)
            break
        }
        #expect(await eventually { server.abandonedIncrementalAnswers == 1 })
        await server.stop()
    }

    @Test("each increment is written to the cache: afterwards the cache answers the whole data")
    func cached() async throws {
        let server = try await TestServer.start()
        let client = client(server, url: server.graphQLURL)
        _ = try await client.fetch(HeroDeferredQuery(), cachePolicy: .networkOnly)
        let cached = try await client.fetch(HeroDeferredQuery(), cachePolicy: .cacheOnly)
        #expect(cached.metadata.source == .cache)
        #expect(cached.value.hero?.friendsFragment.value?.friends?.count == 3)
        await server.stop()
    }

    @Test("watch yields the first part, each increment, and then changes to the records")
    func watch() async throws {
        let server = try await TestServer.start()
        let client = client(server, url: server.graphQLURL)
        var iterator = client.watch(GraphQLRequest(HeroDeferredQuery()), cachePolicy: .networkOnly).makeAsyncIterator()
        let first = try #require(await iterator.next()).get()
        #expect(first.value.hero?.friendsFragment == .pending)
        let second = try #require(await iterator.next()).get()
        #expect(second.value.hero?.friendsFragment.value?.friends?.count == 3)
        try await client.cache.updateRecord("Human:1000") { $0["name"] = "Luke" }
        let changed = try #require(await iterator.next()).get()
        #expect(changed.value.hero?.friendsFragment.value?.friends?.first??.name == "Luke")
        await server.stop()
    }
}
