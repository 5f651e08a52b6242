@testable import APICore
@testable import APICoreSupport
@testable import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

@Suite("Cache policies against the loopback server")
struct CachePolicyTests {
    @Test("cache-else-network: the server once, then the cache")
    func cacheElseNetwork() async throws {
        try await withCachingServer { server, client in
            let first = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))))
            let second = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))))
            #expect(first.source == .server)
            #expect(second.source == .cache)
            #expect(second.value.hero?.name == "Luke Skywalker")
            #expect(second.value.hero?.friends?.compactMap { $0?.name } == ["Han Solo", "Leia Organa", "C-3PO", "R2-D2"])
            #expect(server.requests(to: "graphql").count == 1)
            // Other arguments are another field: a miss, so the server again.
            let other = try await client.fetch(HeroNameQuery(episode: .some(.init(.jedi))))
            #expect(other.source == .server)
            #expect(server.requests(to: "graphql").count == 2)
        }
    }

    @Test("network-only always asks the server and still writes; no-cache neither reads nor writes")
    func networkOnlyAndNoCache() async throws {
        try await withCachingServer { server, client in
            _ = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .noCache)
            await #expect(throws: APIError.self) { try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly) }
            let fromServer = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
            #expect(fromServer.source == .server)
            let again = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
            #expect(again.source == .server)
            #expect(server.requests(to: "graphql").count == 3)
            let cached = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly)
            #expect(cached.source == .cache)
            #expect(cached.value.human?.homePlanet == "Tatooine")
        }
    }

    @Test("cache-only: a miss is a clear error, with no request")
    func cacheOnlyMiss() async throws {
        try await withCachingServer { server, client in
            do throws(APIError) {
                _ = try await client.fetch(HumanQuery(id: "1002"), cachePolicy: .cacheOnly)
                Issue.record("expected a cache miss")
            } catch {
                guard case .cacheMiss(let operation) = error else {
                    Issue.record("expected cacheMiss, got \(error)")
                    return
                }
                #expect(operation == "Human")
            }
            #expect(server.requests.isEmpty)
        }
    }

    @Test("cache-and-network: one result on a miss; the cache's then the server's on a hit")
    func cacheAndNetwork() async throws {
        try await withCachingServer { server, client in
            let cold = Recorder(client.responses(GraphQLRequest(HumanQuery(id: "1003")), cachePolicy: .cacheAndNetwork))
            await cold.finished()
            #expect(cold.elements.map { try? $0.get().source } == [.server])

            let warm = Recorder(client.responses(GraphQLRequest(HumanQuery(id: "1003")), cachePolicy: .cacheAndNetwork))
            await warm.finished()
            #expect(warm.elements.map { try? $0.get().source } == [.cache, .server])
            #expect(warm.values.map { $0.human?.name } == ["Leia Organa", "Leia Organa"])
            #expect(server.requests(to: "graphql").count == 2)

            // fetch answers the cached data at once and lets the server's answer update the cache.
            let quick = try await client.fetch(HumanQuery(id: "1003"), cachePolicy: .cacheAndNetwork)
            #expect(quick.source == .cache)
            #expect(await eventually { server.requests(to: "graphql").count == 3 })
        }
    }

    @Test("records are keyed by type and id, fields by their arguments; objects without a key by path")
    func normalizedRecords() async throws {
        try await withCachingServer { _, client in
            _ = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))))
            let root = try #require(try await client.cacheMaintenance!.inspect(CacheNaming.queryRoot))
            #expect(root.fields["hero(episode:\"EMPIRE\")"] == CacheNaming.reference(to: "Human:1000"))
            let luke = try #require(try await client.cacheMaintenance!.inspect("Human:1000"))
            #expect(luke.fields["name"] == "Luke Skywalker")
            #expect(luke.fields["friends"]?.arrayValue?.count == 4)
            // The friends selection has no id: each friend is stored under its path from Luke.
            #expect(luke.fields["friends"]?.arrayValue?.first == CacheNaming.reference(to: "Human:1000.friends.0"))
        }
    }

    @Test("a left-out variable leaves its argument out of the key, as the server does; null is a value; a default is the value")
    func leftOutVariables() async throws {
        try await withCachingServer { server, client in
            // `hero` without the argument, then with `$episode` left out: the same field, a cache hit.
            let plain = try await client.fetch(HeroPlainQuery(), cachePolicy: .networkOnly)
            let leftOut = try await client.fetch(HeroNameQuery(), cachePolicy: .cacheOnly)
            #expect(leftOut.source == .cache)
            #expect(leftOut.value.hero?.name == plain.value.hero?.name)
            // `hero(episode: null)` is a field of its own: a miss until the server answered it.
            do throws(APIError) {
                _ = try await client.fetch(HeroNameQuery(episode: .null), cachePolicy: .cacheOnly)
                Issue.record("hero(episode: null) read what hero wrote")
            } catch {
                guard case .cacheMiss = error else { throw error }
            }
            _ = try await client.fetch(HeroNameQuery(episode: .null), cachePolicy: .networkOnly)
            let root = try #require(try await client.cacheMaintenance!.inspect(CacheNaming.queryRoot))
            #expect(root.fields["hero"] == CacheNaming.reference(to: "Droid:2001"))
            #expect(root.fields["hero(episode:null)"] == CacheNaming.reference(to: "Droid:2001"))
            #expect(root.fields.count == 2)
            // A default is what the server uses for a left-out variable: keyed as EMPIRE, Luke.
            let defaulted = try await client.fetch(HeroDefaultedQuery(), cachePolicy: .networkOnly)
            #expect(defaulted.value.hero?.name == "Luke Skywalker")
            let empire = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))), cachePolicy: .cacheOnly)
            #expect(empire.value.hero?.name == "Luke Skywalker")
            #expect(server.requests(to: "graphql").count == 3)
        }
    }

    @Test("a key function registered for a type wins over key fields")
    func keyFunction() async throws {
        let cache = CacheConfiguration(keys: ["Human": { object in object["name"]?.stringValue }])
        try await withCachingServer(cache: cache) { _, client in
            _ = try await client.fetch(HumanQuery(id: "1000"))
            #expect(try await client.cacheMaintenance!.inspect("Human:Luke Skywalker") != nil)
        }
    }

    @Test("a field policy redirects a read: human(id:) is a cache hit once any query wrote Human:<id>, and the server sees no request")
    func fieldPolicyRedirect() async throws {
        try await withCachingServer { server, client in
            _ = try await client.fetch(CharacterPageQuery(first: 3), cachePolicy: .networkOnly)
            let sent = server.requests(to: "/graphql").count
            let response = try await client.fetch(HumanByKeyQuery(id: "1000"))
            #expect(response.value.human?.name == "Luke Skywalker")
            #expect(response.metadata.source == .cache)
            #expect(server.requests(to: "/graphql").count == sent, "the redirect answered from the cache")
            // A key the cache does not hold is a miss, fetched from the server as usual.
            let other = try await client.fetch(HumanByKeyQuery(id: "1003"))
            #expect(other.value.human?.name == "Leia Organa" && other.metadata.source == .server)
            #expect(server.requests(to: "/graphql").count == sent + 1)
        }
    }
}

