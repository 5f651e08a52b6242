@_spi(Tools) @_spi(Generated) @testable import APICore
import Foundation
import StarWarsOperations
import Testing

@Suite("JSON parser and serializer")
struct JSONTests {
    @Test("every kind of value")
    func values() throws {
        let value = try JSONParser.parse(#" {"a": [1, -2, 3.5, 1e3, true, false, null], "b": {"c": "d"}, "e": ""} "#)
        #expect(value == ["a": [1, -2, 3.5, 1000.0, true, false, nil], "b": ["c": "d"], "e": ""])
    }

    @Test("integers stay integers; a number no Int or Double holds exactly keeps its text")
    func numbers() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .int(Int.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .int(Int.min))
        #expect(try JSONParser.parse("0") == .int(0))
        #expect(try JSONParser.parse("-0.5e-2") == .double(-0.005))
        #expect(try JSONParser.parse("0.30000000000000004") == .double(0.30000000000000004))
        #expect(try JSONParser.parse("1.7976931348623157e308") == .double(.greatestFiniteMagnitude))
        // Before: a rounded double, infinity (written back as null), 0, and 0.
        for literal in ["9223372036854775808", "123456789012345678901234567890", "1e400", "-1e400", "1e-400", "-0",
                        "9007199254740993.0", "0.1000000000000000055511151231257827"] {
            #expect(try JSONParser.parse(literal) == .number(try #require(JSONNumber(literal))), "\(literal)")
            #expect(JSONSerializer.string(try JSONParser.parse(literal)) == literal)
            #expect(JSONSerializer.string(try JSONParser.parse("[\(literal)]")) == "[\(literal)]")
        }
        #expect(JSONSerializer.string(.double(-0.0)) == "-0.0")
        #expect(JSONNumber("12 ") == nil)
        #expect(JSONNumber("1e") == nil)
        #expect(JSONNumber("abc") == nil)
        #expect(JSONNumber("-12.5e3")?.text == "-12.5e3")
    }

