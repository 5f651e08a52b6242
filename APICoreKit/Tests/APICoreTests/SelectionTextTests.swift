@_spi(Generated) import APICore
import Testing

/// `Selection.parse`: the generator's metadata text gives the same selections as the Swift
/// expressions it replaced, entry kind by entry kind.
@Suite("Selection metadata text")
struct SelectionTextTests {
    @Test("fields with types, aliases, arguments (literals, variables inside lists and objects), pages, keys and catches")
    func fields() {
        let parsed = Selection.parse(
            #"""
            [["__typename","0!"],["friends","[1]!",{"alias":"pals","args":{"first":10,"after":{"$":"cursor"},"where":{"ids":["1",{"$":"id"}],"kind":"DROID"},"flags":[true,null],"ratio":1.5}}],
             ["hero","1",{"keys":["id"],"catch":"null"}],["items","[[0!]]",{"page":["after","first"],"catch":"result"}]]
            """#, String.self, ConditionalHero.Hero.self)
        let written: [Selection] = [
            .field(Field("__typename", .nonNull(.scalar(String.self)))),
            .field(Field(
                "friends", alias: "pals", .nonNull(.list(.object(ConditionalHero.Hero.self))),
                arguments: [
                    "first": .value(10), "after": .variable("cursor"),
                    "where": .object(["ids": .list([.value("1"), .variable("id")]), "kind": .value("DROID")]),
                    "flags": .value([true, nil]), "ratio": .value(1.5),
                ])),
            .field(Field("hero", .object(ConditionalHero.Hero.self), keyArgs: ["id"], catchTo: .null)),
            .field(Field("items", .list(.list(.nonNull(.scalar(String.self)))), pagination: ["after", "first"], catchTo: .result)),
        ]
        #expect(parsed.map(describe) == written.map(describe))
    }

    @Test("type cases, fragments, conditions (include and skip, several) and deferred fragments")
    func structure() {
        let parsed = Selection.parse(
            #"[{"on":0},{"spread":1},{"if":["a","!b"],"then":[["name","2!"]]},{"defer":"d1","label":"late","when":"v","then":[{"on":0}]},{"defer":"d2","then":[{"spread":1}]}]"#,
            ConditionalHero.Hero.AsHuman.self, HeroDetails.self, String.self)
        let written: [Selection] = [
            .inlineFragment(ConditionalHero.Hero.AsHuman.self),
            .fragment(HeroDetails.self),
            .conditional([.include(if: "a"), .skip(if: "b")], [.field(Field("name", .nonNull(.scalar(String.self))))]),
            .deferred(Deferral("d1", label: "late", if: .include(if: "v")), [.inlineFragment(ConditionalHero.Hero.AsHuman.self)]),
            .deferred(Deferral("d2"), [.fragment(HeroDetails.self)]),
        ]
        #expect(parsed.map(describe) == written.map(describe))
    }

    @Test("a table reads each selection set as parse reads it alone, the types numbered once for all")
    func table() {
        let table = Selection.parseTable(
            #"[[["hero","0"]],[["__typename","1!"],{"on":2},{"spread":3}],[]]"#,
            ConditionalHero.Hero.self, String.self, ConditionalHero.Hero.AsHuman.self, HeroDetails.self)
        let alone = [
            Selection.parse(#"[["hero","0"]]"#, ConditionalHero.Hero.self),
            Selection.parse(#"[["__typename","0!"],{"on":1},{"spread":2}]"#, String.self, ConditionalHero.Hero.AsHuman.self, HeroDetails.self),
            [],
        ]
        for (index, selections) in alone.enumerated() {
            #expect(table[index].map(describe) == selections.map(describe))
        }
    }

    @Test("selections read from text validate data as the written ones do")
    func validates() throws {
        struct Parsed: RootSelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = ParentType.object("Query")
            static let __selections = Selection.parse(#"[["hero","0"]]"#, ConditionalHero.Hero.self)
            var hero: ConditionalHero.Hero? { __data["hero"] }
        }
        let json: JSONObject = ["hero": ["__typename": "Human", "name": "Luke", "appearsIn": [], "height": 1.72]]
        let parsed = try Parsed(validating: json, variables: ["withName": true])
        let written = try ConditionalHero(validating: json, variables: ["withName": true])
        #expect(parsed.hero?.asHuman?.height == 1.72 && parsed.jsonObject == written.jsonObject)
        #expect(throws: GraphQLDecodingError.self) { try Parsed(validating: ["hero": ["__typename": "Human"]], variables: ["withName": true]) }
    }
}

/// A selection as text, deep, for comparing two lists of selections.
private func describe(_ selection: Selection) -> String {
    switch selection {
    case .field(let field):
        let arguments = field.arguments.sorted { $0.key < $1.key }.map { "\($0.key)=\(describe($0.value))" }
        return "field(\(field.name) alias=\(field.alias ?? "-") \(describe(field.type)) args=\(arguments) page=\(field.pagination?.sorted() ?? []) "
            + "keys=\(field.keyArgs ?? []) catch=\(String(describing: field.catchTo)))"
    case .inlineFragment(let type): return "on(\(type))"
    case .fragment(let type): return "spread(\(type))"
    case .conditional(let conditions, let inner):
        return "if(\(conditions.map { "\($0.inverted ? "!" : "")\($0.variable)" }) \(inner.map(describe)))"
    case .deferred(let deferral, let inner):
        return "defer(\(deferral.id) \(deferral.label ?? "-") \(deferral.condition?.variable ?? "-") \(inner.map(describe)))"
    }
}

private func describe(_ argument: ArgumentValue) -> String {
    switch argument {
    case .value(let json): return "value(\(json))"
    case .variable(let name): return "$\(name)"
    case .list(let items): return "list(\(items.map(describe)))"
    case .object(let fields): return "object(\(fields.sorted { $0.key < $1.key }.map { "\($0.key): \(describe($0.value))" }))"
    }
}

private func describe(_ type: OutputType) -> String {
    switch type {
    case .scalar(let scalar): return "\(scalar)"
    case .object(let selectionSet): return "\(selectionSet)"
    case .nonNull(let inner): return describe(inner) + "!"
    case .list(let inner): return "[" + describe(inner) + "]"
    }
}
