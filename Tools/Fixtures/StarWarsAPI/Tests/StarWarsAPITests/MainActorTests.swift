import APICore
import APICoreLive
import APICoreTesting
import Foundation
import Observation
import StarWarsAPI
import StarWarsAPITestMocks
import Testing

// This target's default isolation is the main actor (Package.swift), as in a new Xcode 26 app
// target: everything here that says nothing else is main-actor-isolated, and uses the generated
// code and APICore from there.

/// A screen's model as an app writes it: main-actor-isolated by default, fetching through any
/// client.
@Observable
final class HeroScreenModel {
    private(set) var name: String?
    private(set) var error: APIError?
    private let client: any APIClient

    init(client: any APIClient) { self.client = client }

    func load(_ policy: CachePolicy = .default) async {
        do throws(APIError) {
            name = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))), cachePolicy: policy).value.hero?.name
            error = nil
        } catch {
            self.error = error
        }
    }
}

/// A client with a cache in memory and no server (its endpoint refuses connections).
private func offlineClient() -> any APIClient {
    APICoreLive.makeClient(APIClientConfiguration(restBaseURL: URL(string: "http://127.0.0.1:1")!, retryPolicy: nil))
}

@Suite("Generated code from main-actor-isolated code")
struct MainActorTests {
    @Test("a main-actor model fetches a generated query through the mock client, with data built from the generated mocks")
    func fetchThroughTheMock() async throws {
        let client = MockAPIClient()
        client.stub(operation: "HeroName", mock: Mock.Query(hero: Mock.Droid(name: "R2-D2")))
        let model = HeroScreenModel(client: client)
        await model.load()
        #expect(model.name == "R2-D2" && model.error == nil)
        #expect(client.sent("HeroName").first?.payload == ["episode": "EMPIRE"])
    }

    @Test("the live engine from the main actor: data written to its cache is fetched, watched at once, and a failure is the model's error")
    func liveEngine() async throws {
        let client = offlineClient()
        let query = HeroNameQuery(episode: .some(.init(.empire)))
        let data = try HeroNameQuery.Data(mock: Mock.Query(hero: Mock.Human(name: "Luke Skywalker")))
        try await client.cache.writeQuery(query, data: data)

        let model = HeroScreenModel(client: client)
        await model.load(.cacheOnly)
        #expect(model.name == "Luke Skywalker")

        let watched = WatchedQuery(GraphQLRequest(query) { $0.hero?.name }, client: client)
        #expect(watched.value == .some("Luke Skywalker") && watched.source == .cache)
        watched.stop()

        await model.load(.networkOnly)
        guard case .transport? = model.error else {
            Issue.record("expected a transport error from the refused connection, got \(String(describing: model.error))")
            return
        }
        #expect(model.name == "Luke Skywalker")
    }

    @Test("a generated fragment read and changed in the cache from the main actor")
    func fragmentInTheCache() async throws {
        let client = MockAPIClient()
        client.writeFragment(try CharacterName(validating: ["__typename": "Droid", "name": "R2-D2"]), key: "Droid:2001")
        let row = WatchedFragment(CharacterName.self, key: "Droid:2001", in: client.cache)
        #expect(row.value?.name == "R2-D2")
        #expect(await observed { row.error == nil && !row.isLoading })
        row.stop()
    }
}