    @Test("Int and Float fields reject numbers out of their range, naming them; nothing is rounded or infinite")
    func numberFields() throws {
        #expect(throws: GraphQLDecodingError(message: "expected an integer within Int's range, found 123456789012345678901234567890")) {
            try Int(_fieldValue: JSONParser.parse("123456789012345678901234567890"))
        }
        #expect(throws: GraphQLDecodingError(message: "expected an integer within Int's range, found 1e+20")) {
            try Int(_fieldValue: JSONParser.parse("1e20"))
        }
        #expect(try Int(_fieldValue: JSONParser.parse("-0")) == 0)
        #expect(throws: GraphQLDecodingError(message: "the number 1e400 is out of range for Float")) {
            try Double(_fieldValue: JSONParser.parse("1e400"))
        }
        #expect(throws: GraphQLDecodingError(message: "the number 1e-400 is out of range for Float")) {
            try Double(_fieldValue: JSONParser.parse("1e-400"))
        }
        #expect(try Double(_fieldValue: JSONParser.parse("9007199254740993.0")) == 9007199254740992)
        // A custom scalar that takes any JSON gets every digit back.
        let big = try JSONParser.parse("123456789012345678901234567890")
        #expect(try JSONValue(_fieldValue: big)._inputJSON == big)
    }

    @Test("random number literals: parse, serialize and parse again give the same value, digit for digit")
    func numberRoundTrip() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        for _ in 0..<5_000 {
            var literal = Bool.random(using: &generator) ? "-" : ""
            let integerDigits = Int.random(in: 1...25, using: &generator)
            literal += String(Int.random(in: 1...9, using: &generator))
            for _ in 1..<integerDigits { literal += String(Int.random(in: 0...9, using: &generator)) }
            if Bool.random(using: &generator) {
                literal += "."
                for _ in 0..<Int.random(in: 1...20, using: &generator) { literal += String(Int.random(in: 0...9, using: &generator)) }
            }
            if Bool.random(using: &generator) { literal += "e\(Int.random(in: -420...420, using: &generator))" }
            let value = try JSONParser.parse(literal)
            let text = JSONSerializer.string(value)
            #expect(try JSONParser.parse(text) == value, "\(literal)")
            #expect(NumberTextCheck.sameValue(literal, text), "\(literal) was written back as \(text)")
        }
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

    @Test("the tape: kinds, counts, members in the order written, a repeated key's last value, escaped keys")
    func tapeWalk() throws {
        let tape = try JSONTape(reading: #" {"b": [1, 2.5, 1e400, "x\ny"], "a\u00e9": null, "b": {"c": true, "d": false}, "e": []} "#)
        let root = tape.root
        #expect(root.kind == .object)
        #expect(root.count == 4)
        #expect(root.members.map(\.key) == ["b", "aé", "b", "e"])
        let first = root.members[0].value
        #expect(first.kind == .array && first.count == 4)
        #expect(first.elements.map(\.kind) == [.int, .double, .number, .escapedString])
        #expect(first.elements[3].stringValue == "x\ny")
        #expect(root["aé"]?.kind == .null)
        #expect(root["b"]?.jsonValue == ["c": true, "d": false], "a repeated key reads as its last value, as the tree does")
        #expect(root["e"]?.count == 0)
        #expect(root["missing"] == nil)
        #expect(first["b"] == nil, "an array has no members")
        #expect(JSONValue(tape) == (try JSONParser.parse(#"{"b": {"c": true, "d": false}, "aé": null, "e": []}"#)))
        #expect(throws: Never.self) { try JSONTape.validate(Data("[1, {}]".utf8)) }
        #expect(throws: JSONParseError.self) { try JSONTape.validate(Data("[1, {]".utf8)) }
    }

    @Test("unescaped text: room for the rest of the document at the first escape, and a tape keeps little more than its escapes took")
    func unescapedBuffer() throws {
        let filler = String(repeating: "x", count: 1 << 20)
        // One escape, then a megabyte of plain text: the side buffer shrinks to its few bytes.
        let few = try JSONTape(reading: #"["a\nb", ""# + filler + #""]"#)
        #expect(few.root.elements[0].stringValue == "a\nb")
        #expect(few.storage.unescaped.count == 3)
        #expect(Self.allocatedBytes(few.storage.unescaped.baseAddress).map { $0 < 8192 } ?? true)
        // Escapes throughout: every string reads back, and the buffer holds them all.
        let chunk = #""line\r\nwith \\ and \u00e9 and \ud83d\ude80 ""#
        let many = try JSONTape(reading: "[" + Array(repeating: chunk, count: 5_000).joined(separator: ",") + "]")
        let expected = "line\r\nwith \\ and é and 🚀 "
        #expect(many.root.elements.allSatisfy { $0.stringValue == expected })
        #expect(many.storage.unescaped.count == 5_000 * expected.utf8.count)
        #expect(Self.allocatedBytes(many.storage.unescaped.baseAddress).map { $0 <= 4 * many.storage.unescaped.count + 8192 + 4096 } ?? true)
    }

    @Test("a tape's buffers are lent from a few kept blocks and given back when it goes; a large or a much larger block is not kept or lent")
    func keptBlocks() throws {
        let text = Data(("[" + Array(repeating: #""a\nb""#, count: 20_000).joined(separator: ",") + "]").utf8)
        var seen: Set<UnsafeMutableRawPointer> = []
        for _ in 0..<20 {
            let tape = try JSONTape(reading: text)
            #expect(tape.root.count == 20_000)
            seen.insert(UnsafeMutableRawPointer(mutating: tape.storage.words.baseAddress!))
        }
        // Other suites read tapes meanwhile, so the same block need not come back each time; but
        // twenty answers in a row did not take twenty blocks.
        #expect(seen.count < 20)
        #expect(TapeBlocks.idle.count <= TapeBlocks.kept)
        #expect(TapeBlocks.idle.allSatisfy { $0.bytes <= TapeBlocks.largest })
        // A small answer is not lent a block over four times what it needs.
        let small = try JSONTape(reading: "[1]")
        #expect((Self.allocatedBytes(UnsafePointer(OpaquePointer(small.storage.words.baseAddress))) ?? 0) < 65536 + 4096)
    }

    /// What the allocator holds for the block at `pointer` (glibc), or `nil`.
    static func allocatedBytes(_ pointer: UnsafePointer<UInt8>?) -> Int? {
        #if os(Linux)
        return pointer.map { usableSize(UnsafeMutableRawPointer(mutating: $0)) }
        #else
        return nil
        #endif
    }

    @Test("random documents with random spacing read back as themselves; every cut of them is an error")
    func tapeRandomDocuments() throws {
        var generator = SeededGenerator(seed: 0x7A9E)
        let strings = ["", "a", "é", "日本語", "🚀", "quote \" and \\ back", "line\nfeed", "\u{01}control", "sixteen bytes!!!", "long " + String(repeating: "text ", count: 20)]
        func randomValue(depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 4 ? 6 : 8), using: &generator) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &generator))
            case 2: return .int(Int.random(in: Int.min...Int.max, using: &generator) >> Int.random(in: 0...63, using: &generator))
            case 3: return .double(Double(Int.random(in: -1_000_000...1_000_000, using: &generator)) / [1, 8, 1000, 1e7][Int.random(in: 0..<4, using: &generator)])
            case 4, 5: return .string(strings.randomElement(using: &generator)!)
            case 6: return .array((0..<Int.random(in: 0...5, using: &generator)).map { _ in randomValue(depth: depth + 1) })
            default:
                return .object(JSONObject((0..<Int.random(in: 0...5, using: &generator)).map { _ in
                    (strings.randomElement(using: &generator)!, randomValue(depth: depth + 1))
                }, uniquingKeysWith: { _, last in last }))
            }
        }
        for round in 0..<400 {
            let value = randomValue(depth: 0)
            var text = ""
            // The compact text with random whitespace before structural characters and strings.
            var inString = false
            var escaped = false
            for character in JSONSerializer.string(value) {
                if !inString, "{}[],:\"".contains(character), Int.random(in: 0..<3, using: &generator) == 0 { text += [" ", "\n", "\t", "\r\n"].randomElement(using: &generator)! }
                text.append(character)
                if inString {
                    if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                } else if character == "\"" {
                    inString = true
                }
            }
            let tape = try JSONTape(reading: text)
            #expect(JSONValue(tape) == value, "round \(round): \(text)")
            // Every proper prefix that ends inside the value is an error pointing inside the text.
            let bytes = Array(text.utf8)
            let significant = bytes.lastIndex { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }!
            for cut in stride(from: 0, to: significant + 1, by: max(1, significant / 12)) {
                let prefix = Data(bytes[..<cut])
                do {
                    let partial = try JSONTape(reading: prefix)
                    // A number cut short is still a number: "12" of "123".
                    #expect(partial.root.kind == .int || partial.root.kind == .double || partial.root.kind == .number, "round \(round): the cut at \(cut) read as JSON: \(text)")
                } catch {
                    #expect(error.offset <= cut)
                }
            }
        }
    }

    @Test("decimal literals read on the tape's fast path equal Double's own reading")
    func tapeDecimalFastPath() throws {
        var generator = SeededGenerator(seed: 0xD0B1E)
        for _ in 0..<5_000 {
            let digits = String(Int.random(in: 1...999_999_999_999_999, using: &generator))
            let point = Int.random(in: 0...digits.count, using: &generator)
            var literal = (Bool.random(using: &generator) ? "-" : "") + (point == 0 ? "0" : String(digits.prefix(point)))
            literal += "." + (point == digits.count ? "0" : String(digits.dropFirst(point)))
            if Bool.random(using: &generator) { literal += "e\(Int.random(in: -25...25, using: &generator))" }
            let expected = try #require(Double(literal))
            #expect(try JSONParser.parse(literal) == .double(expected), "\(literal)")
        }
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
            .appendingPathComponent("../../../Fixtures/ThirdParty/apollo-ios-dev/Sources/StarWarsAPI/starwars-graphql/schema.json")
        let data = try Data(contentsOf: url.standardizedFileURL)
        let ours = try JSONParser.parse(data)
        let theirs = try JSONSerialization.jsonObject(with: JSONSerializer.data(ours)) as? NSDictionary
        let original = try JSONSerialization.jsonObject(with: data) as? NSDictionary
        #expect(theirs == original)
    }
}

