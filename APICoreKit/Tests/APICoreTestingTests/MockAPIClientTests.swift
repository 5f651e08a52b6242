@_spi(Engine) import APICore
import APICoreTesting
import Foundation
import StarWarsOperations
import Testing

struct Product: Codable, Sendable, Equatable {
    var id: String
    var name: String
}

@Suite("MockAPIClient")
struct MockAPIClientTests {
    func fixture(_ name: String) throws -> URL {
        try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
    }

    @Test("a fixture answers an operation through the real validation and the request's map")
    func fixtureStub() async throws {
        let client = MockAPIClient()
        try client.stub(operation: "HeroName", fixture: fixture("hero-r2"))
        let name = try await client.fetch(GraphQLRequest(HeroNameQuery(episode: .some(.init(.jedi)))) { $0.hero?.name })
        #expect(name.value == "R2-D2")
        #expect(client.sent("HeroName").map(\.payload) == [["episode": "JEDI"]])
    }

    @Test("a fixture that does not match the selection set fails as a server response would")
    func wrongShape() async throws {
        let client = MockAPIClient()
        try client.stub(operation: "HeroName", fixture: fixture("hero-wrong-shape"))
        do {
            _ = try await client.fetch(HeroNameQuery())
            Issue.record("expected an error")
        } catch {
            guard case .invalidResponse(let failure) = error, case .wrongShape(let shape) = failure.kind else {
                Issue.record("expected wrongShape, got \(error)")
                return
            }
            #expect(shape.path == ["data", "hero", "name"])
        }
    }

    @Test("stubs answer in turn, the last one repeating; errors are thrown as given")
    func sequence() async throws {
        let client = MockAPIClient()
        client.stub(operation: "HeroName", error: .transport(TransportFailure(kind: .notConnected, url: nil, underlying: "")))
        client.stub(operation: "HeroName", data: ["hero": nil])
        await #expect(throws: APIError.self) { try await client.fetch(HeroNameQuery()) }
        #expect(try await client.fetch(HeroNameQuery()).value.hero == nil)
        #expect(try await client.fetch(HeroNameQuery()).value.hero == nil)
        #expect(client.sent.count == 3)
    }

    @Test("GraphQL errors with partial data come through as APIError.graphQL")
    func graphQLErrors() async throws {
        let client = MockAPIClient()
        client.stub(operation: "HeroAndFailing", response: [
            "data": ["hero": ["__typename": "Droid", "name": "R2-D2"], "failingField": nil],
            "errors": [["message": "nope", "path": ["failingField"], "extensions": ["code": "E"]]],
        ])
        do {
            _ = try await client.fetch(HeroAndFailingQuery())
            Issue.record("expected an error")
        } catch {
            #expect(error.partialData(as: HeroAndFailingQuery.Data.self)?.hero?.name == "R2-D2")
            guard case .graphQL(let failure) = error else { return }
            #expect(failure.errors.map(\.code) == ["E"])
        }
    }

    @Test("REST stubs per endpoint, from JSON or values; the body sent is recorded")
    func rest() async throws {
        let client = MockAPIClient()
        client.stub(.get, "products/1", json: ["id": "1", "name": "Tea"])
        try client.stub(.post, "/products", value: Product(id: "2", name: "Rice"))
        #expect(try await client.send(RESTRequest<Product>.get("/products/1")).value == Product(id: "1", name: "Tea"))
        let created = try await client.send(RESTRequest<Product>.post("products", body: ["name": "Rice"]))
        #expect(created.value.id == "2")
        #expect(client.sent("POST products").first?.payload == ["name": "Rice"])
    }

