@_spi(Tools) @_spi(Generated) import APICore
import APICoreLive
import APICoreTestServer
import APICoreWebSocket
import Foundation
@_spi(Generated) import InteropAPI
import Logging
import Testing

/// The engine against a GraphQL server nobody here wrote: strawberry-graphql (pinned in
/// `Interop/requirements.txt`) under uvicorn, with operations generated from its schema
/// (`Interop/`). Each test starts its own server process, one test at a time: a dozen Python
/// servers starting at once would slow every other suite of the run on a 2-core machine.
@Suite("Interop with strawberry-graphql", .serialized)
struct InteropTests {
    /// Fast reconnection: 50 ms doubling to 400 ms, enough attempts for a server restart.
    static let quickReconnect = RetryPolicy(
        maxAttempts: 40, initialDelay: .milliseconds(50), multiplier: 2, maxDelay: .milliseconds(400), jitter: 0.2, maxTotalTime: .seconds(60))

    static func client(
        _ server: InteropServer, queryMethod: APIClientConfiguration.QueryMethod = .post, cache: CacheConfiguration? = nil,
        persistedQueries: PersistedQueries? = nil, subprotocol: SubscriptionProtocol = .graphQLTransportWS, batching: HTTPBatching? = nil,
        logger: Logger = Logger(label: "interop")
    ) -> any APIClient {
        APICoreLive.makeClient(APIClientConfiguration(
            restBaseURL: server.httpURL.deletingLastPathComponent(), graphQLURL: server.httpURL, timeout: .seconds(30), queryMethod: queryMethod,
            cache: cache, logger: logger, retryPolicy: nil, deduplicatesQueries: false, persistedQueries: persistedQueries,
            subscriptions: SubscriptionConfiguration(
                url: server.webSocketURL, subprotocol: subprotocol, transport: APICoreWebSocket.transport, ackTimeout: .seconds(10), keepAlive: nil,
                reconnect: quickReconnect),
            batching: batching))
    }

