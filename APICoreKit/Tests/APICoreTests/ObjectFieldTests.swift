@_spi(Generated) import APICore
import StarWarsOperations
import Testing

/// `DataDict`'s object fields: selection sets are no `GraphQLOutputValue`s, so each shape is read
/// and written through a subscript of its own or, for any other shape, through `_ObjectValue`.
@Suite("Object fields")
struct ObjectFieldTests {
    /// Any selection set with a `name` does: a hero's friend.
    typealias Pet = HeroNameQuery.Data.Hero.Friend

    static func pet(_ name: String) -> Pet { Pet(_dataDict: DataDict(_data: ["name": .string(name)])) }
    static func json(_ name: String) -> JSONValue { .object(["name": .string(name)]) }

    @Test("the six common shapes read what the JSON holds, null as nil, and write back the same JSON")
    func commonShapes() {
        let source: JSONObject = [
            "one": Self.json("a"), "none": .null, "list": [Self.json("b"), Self.json("c")],
            "holes": [Self.json("d"), .null], "nullList": .null, "nullHoles": [.null, Self.json("e")],
        ]
        var data = DataDict(_data: source)
        #expect((data["one"] as Pet).name == "a")
        #expect((data["none"] as Pet?) == nil)
        #expect((data["list"] as [Pet]).map(\.name) == ["b", "c"])
        #expect((data["holes"] as [Pet?]).map { $0?.name } == ["d", nil])
        #expect((data["nullList"] as [Pet]?) == nil)
        #expect((data["nullHoles"] as [Pet?]?)?.map { $0?.name } == [nil, "e"])

        // Each value written back through its own subscript gives the JSON it was read from.
        data["one"] = data["one"] as Pet
        data["none"] = data["none"] as Pet?
        data["list"] = data["list"] as [Pet]
        data["holes"] = data["holes"] as [Pet?]
        data["nullList"] = data["nullList"] as [Pet]?
        data["nullHoles"] = data["nullHoles"] as [Pet?]?
        #expect(data._data == source)

        data["one"] = Self.pet("z")
        data["none"] = Self.pet("y") as Pet?
        data["list"] = [Pet]()
        #expect(data._data["one"] == Self.json("z"))
        #expect(data._data["none"] == Self.json("y"))
        #expect(data._data["list"] == [])
    }

    @Test("any other shape goes through its boxes: lists of lists, and Result for @catch(to: RESULT)")
    func boxedShapes() {
        var data = DataDict(_data: [
            "grid": [[Self.json("a"), .null], []],
            "kept": [Self.json("b")],
        ])
        // A caught error stands in the field's place, as the engine writes it.
        data["caught", as: Result<_ObjectValue<Pet>, GraphQLError>.self] = .failure(GraphQLError(message: "gone"))
        let grid = data["grid", as: [[_ObjectValue<Pet>?]].self]
        #expect(grid.map { $0.map { $0?.name } } == [["a", nil], []])

        let caught = data["caught", as: Result<_ObjectValue<Pet>, GraphQLError>.self]
        let kept = data["kept", as: Result<[_ObjectValue<Pet>], GraphQLError>.self]
        #expect(throws: GraphQLError.self) { try caught.get() }
        if case .failure(let error) = caught { #expect(error.message == "gone") }
        #expect((try? kept.get())?.map(\.name) == ["b"])

        data["grid", as: [[_ObjectValue<Pet>?]].self] = [[nil], [Self.pet("c")]]
        #expect(data._data["grid"] == [[.null], [Self.json("c")]])
        data["kept", as: Result<[_ObjectValue<Pet>], GraphQLError>.self] = .success([Self.pet("d")])
        #expect(data._data["kept"] == [Self.json("d")])
        #expect([[_ObjectValue<Pet>?]](_boxing: grid)._outputJSON == [[Self.json("a"), .null], []])
    }

    @Test("a box reads only an object, and says what it found")
    func boxErrors() {
        #expect(throws: GraphQLDecodingError.self) { try _ObjectValue<Pet>(_fieldValue: "text") }
        #expect(throws: GraphQLDecodingError.self) { try [_ObjectValue<Pet>](_fieldValue: [.object([:]), 1]) }
        #expect((try? _ObjectValue<Pet>(_fieldValue: Self.json("a")))?.value.name == "a")
    }
}