    @Test("a raw body is recorded as its JSON; with acceptsAnyStatus a stubbed status error is the response, as the live client does")
    func rawBodyAndAnyStatus() async throws {
        let client = MockAPIClient()
        client.stub(.post, "products", json: ["id": "3", "name": "Salt"])
        var create = RESTRequest<Product>(method: .post, path: "products")
        create.rawBody = RESTRequest.RawBody(Data(#"{"name":"Salt"}"#.utf8), contentType: "application/json")
        #expect(try await client.send(create).value.id == "3")
        #expect(client.sent("POST products").last?.payload == ["name": "Salt"])

        client.stub(.get, "products/9", error: .httpStatus(HTTPFailure(statusCode: 404, headers: ["content-type": "text/plain"], body: Data("no product 9".utf8), url: nil)))
        var read = RESTRequest<Data>(method: .get, path: "products/9") { $0 }
        await #expect(throws: APIError.self) { try await client.send(read) }
        read.acceptsAnyStatus = true
        let answer = try await client.send(read)
        #expect(answer.statusCode == 404 && answer.value == Data("no product 9".utf8))
        #expect(answer.metadata.headers["content-type"] == "text/plain")
    }

    @Test("a request with no stub fails with a message naming what is stubbed")
    func missingStub() async {
        let client = MockAPIClient()
        client.stub(.get, "a", json: [:])
        do {
            _ = try await client.fetch(HeroNameQuery())
            Issue.record("expected an error")
        } catch {
            guard case .invalidRequest(let message) = error else {
                Issue.record("expected invalidRequest, got \(error)")
                return
            }
            #expect(message == "MockAPIClient has no stub for 'HeroName'; stubbed: GET a")
        }
    }
}

@Suite("MockAPIClient subscriptions")
struct MockSubscriptionTests {
    @Test("published events are validated and mapped; finishing with an error ends the sequence with it")
    func publishAndFinish() async throws {
        let client = MockAPIClient()
        let counter = client.subscribe(GraphQLRequest(CounterSubscription(to: 3)) { $0.counter * 10 })
        #expect(client.subscriberCount("Counter") == 1)
        #expect(client.sent("Counter").first?.payload == ["to": 3])
        client.publish(subscription: "Counter", response: ["data": ["counter": 1]])
        client.publish(subscription: "Counter", response: ["data": ["counter": 2]])
        client.finishSubscriptions("Counter", throwing: .webSocket(WebSocketFailure(kind: .closed(code: 4500, reason: "boom"), url: nil)))
        var values: [Int] = []
        do throws(APIError) {
            for try await value in counter { values.append(value) }
            Issue.record("expected the subscription to fail")
        } catch {
            guard case .webSocket(let failure) = error else {
                Issue.record("expected a WebSocket failure, got \(error)")
                return
            }
            #expect(failure.closeCode == 4500)
        }
        #expect(values == [10, 20])
        #expect(client.subscriberCount("Counter") == 0)
    }

    @Test("an event that does not match the selection set ends the subscription with the field's path")
    func wrongShape() async throws {
        let client = MockAPIClient()
        let counter = client.subscribe(CounterSubscription(to: 1))
        client.publish(subscription: "Counter", response: ["data": ["counter": "one"]])
        do throws(APIError) {
            for try await _ in counter {}
            Issue.record("expected the subscription to fail")
        } catch {
            guard case .invalidResponse(let failure) = error, case .wrongShape(let shape) = failure.kind else {
                Issue.record("expected a wrong shape, got \(error)")
                return
            }
            #expect(shape.path.description == "data.counter")
        }
    }

    @Test("a local cache mutation starts from its stub, then from what it wrote")
    func localCacheMutation() async throws {
        let client = MockAPIClient()
        await #expect(throws: APIError.self) { try await client.cache.update(HumanNameLocalCacheMutation(id: "1")) { _ in } }
        client.stub(operation: "HumanName", data: ["human": ["__typename": "Human", "id": "1", "name": "Luke"]])
        let first = try await client.cache.update(HumanNameLocalCacheMutation(id: "1")) { $0.human?.name += " S." }
        let second = try await client.cache.update(HumanNameLocalCacheMutation(id: "1")) { $0.human?.name += " Skywalker" }
        #expect(first.human?.name == "Luke S.")
        #expect(second.human?.name == "Luke S. Skywalker")
        #expect(client.cacheOperations == ["update HumanName", "update HumanName"])
    }

}