    /// Starts a server, runs `body`, stops the server.
    static func withServer<T>(_ body: (InteropServer) async throws -> T) async throws -> T {
        let server = try await InteropServer.start()
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    static let utc = { () -> Calendar in
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    @Test("the committed schema is the one the server serves")
    func schemaIsCurrent() async throws {
        let served = try await InteropServer.run(["server.py", "--print-schema"])
        let committed = try String(contentsOf: InteropServer.directory.appendingPathComponent("schema.graphqls"), encoding: .utf8)
        #expect(served.trimmingCharacters(in: .whitespacesAndNewlines) == committed.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("queries over POST and GET: an enum, a custom scalar, a null, a list filtered by an enum argument",
          arguments: [APIClientConfiguration.QueryMethod.post, .get])
    func queries(_ method: APIClientConfiguration.QueryMethod) async throws {
        try await Self.withServer { server in
            let client = Self.client(server, queryMethod: method)
            let dune = try #require(try await client.fetch(BookQuery(id: "1"), cachePolicy: .networkOnly).value.book)
            #expect(dune.title == "Dune")
            #expect(dune.genre == .case(.fiction))
            #expect(dune.published.date == Self.utc.date(from: DateComponents(year: 1965, month: 8, day: 1)))
            #expect(dune.rating == 5)
            let history = try await client.fetch(BooksQuery(genre: .some(.init(.history))), cachePolicy: .networkOnly).value.books
            #expect(history.map(\.title) == ["SPQR"])
            let spqrRating = try await client.fetch(BookQuery(id: "2"), cachePolicy: .networkOnly).value.book?.rating
            #expect(spqrRating == nil)
            let missing = try await client.fetch(BookQuery(id: "404"), cachePolicy: .networkOnly).value.book
            #expect(missing == nil)
        }
    }

    @Test("@defer: the first part with the fragment pending, then the fragment, in the current format; fetch returns the whole")
    func deferred() async throws {
        try await Self.withServer { server in
            let client = Self.client(server, cache: CacheConfiguration())
            var results: [Response<BookDeferredQuery.Data>] = []
            for await result in client.responses(GraphQLRequest(BookDeferredQuery(id: "1")), cachePolicy: .networkOnly) {
                results.append(try result.get())
            }
            try #require(results.count == 2)
            #expect(results[0].value.book?.id == "1")
            #expect(results[0].value.book?.details == .pending)
            #expect(results[1].value.book?.details.value?.title == "Dune")
            #expect(results[1].value.book?.details.value?.rating == 5)
            let whole = try await client.fetch(BookDeferredQuery(id: "2"), cachePolicy: .networkOnly)
            #expect(whole.value.book?.details.value?.title == "SPQR")
            let cached = try await client.fetch(BookDeferredQuery(id: "1"), cachePolicy: .cacheOnly)
            #expect(cached.value.book?.details.value?.title == "Dune")
        }
    }

    @Test("@stream: the first book with the first part, the rest as strawberry streams them; fetch returns the whole list")
    func streamed() async throws {
        try await Self.withServer { server in
            let client = Self.client(server, cache: CacheConfiguration())
            var counts: [Int] = []
            for await result in client.responses(GraphQLRequest(BooksStreamedQuery()), cachePolicy: .networkOnly) {
                counts.append(try result.get().value.books.count)
            }
            let all = try await client.fetch(BooksQuery(), cachePolicy: .networkOnly).value.books.map(\.title)
            #expect(counts.first == 1)
            #expect(counts.count >= 2)
            #expect(counts.last == all.count)
            let whole = try await client.fetch(BooksStreamedQuery(), cachePolicy: .networkOnly).value.books.map(\.title)
            #expect(whole == all)
            let cached = try await client.fetch(BooksStreamedQuery(), cachePolicy: .cacheOnly).value.books.map(\.title)
            #expect(cached == all)
        }
    }

    @Test("batching: three queries in one POST, each answered, an error staying with its operation")
    func batched() async throws {
        try await Self.withServer { server in
            let client = Self.client(server, batching: HTTPBatching(window: .seconds(600), maxOperations: 3))
            async let dune = client.fetch(BookQuery(id: "1"), cachePolicy: .networkOnly)
            async let spqr = client.fetch(BookTitleQuery(id: "2"), cachePolicy: .networkOnly)
            async let secret = thrownError { () async throws(APIError) in
                try await client.fetch(BookWithSecretQuery(id: "1"), cachePolicy: .networkOnly)
            }
            let duneTitle = try await dune.value.book?.title
            let spqrTitle = try await spqr.value.book?.title
            #expect(duneTitle == "Dune")
            #expect(spqrTitle == "SPQR")
            guard case .graphQL(let failure)? = await secret else {
                Issue.record("expected the secret's GraphQL error, got \(String(describing: await secret))")
                return
            }
            #expect(failure.errors.first?.message.contains("classified") == true)
        }
    }

    @Test("queries and mutations over the WebSocket (graphql-transport-ws subscribe, one next and complete)")
    func overWebSocket() async throws {
        try await Self.withServer { server in
            let client = Self.client(server)
            var query = GraphQLRequest(BookQuery(id: "1"))
            query.usesWebSocket = true
            let title = try await client.fetch(query, cachePolicy: .networkOnly).value.book?.title
            #expect(title == "Dune")
            var mutation = GraphQLRequest(AddBookMutation(input: InteropAPI.BookInput(
                title: "Socket", genre: .init(.science), published: InteropAPI.DateTime(Date(timeIntervalSince1970: 0)))))
            mutation.usesWebSocket = true
            let added = try await client.perform(mutation).value.addBook
            #expect(added.title == "Socket")
        }
    }

    @Test("a mutation with an input object, an enum and a custom scalar, read back")
    func mutation() async throws {
        try await Self.withServer { server in
            let client = Self.client(server)
            let published = try #require(Self.utc.date(from: DateComponents(year: 2026, month: 11, day: 22, hour: 3, minute: 4, second: 5)))
            let added = try await client.perform(AddBookMutation(input: InteropAPI.BookInput(
                title: "Interop", genre: .init(.science), published: InteropAPI.DateTime(published)))).value.addBook
            #expect(added.title == "Interop")
            #expect(added.genre == .case(.science))
            #expect(added.published.date == published)
            let readBack = try await client.fetch(BookTitleQuery(id: added.id), cachePolicy: .networkOnly).value.book?.title
            #expect(readBack == "Interop")
        }
    }

    @Test("partial data with a field error: the error's path, the partial data, and the fields that came cached")
    func partialData() async throws {
        try await Self.withServer { server in
            let client = Self.client(server, cache: CacheConfiguration())
            let error = await thrownError { () async throws(APIError) in try await client.fetch(BookWithSecretQuery(id: "1"), cachePolicy: .networkOnly) }
            guard case .graphQL(let failure)? = error else {
                Issue.record("expected a GraphQL error, got \(String(describing: error))")
                return
            }
            #expect(failure.errors.map(\.message) == ["the secret of a book is classified"])
            #expect(failure.errors.first?.path == ["book", "secret"])
            #expect(error?.partialData(as: BookWithSecretQuery.Data.self)?.book?.title == "Dune")
            // The title came with a value and is cached; the secret never was.
            let cachedTitle = try await client.fetch(BookTitleQuery(id: "1"), cachePolicy: .cacheOnly).value.book?.title
            #expect(cachedTitle == "Dune")
            #expect(await thrownError { () async throws(APIError) in try await client.fetch(BookWithSecretQuery(id: "1"), cachePolicy: .cacheOnly) } != nil)
        }
    }

    @Test("a document the server finds invalid: a GraphQL error naming the field, whatever the status, not worth a retry")
    func validationError() async throws {
        try await Self.withServer { server in
            let client = Self.client(server)
            let error = await thrownError { () async throws(APIError) in try await client.fetch(InvalidBookQuery(), cachePolicy: .networkOnly) }
            guard case .graphQL(let failure)? = error else {
                Issue.record("expected a GraphQL error, got \(String(describing: error))")
                return
            }
            #expect(failure.errors.contains { $0.message.contains("nope") })
            #expect(failure.partialData == nil)
            #expect(error?.recovery == .fail)
        }
    }

    @Test("a subscription over each WebSocket protocol streams every event and completes", arguments: SubscriptionProtocol.allCases)
    func subscription(_ subprotocol: SubscriptionProtocol) async throws {
        try await Self.withServer { server in
            let client = Self.client(server, subprotocol: subprotocol)
            var numbers: [Int] = []
            for try await data in client.subscribe(CountSubscription(to: 5, intervalMs: 5)) { numbers.append(data.count) }
            #expect(numbers == [1, 2, 3, 4, 5])
        }
    }

    @Test("a subscription over HTTP multipart (subscriptionSpec=1.0): strawberry's heartbeat first, then every event, then the end")
    func multipartSubscription() async throws {
        try await Self.withServer { server in
            let client = APICoreLive.makeClient(APIClientConfiguration(
                restBaseURL: server.httpURL.deletingLastPathComponent(), graphQLURL: server.httpURL, timeout: .seconds(30), cache: nil,
                retryPolicy: nil, subscriptions: .multipartHTTP(url: server.httpURL, reconnect: nil)))
            var numbers: [Int] = []
            for try await data in client.subscribe(CountSubscription(to: 5, intervalMs: 5)) { numbers.append(data.count) }
            #expect(numbers == [1, 2, 3, 4, 5])
        }
    }

    @Test("a subscription over server-sent events (graphql-sse, distinct connections mode): every event, then the complete event")
    func serverSentEventsSubscription() async throws {
        try await Self.withServer { server in
            let client = APICoreLive.makeClient(APIClientConfiguration(
                restBaseURL: server.httpURL.deletingLastPathComponent(), graphQLURL: server.httpURL, timeout: .seconds(30), cache: nil,
                retryPolicy: nil, subscriptions: .serverSentEvents(url: server.httpURL, reconnect: nil)))
            var numbers: [Int] = []
            for try await data in client.subscribe(CountSubscription(to: 5, intervalMs: 5)) { numbers.append(data.count) }
            #expect(numbers == [1, 2, 3, 4, 5])
        }
    }

    @Test("the server killed and restarted mid-subscription: the client reconnects and subscribes again")
    func serverRestart() async throws {
        let first = try await InteropServer.start()
        let port = first.port
        let client = Self.client(first)
        let events = Events(client.subscribe(CountSubscription(to: 100_000, intervalMs: 20)))
        #expect(await eventually({ events.values.count >= 3 }, timeout: .seconds(30)))
        await first.kill()
        let before = events.values.count
        #expect(await eventually({ events.states.contains { if case .reconnecting = $0 { true } else { false } } }, timeout: .seconds(30)))
        let second = try await InteropServer.start(port: port)
        // The new server's count starts again from 1: the subscription was sent again.
        #expect(await eventually({ events.values.dropFirst(before).map(\.count).contains(3) }, timeout: .seconds(30)), "\(events.values) \(events.states)")
        #expect(events.error == nil)
        events.stop()
        await second.stop()
    }

    @Test("a multipart upload arrives whole: the server's length and SHA-256 match")
    func upload() async throws {
        try await Self.withServer { server in
            let client = Self.client(server)
            var generator = SystemRandomNumberGenerator()
            let bytes = Data((0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let result = try await client.perform(UploadFileMutation(file: GraphQLFile(data: bytes, filename: "random.bin"))).value.upload
            #expect(result.filename == "random.bin")
            #expect(result.size == bytes.count)
            #expect(result.sha256 == SHA256.digest(bytes).map { String(format: "%02x", $0) }.joined())
        }
    }

    @Test("persisted queries against a server without them: answers all the same, one notice, then whole documents",
          arguments: [false, true])
    func persistedQueries(_ useGET: Bool) async throws {
        try await Self.withServer { server in
            let log = LogCapture()
            let client = Self.client(server, persistedQueries: PersistedQueries(useGETForHashedQueries: useGET), logger: log.logger)
            for id in ["1", "2", "3"] {
                let book = try await client.fetch(BookTitleQuery(id: id), cachePolicy: .networkOnly).value.book
                #expect(book != nil)
            }
            #expect(log.all.filter { $0.hasPrefix("[notice]") && $0.contains("persisted queries") }.count == 1, "\(log.all)")
        }
    }
}

/// A query strawberry rejects: `nope` is not a field of `Book`.
public struct InvalidBookQuery: GraphQLQuery {
    public static let operationName = "InvalidBook"
    public static let document = "query InvalidBook { book(id: \"1\") { nope } }"

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = InteropAPI.Objects.Query
        @_spi(Generated) public static let __selections: [Selection] = []
    }
}

/// Consumes a subscription in a task of its own and keeps its values, states and error.
final class Events<Value: Sendable>: Sendable {
    private let seen = Locked<(values: [Value], states: [SubscriptionState], error: APIError?)>(([], [], nil))
    private let tasks: [Task<Void, Never>]

    init(_ subscription: APISubscription<Value>) {
        let seen = self.seen
        tasks = [
            Task { for await state in subscription.states { seen.withLock { $0.states.append(state) } } },
            Task {
                do throws(APIError) {
                    for try await value in subscription { seen.withLock { $0.values.append(value) } }
                } catch {
                    seen.withLock { $0.error = error }
                }
            },
        ]
    }

    var values: [Value] { seen.withLock { $0.values } }
    var states: [SubscriptionState] { seen.withLock { $0.states } }
    var error: APIError? { seen.withLock { $0.error } }

    func stop() { for task in tasks { task.cancel() } }
}
