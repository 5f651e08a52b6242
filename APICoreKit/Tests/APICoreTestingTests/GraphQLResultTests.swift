import APICore
import APICoreTesting
import Foundation
import StarWarsOperations
import Testing

@Suite("GraphQL errors as values")
struct GraphQLResultTests {
    /// An answer whose `failingField` failed, the hero still there.
    static let partialAnswer: JSONValue = [
        "data": ["hero": ["__typename": "Droid", "name": "R2-D2"], "failingField": nil],
        "errors": [["message": "nope", "path": ["failingField"]]],
    ]

    static let request = GraphQLRequest(HeroAndFailingQuery()) { $0.hero?.name }

    @Test("an answer with data and errors gives both, without throwing; a whole answer gives its value and metadata")
    func partialAndWhole() async throws {
        let client = MockAPIClient()
        client.stub(operation: "HeroAndFailing", response: Self.partialAnswer)
        let partial = try await client.fetchResult(Self.request)
        #expect(partial.value == "R2-D2")
        #expect(partial.errors.map(\.message) == ["nope"])
        #expect(partial.errors.first?.path?.description == "failingField")
        #expect(!partial.errors.isEmpty && partial.metadata == nil)

        let answering = MockAPIClient()
        answering.stub(operation: "HeroAndFailing", response: ["data": ["hero": ["__typename": "Human", "name": "Luke"], "failingField": "fine"]])
        let whole = try await answering.fetchResult(Self.request)
        #expect(whole.value == "Luke")
        #expect(whole.errors.isEmpty)
        #expect(whole.metadata?.operationName == "HeroAndFailing")
    }

    @Test("errors without usable data give no value; a failure that is not GraphQL's is still thrown")
    func noDataAndOtherFailures() async throws {
        let client = MockAPIClient()
        client.stub(operation: "HeroAndFailing", response: ["data": nil, "errors": [["message": "down"]]])
        let empty = try await client.fetchResult(Self.request)
        #expect(empty.value == nil && empty.errors.map(\.message) == ["down"])

        let offline = MockAPIClient()
        offline.stub(operation: "HeroAndFailing", error: .transport(TransportFailure(kind: .connectionRefused, url: nil, underlying: "refused")))
        await #expect(throws: APIError.self) { try await offline.fetchResult(Self.request) }
    }

    @Test("a watch with errors as values yields the partial data and its errors as one element")
    func watch() async throws {
        let client = MockAPIClient()
        client.stub(operation: "HeroAndFailing", response: Self.partialAnswer)
        var results = client.watchResults(Self.request).makeAsyncIterator()
        guard case .success(let first)? = await results.next() else {
            Issue.record("expected a result with errors as a value")
            return
        }
        #expect(first.value == "R2-D2" && first.errors.count == 1)
    }
}
