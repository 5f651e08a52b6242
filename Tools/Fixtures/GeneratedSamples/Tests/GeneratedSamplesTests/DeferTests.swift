@_spi(Generated) import APICore
import Evolution
import Testing

/// Generated `@defer`: each deferred fragment is a `Deferred` property, pending until its data
/// is there, and never a field that claims to be present.
@Suite("Generated deferred fragments")
struct GeneratedDeferTests {
    let query = DeferredKidsQuery(deferToys: true, withName: true)

    @Test("the first part: every deferred fragment pending, the rest readable")
    func firstPart() throws {
        let data = try decode(query, """
            {"child": {"__typename": "ChildA", "id": "1"},
             "children": [{"__typename": "ChildA", "id": "2"}, {"__typename": "ChildB", "id": "3"}]}
            """)
        let child = try #require(data.child)
        #expect(child.id == "1")
        #expect(child.details == .pending)
        #expect(child.childName == .pending)
        #expect(data.children[0].toy == .pending)
        #expect(data.children[0].maybeName == .pending)
        // A type the schema never had: the fragment on ChildA does not apply.
        #expect(data.children[1].toy == nil)
    }

    @Test("with every part merged: fulfilled, inline, named, on list items, under @include")
    func merged() throws {
        let data = try decode(query, """
            {"child": {"__typename": "ChildA", "id": "1", "name": "Al"},
             "children": [{"__typename": "ChildA", "id": "2", "toy": "kite", "name": "Bo"}, {"__typename": "ChildB", "id": "3", "name": "Cy"}]}
            """)
        let child = try #require(data.child)
        #expect(child.details.value?.name == "Al")
        #expect(child.childName.value?.name == "Al")
        #expect(data.children[0].toy?.value?.toy == "kite")
        #expect(data.children.map { $0.maybeName?.value?.name } == ["Bo", "Cy"])
    }

    @Test("if: false is not deferred: the fields are required; @include(if: false) leaves the fragment out")
    func conditions() throws {
        let notDeferred = DeferredKidsQuery(deferToys: false, withName: false)
        #expect(throws: GraphQLDecodingError.self) {
            try decode(notDeferred, #"{"child": {"__typename": "ChildA", "id": "1"}, "children": []}"#)
        }
        let data = try decode(notDeferred, #"{"child": {"__typename": "ChildA", "id": "1", "name": "Al"}, "children": [{"__typename": "ChildA", "id": "2"}]}"#)
        #expect(data.child?.details.value?.name == "Al")
        #expect(data.children[0].maybeName == nil)
    }

    @Test("the document sent keeps @defer with its label and if:")
    func document() {
        #expect(DeferredKidsQuery.document.contains(#"... @defer(label: "details", if: $deferToys) { name }"#))
        #expect(DeferredKidsQuery.document.contains(#"...ChildName @defer(label: "childName")"#))
    }
}
