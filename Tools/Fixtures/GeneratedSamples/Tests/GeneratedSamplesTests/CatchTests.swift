import APICore
import APICoreTesting
import Evolution
import Testing

/// `@catch(to: RESULT | NULL | THROW)` on fields and operations (Evolution's CaughtKids and
/// CaughtByDefault), through a client's fetch: caught errors give data, uncaught ones fail.
@Suite("@catch")
struct CatchTests {
    /// A server answer for CaughtKids: ChildA's fields as given, and `errors`.
    private func answer(child: JSONValue, children: JSONValue = [["__typename": "ChildA", "id": "2"]], errors: [JSONValue]) -> JSONValue {
        ["data": ["child": child, "children": children], "errors": .array(errors)]
    }

    private func error(_ message: String, at path: [JSONValue]) -> JSONValue {
        ["message": .string(message), "path": .array(path), "extensions": ["code": "BROKEN"]]
    }

    private func fetch<Query: GraphQLQuery>(_ query: Query, answer: JSONValue) async throws(APIError) -> Response<Query.Data> {
        let client = MockAPIClient()
        client.stub(operation: Query.operationName, response: answer)
        return try await client.fetch(query, cachePolicy: .networkOnly)
    }

    @Test("RESULT: the field holds the server's error, the other fields their values, and the metadata lists it")
    func result() async throws {
        let child: JSONValue = ["__typename": "ChildA", "id": "1", "name": "Al", "nickname": nil, "pets": ["cat"], "toy": "kite"]
        let response = try await fetch(CaughtKidsQuery(), answer: answer(child: child, errors: [error("no nickname", at: ["child", "nickname"])]))
        let kid = try #require(response.value.child?.asChildA)
        #expect(kid.name == "Al" && kid.toy == "kite" && kid.pets == ["cat"])
        guard case .failure(let caught) = kid.nickname else {
            Issue.record("the nickname's error was not caught in the field: \(kid.nickname)")
            return
        }
        #expect(caught.message == "no nickname" && caught.code == "BROKEN" && caught.path == ["child", "nickname"])
        #expect(response.metadata.caughtErrors.map(\.message) == ["no nickname"])
        // With a value, the same field is a success.
        let whole = try await fetch(CaughtKidsQuery(), answer: ["data": ["child": child.replacing("nickname", with: "Ali"), "children": []]])
        #expect(try whole.value.child?.asChildA?.nickname.get() == "Ali")
        #expect(whole.metadata.caughtErrors.isEmpty)
    }

    @Test("NULL: a failed field is nil, and so is an item's error below a list caught to NULL")
    func null() async throws {
        let child: JSONValue = ["__typename": "ChildA", "id": "1", "name": "Al", "nickname": "Ali", "pets": nil, "toy": "kite"]
        let response = try await fetch(CaughtKidsQuery(), answer: answer(child: child, errors: [error("pets down", at: ["child", "pets", 1])]))
        #expect(response.value.child?.asChildA?.pets == nil)
        #expect(response.value.child?.asChildA?.toy == "kite")
    }

    @Test("THROW goes up: toy's error nulls `child`, the nearest field that catches (to NULL); a list caught to RESULT holds its error")
    func propagation() async throws {
        let answer: JSONValue = [
            "data": ["child": nil, "children": nil],
            "errors": [error("no toy", at: ["child", "toy"]), error("no children", at: ["children"])],
        ]
        let response = try await fetch(CaughtKidsQuery(), answer: answer)
        #expect(response.value.child == nil)
        guard case .failure(let caught) = response.value.children else {
            Issue.record("children's error was not caught: \(response.value.children)")
            return
        }
        #expect(caught.message == "no children")
        #expect(Set(response.metadata.caughtErrors.map(\.message)) == ["no toy", "no children"])
    }

    @Test("an error no field catches fails the fetch as before, with the partial data; so does one without a path")
    func uncaught() async {
        for errors in [[error("top", at: [])], [["message": "no path"]] as [JSONValue]] {
            let child: JSONValue = ["__typename": "ChildA", "id": "1", "name": "Al", "nickname": "A", "pets": [], "toy": "t"]
            await #expect(throws: APIError.self) { try await fetch(CaughtKidsQuery(), answer: answer(child: child, errors: errors)) }
        }
        // Nicknames has no @catch: a null at its @semanticNonNull field with an error fails it.
        let nicknames: JSONValue = [
            "data": ["child": ["__typename": "ChildA", "id": "1", "nickname": nil, "pets": []]],
            "errors": [error("no nickname", at: ["child", "nickname"])],
        ]
        await #expect(throws: APIError.self) { try await fetch(NicknamesQuery(), answer: nicknames) }
    }

    @Test("an operation's @catch(to: NULL) is its fields' default: the @semanticNonNull nickname is optional and nil on error")
    func operationDefault() async throws {
        let answer: JSONValue = [
            "data": ["child": ["__typename": "ChildA", "id": "1", "nickname": nil]],
            "errors": [error("no nickname", at: ["child", "nickname"])],
        ]
        let response = try await fetch(CaughtByDefaultQuery(), answer: answer)
        let nickname: String?? = response.value.child?.asChildA?.nickname
        #expect(nickname == .some(nil))
        #expect(response.metadata.caughtErrors.count == 1)
    }

    @Test("initializers take a Result for a RESULT field and build the same data a caught answer gives")
    func initializers() throws {
        let failure = GraphQLError(message: "no nickname", path: ["child", "nickname"])
        let built = CaughtKidsQuery.Data.Child.AsChildA(id: "1", name: "Al", nickname: .failure(failure), pets: nil, toy: "kite")
        guard case .failure(let caught) = built.nickname else {
            Issue.record("the built failure did not read back")
            return
        }
        #expect(caught == failure)
        #expect(CaughtKidsQuery.Data.Child.AsChildA(id: "1", name: "Al", nickname: .success("Ali"), pets: [], toy: "t").nickname == .success("Ali"))
    }
}

extension JSONValue {
    /// The object with one field replaced.
    fileprivate func replacing(_ key: String, with value: JSONValue) -> JSONValue {
        guard var object = objectValue else { return self }
        object[key] = value
        return .object(object)
    }
}
