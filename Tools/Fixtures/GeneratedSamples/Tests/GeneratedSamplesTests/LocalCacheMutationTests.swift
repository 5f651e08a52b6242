import APICore
import APICoreTesting
import Evolution
import Testing

@Suite("A generated local cache mutation")
struct LocalCacheMutationTests {
    @Test("its fields are settable, it is not an operation a client sends, and updateCache changes it")
    func settable() async throws {
        #expect(!(RenameChildLocalCacheMutation.self as Any.Type is any GraphQLOperation.Type))
        #expect(RenameChildLocalCacheMutation.operationType == .query)
        var data = try RenameChildLocalCacheMutation.Data(validating: [
            "child": ["__typename": "ChildA", "id": "1", "name": "Ada", "toy": "kite"]
        ])
        data.child?.name = "Ada L."
        #expect(data.child?.name == "Ada L.")
        #expect(data.child?.asChildA?.toy == "kite")
        #expect(data.child?.asChildA?.name == "Ada L.")  // a type case reads the same data

        let client = MockAPIClient()
        client.stub(operation: "RenameChild", data: ["child": ["__typename": "ChildA", "id": "1", "name": "Ada", "toy": "kite"]])
        let written = try await client.cache.update(RenameChildLocalCacheMutation()) { $0.child?.name = "Bo" }
        #expect(written.child?.name == "Bo")
        #expect(client.cacheOperations == ["update RenameChild"])
    }
}