/// Two number texts written differently but of the same value (`1e3` and `1000.0`), compared
/// as exact decimals: digits without leading or trailing zeros, and the place of the first.
enum NumberTextCheck {
    static func sameValue(_ a: String, _ b: String) -> Bool { canonical(a) == canonical(b) }

    static func canonical(_ text: String) -> String {
        let lower = text.lowercased()
        let parts = lower.split(separator: "e", maxSplits: 1)
        let exponent = parts.count > 1 ? Int(parts[1].replacingOccurrences(of: "+", with: "")) ?? 0 : 0
        var mantissa = String(parts[0])
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa.removeFirst() }
        let pieces = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        var digits = Array(pieces[0]) + (pieces.count > 1 ? Array(pieces[1]) : [])
        var place = pieces[0].count + exponent
        while digits.first == "0" { digits.removeFirst(); place -= 1 }
        while digits.last == "0" { digits.removeLast() }
        if digits.isEmpty { return "\(negative ? "-" : "")0" }
        return "\(negative ? "-" : "")\(String(digits))e\(place)"
    }
}

#if os(Linux)
/// glibc's `malloc_usable_size` (its header is not part of the Glibc module).
@_silgen_name("malloc_usable_size") private func usableSize(_ pointer: UnsafeMutableRawPointer?) -> Int
#endif
