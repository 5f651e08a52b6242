@testable import APICore
@testable import APICoreSupport
@testable import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

@Suite("Partial cache reads (allowsPartialCacheData)")
struct PartialCacheReadTests {
    static func partial(_ query: HumanQuery) -> GraphQLRequest<HumanQuery, HumanQuery.Data> {
        var request = GraphQLRequest(query)
        request.allowsPartialCacheData = true
        return request
    }

    @Test("cache-only: what the cache has, a missing nullable field null with its path; a missing non-null field nulls its object")
    func cacheOnly() async throws {
        try await withCachingServer { server, client in
            _ = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
            try await client.cache.updateRecord("Human:1000") { $0["homePlanet"] = nil }

            // Without the opt-in, a missing field is a miss, as before.
            await #expect(throws: APIError.self) { try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .cacheOnly) }

            let nullable = try await client.fetch(Self.partial(HumanQuery(id: "1000")), cachePolicy: .cacheOnly)
            #expect(nullable.source == .cache)
            #expect(nullable.value.human?.name == "Luke Skywalker" && nullable.value.human?.homePlanet == nil)
            #expect(nullable.metadata.cacheMisses == [[.field("human"), .field("homePlanet")]])

            // `name` is non-null: its object goes null, up to `human`, which may be; the path names `name`.
            try await client.cache.updateRecord("Human:1000") { $0["name"] = nil }
            let upward = try await client.fetch(Self.partial(HumanQuery(id: "1000")), cachePolicy: .cacheOnly)
            #expect(upward.value.human == nil)
            #expect(upward.metadata.cacheMisses == [[.field("human"), .field("name")]])

            // A query the cache never saw: its root field, which may be null, is null and named.
            let never = try await client.fetch(Self.partial(HumanQuery(id: "1002")), cachePolicy: .cacheOnly)
            #expect(never.value.human == nil && never.metadata.cacheMisses == [[.field("human")]])
            #expect(server.requests(to: "graphql").count == 1)
        }
    }

    @Test("cache-and-network: the partial cached result first, then the server's whole one; cache-else-network still asks the server")
    func cacheAndNetwork() async throws {
        try await withCachingServer { server, client in
            _ = try await client.fetch(HumanQuery(id: "1003"), cachePolicy: .networkOnly)
            try await client.cache.updateRecord("Human:1003") { $0["homePlanet"] = nil }
            let both = Recorder(client.responses(Self.partial(HumanQuery(id: "1003")), cachePolicy: .cacheAndNetwork))
            await both.finished()
            let results = both.elements.compactMap { try? $0.get() }
            #expect(results.map(\.source) == [.cache, .server])
            #expect(results.map(\.metadata.cacheMisses) == [[[.field("human"), .field("homePlanet")]], []])
            #expect(results.last?.value.human?.homePlanet == "Alderaan")

            try await client.cache.updateRecord("Human:1003") { $0["homePlanet"] = nil }
            let elseNetwork = try await client.fetch(Self.partial(HumanQuery(id: "1003")), cachePolicy: .cacheElseNetwork)
            #expect(elseNetwork.source == .server && elseNetwork.metadata.cacheMisses.isEmpty)
            #expect(server.requests(to: "graphql").count == 3)
        }
    }

    @Test("in a list, a friend the cache lacks is null in its place when the items may be; the others are read")
    func listItems() async throws {
        try await withCachingServer { _, client in
            _ = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))), cachePolicy: .networkOnly)
            // Han Solo, the first friend, loses his name (non-null): his item goes null, as `friends` allows.
            let hero = try #require(try await client.cache.readQuery(HeroNameQuery(episode: .some(.init(.empire))))?.hero)
            #expect(hero.friends?.first??.name == "Han Solo")
            let heroRecord = try #require(try await client.cacheMaintenance!.inspect("Human:1000"))
            let firstFriend = try #require(heroRecord.fields["friends"]?.arrayValue?.first.flatMap(CacheNaming.referencedKey))
            try await client.cache.updateRecord(firstFriend) { $0["name"] = nil }
            var request = GraphQLRequest(HeroNameQuery(episode: .some(.init(.empire))))
            request.allowsPartialCacheData = true
            let read = try await client.fetch(request, cachePolicy: .cacheOnly)
            #expect(read.value.hero?.friends?.map { $0?.name } == [nil, "Leia Organa", "C-3PO", "R2-D2"])
            #expect(read.metadata.cacheMisses == [[.field("hero"), .field("friends"), .index(0), .field("name")]])
        }
    }
}
