import APICore
import APICoreTesting
import Foundation
import Observation
import StarWarsOperations
import Testing

/// Waits until `condition` holds, woken by the observation of what it reads (no polling); gives up
/// after `timeout`, a ceiling only.
@MainActor
private func until(timeout: Duration = .seconds(30), _ condition: @escaping @MainActor () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        let (changes, signal) = AsyncStream<Void>.makeStream()
        withObservationTracking { _ = condition() } onChange: {
            signal.yield()
            signal.finish()
        }
        let ceiling = Task {
            try? await Task.sleep(until: deadline)
            signal.finish()
        }
        for await _ in changes { break }
        ceiling.cancel()
        if ContinuousClock.now >= deadline { return condition() }
    }
    return true
}

@MainActor
@Suite("WatchedQuery, the observable model of a watch")
struct WatchedQueryTests {
    static func answer(_ name: String) -> JSONValue {
        ["data": ["hero": ["__typename": "Droid", "name": .string(name)], "failingField": "fine"]]
    }

    static let request = GraphQLRequest(HeroAndFailingQuery()) { $0.hero?.name }

    @Test("the model shows the watch's first value, then each change; stop ends the watch and keeps the value")
    func updates() async {
        let client = MockAPIClient()
        client.stub(operation: "HeroAndFailing", response: Self.answer("R2-D2"))
        let model = WatchedQuery(Self.request, client: client)
        #expect(model.isLoading && model.value == nil)
        #expect(await until { model.value == .some("R2-D2") })
        #expect(!model.isLoading && model.error == nil && model.source == .server)

        client.publish(operation: "HeroAndFailing", response: Self.answer("Artoo"))
        #expect(await until { model.value == .some("Artoo") })

        model.stop()
        #expect(await eventually { @Sendable in client.watcherCount("HeroAndFailing") == 0 })
        #expect(model.value == .some("Artoo") && !model.isLoading)
    }

    @Test("a failure is the model's error; a refetch that succeeds shows its value and clears the error")
    func errorThenRefetch() async {
        let client = MockAPIClient()
        client.stub(operation: "HeroAndFailing", error: .transport(TransportFailure(kind: .connectionRefused, url: nil, underlying: "refused")))
        client.stub(operation: "HeroAndFailing", response: Self.answer("R2-D2"))
        let model = WatchedQuery(Self.request, client: client)
        #expect(await until { model.error != nil })
        #expect(model.value == nil && !model.isLoading)

        await model.refetch()
        #expect(model.value == .some("R2-D2") && model.error == nil && !model.isLoading)
        model.stop()
    }

    @Test("a model that goes away ends its watch")
    func deinitStops() async {
        let client = MockAPIClient()
        client.stub(operation: "HeroAndFailing", response: Self.answer("R2-D2"))
        var model: WatchedQuery<HeroAndFailingQuery, String?>? = WatchedQuery(Self.request, client: client)
        #expect(await until { model?.value == .some("R2-D2") })
        #expect(client.watcherCount("HeroAndFailing") == 1)
        model = nil
        #expect(await eventually { @Sendable in client.watcherCount("HeroAndFailing") == 0 })
    }
}
