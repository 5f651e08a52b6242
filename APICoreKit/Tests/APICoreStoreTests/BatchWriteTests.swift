@_spi(Engine) @_spi(Generated) @_spi(Tools) @testable import APICore
import APICoreSupport
@testable import APICoreLive
import Foundation
import Logging
import StarWarsOperations
import Testing

/// A subscription's events that arrived together are written in one step, their records joined
/// first (those kept on the tape made trees last): the store must end as writing them one by one
/// would leave it, field values and expiry.
@Suite("Batched writes")
struct BatchWriteTests {
    @Test(
        "joined records leave the store as writing each in turn does: later values and expiry win, earlier fields stay",
        arguments: [false, true])
    func batchEqualsSequence(onTape: Bool) async throws {
        let clock = TestClock()
        func store() -> NormalizedStore { NormalizedStore(persistent: nil, logger: Logger(label: "test"), now: { clock.now }) }
        let sequential = store()
        let batched = store()
        let writer = CacheWriter(store: sequential)
        var cached = ServerCachePolicy()
        cached.maxAge = .seconds(60)
        // Luke with an expiry; Luke again, renamed, without one (his fields lose it), then without
        // his home planet (it stays); Leia; and Luke once more with an expiry of his own.
        let events: [(id: String, human: JSONObject, policy: ServerCachePolicy)] = [
            ("1000", ["__typename": "Human", "id": "1000", "name": "Luke", "homePlanet": "Tatooine"], cached),
            ("1000", ["__typename": "Human", "id": "1000", "name": "Luke Skywalker", "homePlanet": .null], .none),
            ("1003", ["__typename": "Human", "id": "1003", "name": "Leia Organa", "homePlanet": "Alderaan"], .none),
            ("1000", ["__typename": "Human", "id": "1000", "name": "Luke Skywalker", "homePlanet": "Tatooine"], cached),
        ]
        var checked: [CacheWriter.Checked<HumanQuery.Data>] = []
        for event in events {
            // On the tape, the humans without expiry stay there until written (records whole).
            let data: ReadObject = onTape ? .tape(try JSONTape(reading: JSONSerializer.data(["human": .object(event.human)])).root) : .tree(["human": .object(event.human)])
            let one = try writer.check(
                data, as: HumanQuery.Data.self, at: "QUERY_ROOT", variables: ["id": .string(event.id)], policy: event.policy, keepingOnTape: onTape)
            #expect(one.onTape.isEmpty == (!onTape || event.policy.maxAge != nil))
            checked.append(one)
        }
        for one in checked { await writer.write(one) }
        await CacheWriter(store: batched).write(checked)
        for key in ["QUERY_ROOT", "Human:1000", "Human:1003"] {
            let one = await sequential.record(key)
            let all = await batched.record(key)
            #expect(one != nil, "\(key)")
            #expect(one?.fields == all?.fields, "\(key)")
            #expect(one?.expires == all?.expires, "\(key)")
        }
        #expect(await batched.record("Human:1000")?.fields["name"] == "Luke Skywalker")
        #expect(await batched.record("Human:1000")?.expires["name"] != nil)

        // The second event's null home planet without expiry, then nothing after it: the batch of
        // the first two leaves Luke's fields without expiry.
        let twoStore = store()
        await CacheWriter(store: twoStore).write(Array(checked.prefix(2)))
        let luke = await twoStore.record("Human:1000")
        #expect(luke?.fields["homePlanet"] == .null)
        #expect(luke?.expires.isEmpty == true)
    }
}
