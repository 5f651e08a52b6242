import APICore
import Evolution
import Testing

/// `input ChildKey @oneOf`: an enum whose value sends exactly one field.
@Suite("@oneOf input objects")
struct OneOfTests {
    @Test("each case is sent as an object with exactly its own field, nested input objects and lists included")
    func exactlyOneField() {
        #expect(ChildByQuery(key: .id("c-1")).variablesJSON == ["key": ["id": "c-1"]])
        #expect(ChildByQuery(key: .name("Ann")).variablesJSON == ["key": ["name": "Ann"]])
        #expect(ChildByQuery(key: .byAges([3, 5])).variablesJSON == ["key": ["ages": [3, 5]]])
        // The nested input's own defaulted field stays absent unless set.
        #expect(ChildByQuery(key: .toy(.init(toy: "kite"))).variablesJSON == ["key": ["toy": ["toy": "kite"]]])
        // ToyFilter is ToyQuery in Swift (customTypeNames), its `exact` field `isExact`; what is sent keeps the schema's names.
        #expect(ChildByQuery(key: .toy(EvolutionAPI.ToyQuery(toy: "kite", isExact: false))).variablesJSON == ["key": ["toy": ["toy": "kite", "exact": false]]])
        for key: EvolutionAPI.ChildKey in [.id("1"), .name("n"), .toy(.init(toy: "t")), .byAges([])] {
            #expect(ChildByQuery(key: key).variablesJSON["key"]?.objectValue?.count == 1)
        }
    }

    @Test("values compare and hash by their case and payload")
    func hashable() {
        #expect(EvolutionAPI.ChildKey.id("1") == .id("1"))
        #expect(EvolutionAPI.ChildKey.id("1") != .name("1"))
        #expect(Set<EvolutionAPI.ChildKey>([.id("1"), .id("1"), .name("1")]).count == 2)
    }
}
