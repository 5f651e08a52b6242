@testable import APICore
@testable import APICoreSupport
@testable import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

/// A response with data and errors: the fields that came with a value are cached, the fields the
/// errors name are not (what was there stays), and watchers see what changed.
@Suite("Partial data in the cache")
struct PartialDataTests {
    static let complete = TestServer.Canned(status: 200, body: #"{"data":{"hero":{"__typename":"Droid","name":"R2-D2"},"failingField":"fine"}}"#)
    static let partial = TestServer.Canned(
        status: 200,
        body: #"{"data":{"hero":{"__typename":"Droid","name":"Artoo"},"failingField":null},"errors":[{"message":"boom","path":["failingField"]}]}"#)

    @Test("the real server's partial answer: the hero is cached, the failed field is not")
    func realServer() async throws {
        try await withCachingServer { _, client in
            let error = await thrownError { () async throws(APIError) in try await client.fetch(HeroAndFailingQuery(), cachePolicy: .networkOnly) }
            #expect(error?.partialData(as: HeroAndFailingQuery.Data.self)?.hero?.name == "R2-D2")
            let root = try #require(try await client.cacheMaintenance!.inspect(CacheNaming.queryRoot))
            #expect(root.fields["hero"] != nil)
            #expect(root.fields["failingField"] == nil)
            // The failed field was never known: the whole query is still a miss.
            let miss = await thrownError { () async throws(APIError) in try await client.fetch(HeroAndFailingQuery(), cachePolicy: .cacheOnly) }
            guard case .cacheMiss("HeroAndFailing")? = miss else {
                Issue.record("expected a cache miss, got \(String(describing: miss))")
                return
            }
        }
    }

    @Test("errors as values against the real server: fetchResult gives the hero and the failed field's error without throwing")
    func errorsAsValues() async throws {
        try await withCachingServer { _, client in
            let result = try await client.fetchResult(GraphQLRequest(HeroAndFailingQuery()) { $0.hero?.name }, cachePolicy: .networkOnly)
            #expect(result.value == "R2-D2")
            #expect(result.errors.map { $0.path?.description } == ["failingField"])
        }
    }

    @Test("fields with a value are written and watchers told; the field an error names keeps its cached value; the switch turns it off",
          arguments: [true, false])
    func keepsWhatTheErrorNames(_ writesPartialData: Bool) async throws {
        try await withCachingServer(cache: CacheConfiguration(writesPartialData: writesPartialData)) { server, client in
            server.respond("graphql", with: [Self.complete])
            _ = try await client.fetch(HeroAndFailingQuery(), cachePolicy: .networkOnly)
            let watcher = Recorder(client.watch(GraphQLRequest(HeroAndFailingQuery()) { "\($0.hero?.name ?? "-") \($0.failingField ?? "-")" }, cachePolicy: .cacheOnly))
            #expect(await watcher.waitFor(1))

            server.respond("graphql", with: [Self.partial])
            let error = await thrownError { () async throws(APIError) in try await client.fetch(HeroAndFailingQuery(), cachePolicy: .networkOnly) }
            #expect(error?.partialData(as: HeroAndFailingQuery.Data.self)?.hero?.name == "Artoo")

            let cached = try await client.fetch(HeroAndFailingQuery(), cachePolicy: .cacheOnly).value
            if writesPartialData {
                #expect(cached.hero?.name == "Artoo")
                #expect(cached.failingField == "fine")
                #expect(await watcher.waitFor(2))
                #expect(watcher.values == ["R2-D2 fine", "Artoo fine"])
            } else {
                #expect(cached.hero?.name == "R2-D2")
                #expect(cached.failingField == "fine")
                #expect(watcher.values == ["R2-D2 fine"])
            }
            watcher.stop()
        }
    }

    @Test("a null propagated to a nullable parent by a failed field inside it is not written over the cached object")
    func propagatedNull() async throws {
        try await withCachingServer { server, client in
            server.respond("graphql", with: [Self.complete])
            _ = try await client.fetch(HeroAndFailingQuery(), cachePolicy: .networkOnly)
            server.respond("graphql", with: [.init(
                status: 200,
                body: #"{"data":{"hero":null,"failingField":"still fine"},"errors":[{"message":"name failed","path":["hero","name"]}]}"#)])
            _ = await thrownError { () async throws(APIError) in try await client.fetch(HeroAndFailingQuery(), cachePolicy: .networkOnly) }
            let cached = try await client.fetch(HeroAndFailingQuery(), cachePolicy: .cacheOnly).value
            #expect(cached.hero?.name == "R2-D2")
            #expect(cached.failingField == "still fine")
        }
    }

    @Test("partial data of the wrong shape writes nothing")
    func wrongShape() async throws {
        try await withCachingServer { server, client in
            server.respond("graphql", with: [Self.complete])
            _ = try await client.fetch(HeroAndFailingQuery(), cachePolicy: .networkOnly)
            server.respond("graphql", with: [.init(
                status: 200, body: #"{"data":{"hero":{"__typename":"Droid","name":42},"failingField":"changed"},"errors":[{"message":"odd"}]}"#)])
            _ = await thrownError { () async throws(APIError) in try await client.fetch(HeroAndFailingQuery(), cachePolicy: .networkOnly) }
            let cached = try await client.fetch(HeroAndFailingQuery(), cachePolicy: .cacheOnly).value
            #expect(cached.hero?.name == "R2-D2")
            #expect(cached.failingField == "fine")
        }
    }
}

/// `@catch` through the live engine: the real server fails `failingField`, which catches it.
@Suite("Caught errors through the engine")
struct CaughtErrorTests {
    @Test("a caught error is a success: the field holds the error, the rest is cached, the failed field is not")
    func caughtThroughTheEngine() async throws {
        try await withCachingServer { _, client in
            let response = try await client.fetch(HeroAndCaughtQuery(), cachePolicy: .networkOnly)
            #expect(response.value.hero?.name == "R2-D2")
            guard case .failure(let error) = response.value.failingField else {
                Issue.record("failingField's error was not caught: \(response.value.failingField)")
                return
            }
            #expect(error.path == ["failingField"])
            #expect(response.metadata.caughtErrors == [error] && response.metadata.source == .server)
            let root = try #require(try await client.cacheMaintenance!.inspect(CacheNaming.queryRoot))
            #expect(root.fields["hero"] != nil)
            #expect(root.fields["failingField"] == nil, "a caught error never reaches the cache")
            // The failed field was never cached, so a query that needs it is still a miss.
            let miss = await thrownError { () async throws(APIError) in try await client.fetch(HeroAndFailingQuery(), cachePolicy: .cacheOnly) }
            guard case .cacheMiss("HeroAndFailing")? = miss else {
                Issue.record("expected a cache miss, got \(String(describing: miss))")
                return
            }
        }
    }
}
