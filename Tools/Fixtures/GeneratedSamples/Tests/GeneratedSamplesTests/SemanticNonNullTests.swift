import APICore
import Evolution
import Testing

/// `nickname: String @semanticNonNull` and `pets: [String] @semanticNonNull(levels: [1])` on
/// `ChildA`: non-optional where the server sends null only with an error.
@Suite("@semanticNonNull fields")
struct SemanticNonNullTests {
    @Test("values decode into non-optional accessors; the list itself may still be null")
    func values() throws {
        let data = try decode(NicknamesQuery(), #"{"child": {"__typename": "ChildA", "id": "1", "nickname": "Al", "pets": ["cat", "dog"]}}"#)
        let nickname: String? = data.child?.asChildA?.nickname
        #expect(nickname == "Al")
        #expect(data.child?.asChildA?.pets == ["cat", "dog"])
        let noPets = try decode(NicknamesQuery(), #"{"child": {"__typename": "ChildA", "id": "1", "nickname": "Al", "pets": null}}"#)
        #expect(noPets.child?.asChildA?.pets == nil)
    }

    @Test("a null where the schema promises a value is an error naming its path, never a default")
    func nulls() {
        for (json, path) in [
            (#"{"child": {"__typename": "ChildA", "id": "1", "nickname": null, "pets": []}}"#, "child.nickname"),
            (#"{"child": {"__typename": "ChildA", "id": "1", "nickname": "Al", "pets": ["cat", null]}}"#, "child.pets.1"),
        ] {
            do {
                _ = try decode(NicknamesQuery(), json)
                Issue.record("a null at \(path) was accepted")
            } catch {
                #expect("\(error)".contains(path), "\(error)")
            }
        }
    }
}
