@_spi(Engine) @_spi(Generated) @testable import APICore
import APICoreSupport
@testable import APICoreLive
import Foundation
import Logging
import StarWarsOperations
import Testing

/// `query { human(id: $id) @cacheControl 20 s { __typename id name homePlanet @cacheControl 5 s } }`, as the generator
/// writes a schema's `@cacheControl(maxAge:)` (on the field, or on the type it returns).
private struct AgedHumanData: RootSelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = ParentType.object("Query")
    static let __selections = Selection.parse(#"[["human","0",{"args":{"id":{"$":"id"}},"age":20}]]"#, Human.self)

    struct Human: SelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Human", keyFields: ["id"])
        static let __selections = Selection.parse(#"[["__typename","0!"],["id","0!"],["name","0!"],["homePlanet","0",{"age":5}]]"#, String.self)
    }
}

@Suite("Server cache policy in the store")
struct ServerExpiryStoreTests {
    @Test("the schema's @cacheControl(maxAge:): a field's age holds for it and what is below it, a shorter one inside wins, and so does a shorter server's")
    func schemaMaxAge() throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        func expires(_ policy: ServerCachePolicy) throws -> [String: [String: Date]] {
            var recording = SelectionValidator(
                variables: ["id": "1000"], recorder: CacheWriter(store: NormalizedStore(persistent: nil, logger: Logger(label: "test")))
                    .records(variables: ["id": "1000"], policy: policy, receivedAt: now))
            var data: JSONObject = ["human": ["__typename": "Human", "id": "1000", "name": "Luke Skywalker", "homePlanet": "Tatooine"]]
            try recording.validate(&data, selections: AgedHumanData.__selections, in: AgedHumanData.__parentType, recordingAt: recording.recorder?.place(key: "QUERY_ROOT"))
            return try #require(recording.recorder).expires
        }
        let declared = try expires(ServerCachePolicy())
        #expect(declared["QUERY_ROOT"]?.values.first == now.addingTimeInterval(20))
        #expect(declared["Human:1000"]?["name"] == now.addingTimeInterval(20))
        #expect(declared["Human:1000"]?["homePlanet"] == now.addingTimeInterval(5))
        var server = ServerCachePolicy()
        server.maxAge = .seconds(10)
        let shortened = try expires(server)
        #expect(shortened["Human:1000"]?["name"] == now.addingTimeInterval(10))
        #expect(shortened["Human:1000"]?["homePlanet"] == now.addingTimeInterval(5))
    }

    @Test("precedence: the shortest of the server's max-age, its hints, the type's and the request's maximum age wins")
    func precedence() async throws {
        let clock = TestClock()
        let store = NormalizedStore(persistent: nil, maxAgeByType: ["Human": .seconds(30)], logger: Logger(label: "test"), now: { clock.now })
        /// Writes the human as an answer with this policy would, and answers when it reads as
        /// expired (the first whole second), with `requestMaxAge`.
        func expiresAfter(_ policy: ServerCachePolicy, requestMaxAge: Duration? = nil) async -> Int? {
            var recording = SelectionValidator(
                variables: ["id": "1000"], recorder: CacheWriter(store: store).records(variables: ["id": "1000"], policy: policy, receivedAt: clock.now))
            var data: JSONObject = ["human": ["__typename": "Human", "id": "1000", "name": "Luke Skywalker", "homePlanet": "Tatooine"]]
            let root = recording.recorder?.place(key: "QUERY_ROOT")
            _ = try? recording.validate(&data, selections: HumanQuery.Data.__selections, in: HumanQuery.Data.__parentType, recordingAt: root)
            await CacheWriter(store: store).write(records: recording.recorder?.records ?? [:], expires: recording.recorder?.expires ?? [:])
            var elapsed = 0
            defer { clock.advance(by: -Double(elapsed)) }
            while elapsed < 100 {
                let read = await store.read(HumanQuery.self, variables: ["id": "1000"], requestMaxAge: requestMaxAge)
                #expect(read.data != nil)
                if read.stale { return elapsed }
                clock.advance(by: 1)
                elapsed += 1
            }
            return nil
        }
        var serverMaxAge = ServerCachePolicy()
        serverMaxAge.maxAge = .seconds(60)
        #expect(await expiresAfter(serverMaxAge) == 31)  // the type's 30 s
        serverMaxAge.maxAge = .seconds(10)
        #expect(await expiresAfter(serverMaxAge) == 11)  // the server's 10 s
        #expect(await expiresAfter(serverMaxAge, requestMaxAge: .seconds(5)) == 6)  // the request's 5 s
        var hinted = ServerCachePolicy()
        hinted.maxAge = .seconds(20)
        hinted.hints = ["human": .seconds(15), "human.homePlanet": .seconds(3)]
        #expect(await expiresAfter(hinted) == 4)  // the hint on `homePlanet`
        hinted.hints = ["human": .seconds(15)]
        #expect(await expiresAfter(hinted) == 16)  // `homePlanet` below `human` takes its hint
        // A write without a policy takes the expiry away again.
        #expect(await expiresAfter(ServerCachePolicy()) == 31)
    }

    @Test("reading Cache-Control and hints: directives in any case and order; malformed ones ignored")
    func parsing() {
        let policy = ServerCachePolicy(
            headers: ["cache-control": #"Public, MAX-AGE="120", s-maxage=600, max-age=90, max-age=oops"#],
            extensions: ["cacheControl": ["hints": [
                ["path": ["heroes", 0, "name"], "maxAge": 5], ["path": [], "maxAge": 1], ["path": ["x"], "maxAge": -3], ["maxAge": 2],
            ]]])
        #expect(policy.maxAge == .seconds(90) && !policy.noStore)
        #expect(policy.hints == ["heroes.0.name": .seconds(5)])
        #expect(ServerCachePolicy(headers: ["cache-control": "no-store"], extensions: nil).noStore)
        #expect(ServerCachePolicy(headers: [:], extensions: ["cacheControl": "nonsense"]) == .none)
        // An answer that waited in an HTTP cache lives the rest of its max-age, not all of it.
        #expect(ServerCachePolicy(headers: ["cache-control": "max-age=60", "age": "50"], extensions: nil).maxAge == .seconds(10))
        #expect(ServerCachePolicy(headers: ["cache-control": "max-age=60", "age": "90"], extensions: nil).maxAge == .zero)
        #expect(ServerCachePolicy(headers: ["age": "90"], extensions: nil).maxAge == nil)
    }

    @Test("collection removes fields past their server expiry, and keeps the rest of the record")
    func collectsExpiredFields() async throws {
        let clock = TestClock()
        let store = NormalizedStore(persistent: nil, logger: Logger(label: "test"), now: { clock.now })
        await CacheWriter(store: store).write(records: 
            ["QUERY_ROOT": ["hero": CacheNaming.reference(to: "Human:1")], "Human:1": ["__typename": "Human", "name": "Luke", "homePlanet": "Tatooine"]],
            expires: ["Human:1": ["homePlanet": clock.now.addingTimeInterval(60)]])
        clock.advance(by: 90)
        #expect(await CacheWriter(store: store).collectGarbage(maxStaleness: .seconds(60)).expiredFields == 0)
        let collection = await CacheWriter(store: store).collectGarbage(maxStaleness: .zero)
        #expect(collection.expiredFields == 1 && collection.removedRecords == 0)
        #expect(await store.record("Human:1")?.fields == ["__typename": "Human", "name": "Luke"])
    }
}
