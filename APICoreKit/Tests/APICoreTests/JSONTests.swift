import APICore
import Foundation
import Testing

@Suite("JSON parser and serializer")
struct JSONTests {
    @Test("every kind of value")
    func values() throws {
        let value = try JSONParser.parse(#" {"a": [1, -2, 3.5, 1e3, true, false, null], "b": {"c": "d"}, "e": ""} "#)
        #expect(value == ["a": [1, -2, 3.5, 1000.0, true, false, nil], "b": ["c": "d"], "e": ""])
    }

    @Test("integers stay integers; too large for Int becomes a double")
    func numbers() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .int(Int.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .int(Int.min))
        #expect(try JSONParser.parse("9223372036854775808") == .double(9223372036854775808))
        #expect(try JSONParser.parse("0") == .int(0))
        #expect(try JSONParser.parse("-0.5e-2") == .double(-0.005))
    }

    @Test("escapes, unicode and surrogate pairs")
    func strings() throws {
        #expect(try JSONParser.parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\n\té😀"))
        #expect(try JSONParser.parse("\"héllo wörld\"") == .string("héllo wörld"))
    }

    @Test("errors say what and where", arguments: [
        ("", "unexpected end of input", 1, 1),
        ("{\"a\": 1,\n  \"b\" 2}", "expected ':' after the key \"b\"", 2, 7),
        ("[1, 2", "unexpected end of input in an array", 1, 6),
        ("<html>", "unexpected character '<'", 1, 1),
        ("01", "invalid number: leading zero", 1, 1),
        ("\"abc", "unterminated string", 1, 1),
        ("{} x", "unexpected data after the JSON value", 1, 4),
        ("tru", "unexpected end of input", 1, 1),
        ("\"\\ud83d\"", "unpaired UTF-16 surrogate in \\u escape", 1, 8),
        ("\"a\u{01}\"", "unescaped control character in a string", 1, 3),
    ])
    func errors(input: String, message: String, line: Int, column: Int) {
        do {
            let value = try JSONParser.parse(input)
            Issue.record("parsed \(value)")
        } catch {
            #expect(error.message == message)
            #expect(error.line == line)
            #expect(error.column == column)
        }
    }

    @Test("nesting deeper than the limit is an error, not a crash")
    func depth() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(throws: Never.self) { try JSONParser.parse(fine) }
    }

    @Test("serialization sorts keys, escapes, and round-trips")
    func serialize() throws {
        let value: JSONValue = ["b": [1, 2.5, "x\"y\n\u{01}"], "a": nil, "c": ["z": true]]
        let text = JSONSerializer.string(value)
        #expect(text == #"{"a":null,"b":[1,2.5,"x\"y\n\u0001"],"c":{"z":true}}"#)
        #expect(try JSONParser.parse(text) == value)
        #expect(JSONSerializer.string(.double(3)) == "3.0")
        #expect(try JSONParser.parse(JSONSerializer.string(.double(3))) == .double(3))
    }

    @Test("agrees with JSONSerialization on a real document")
    func agreesWithFoundation() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../../shared/peers/apollo-ios-dev/Sources/StarWarsAPI/starwars-graphql/schema.json")
        let data = try Data(contentsOf: url.standardizedFileURL)
        let ours = try JSONParser.parse(data)
        let theirs = try JSONSerialization.jsonObject(with: JSONSerializer.data(ours)) as? NSDictionary
        let original = try JSONSerialization.jsonObject(with: data) as? NSDictionary
        #expect(theirs == original)
    }
}
