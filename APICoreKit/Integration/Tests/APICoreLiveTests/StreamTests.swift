import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

/// `@stream` end to end against the loopback server, in both incremental formats it writes:
/// Luke's four friends (Han, Leia, C-3PO, R2-D2), the first `initialCount` of them with the first
/// part and one more with each later part.
@Suite("Incremental delivery (@stream)")
struct StreamTests {
    static let friends = ["Han Solo", "Leia Organa", "C-3PO", "R2-D2"]

    func client(_ server: TestServer, format: Int) -> any APIClient {
        makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, graphQLURL: format == 0 ? server.graphQLURL : server.graphQL2022URL, retryPolicy: nil))
    }

    @Test("responses yields the first items, then the list one item longer with each part", arguments: [0, 1])
    func eachPart(format: Int) async throws {
        let server = try await TestServer.start()
        let client = client(server, format: format)
        var counts: [Int] = []
        var last: HumanFriendsStreamQuery.Data?
        for await result in client.responses(GraphQLRequest(HumanFriendsStreamQuery(id: "1000", initialCount: 1)), cachePolicy: .networkOnly) {
            let value = try result.get().value
            counts.append(value.human?.friends?.count ?? -1)
            last = value
        }
        #expect(counts == [1, 2, 3, 4])
        #expect(last?.human?.friends?.compactMap { $0?.name } == Self.friends)
        let accept = server.requests.last?.headers["accept"]
        #expect(accept?.hasPrefix("multipart/mixed") == true)
        await server.stop()
    }

    @Test("fetch returns the whole list once the stream is done; the cache then answers it", arguments: [0, 1])
    func fetchWhole(format: Int) async throws {
        let server = try await TestServer.start()
        let client = client(server, format: format)
        let response = try await client.fetch(HumanFriendsStreamQuery(id: "1000", initialCount: 2), cachePolicy: .networkOnly)
        #expect(response.value.human?.friends?.compactMap { $0?.name } == Self.friends)
        let cached = try await client.fetch(HumanFriendsStreamQuery(id: "1000", initialCount: 2), cachePolicy: .cacheOnly)
        #expect(cached.value.human?.friends?.compactMap { $0?.name } == Self.friends)
        await server.stop()
    }

    @Test("an initialCount past the list's end: one part, the whole list")
    func nothingToStream() async throws {
        let server = try await TestServer.start()
        let client = client(server, format: 0)
        var results: [Int] = []
        for await result in client.responses(GraphQLRequest(HumanFriendsStreamQuery(id: "1000", initialCount: 10)), cachePolicy: .networkOnly) {
            results.append(try result.get().value.human?.friends?.count ?? -1)
        }
        #expect(results == [4])
        await server.stop()
    }

    @Test("a watcher sees the items as they arrive, then changes to their records")
    func watch() async throws {
        let server = try await TestServer.start()
        let client = client(server, format: 0)
        var iterator = client.watch(GraphQLRequest(HumanFriendsStreamQuery(id: "1000", initialCount: 0)), cachePolicy: .networkOnly)
            .makeAsyncIterator()
        var counts: [Int] = []
        while counts.last != 4, let next = await iterator.next() {
            counts.append(try next.get().value.human?.friends?.count ?? -1)
        }
        #expect(counts == [0, 1, 2, 3, 4])
        try await client.cache.updateRecord("Droid:2001") { $0["name"] = "Artoo" }
        let changed = try #require(await iterator.next()).get()
        #expect(changed.value.human?.friends?.last??.name == "Artoo")
        await server.stop()
    }

    @Test("a server that stops mid-stream: a clear error after the items that came", arguments: [0, 1])
    func cutOff(format: Int) async throws {
        let server = try await TestServer.start()
        server.cutIncrementalAnswers(after: 2)
        let client = client(server, format: format)
        var counts: [Int] = []
        var failure: APIError?
        for await result in client.responses(GraphQLRequest(HumanFriendsStreamQuery(id: "1000", initialCount: 1)), cachePolicy: .networkOnly) {
            switch result {
            case .success(let response): counts.append(response.value.human?.friends?.count ?? -1)
            case .failure(let error): failure = error
            }
        }
        #expect(counts == [1, 2])
        guard case .transport(let transport)? = failure else {
            Issue.record("expected a transport failure, got \(String(describing: failure))")
            return await server.stop()
        }
        #expect(transport.kind == .connectionLost)
        await server.stop()
    }
}
