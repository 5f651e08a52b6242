@_spi(Tools) import APICore
import Foundation

/// Parse → serialize → parse: whatever the parser accepts, it reads back from its own output as
/// the same value, digit for digit, and the serialized text is stable. Text and bytes agree.
/// The tape agrees with the recursive reader it replaced (``ReferenceJSONReader``): the same value,
/// or the same error at the same offset; and walking the tape gives what the tree holds.
enum JSONRoundTrip {
    static func run(_ input: Data) {
        let reference = ReferenceJSONReader.parse(input)
        let first: JSONValue
        do {
            let tape = try JSONTape(reading: input)
            first = JSONValue(tape)
            check(reference == .success(first), "the tape read \(first), the reference reader \(reference)")
            checkWalk(tape.root, first)
        } catch {
            check(!error.description.isEmpty, "a parse error without a description")
            check(reference == .failure(.init(message: error.message, offset: error.offset)),
                  "the tape failed with \(error) (offset \(error.offset)), the reference reader gave \(reference)")
            if let text = String(validating: input, as: UTF8.self) {
                check((try? JSONParser.parse(text)) == nil, "text parses where its bytes do not: \(text.debugDescription)")
            }
            return
        }
        let serialized = JSONSerializer.data(first)
        let second: JSONValue
        do {
            second = try JSONParser.parse(serialized)
        } catch {
            fatalError("fuzz invariant broken: the serializer wrote JSON its parser rejects (\(error)): \(String(decoding: serialized, as: UTF8.self))")
        }
        check(first == second, "a value changed in a round trip: \(first) became \(second)")
        check(JSONSerializer.data(second) == serialized, "serializing the same value twice gave two texts")
        if let text = String(validating: input, as: UTF8.self) {
            check((try? JSONParser.parse(text)) == first, "text and bytes parse to different values")
        }
    }

    /// The tape's own walk (kind, count, members, elements, member lookup) against the tree.
    static func checkWalk(_ value: JSONTape.Value, _ tree: JSONValue) {
        check(value.jsonValue == tree, "a tape value and its tree differ")
        switch tree {
        case .array(let array):
            check(value.kind == .array && value.count == array.count, "an array's kind or count on the tape")
            for (element, expected) in zip(value.elements, array) { checkWalk(element, expected) }
        case .object(let object):
            check(value.kind == .object, "an object's kind on the tape")
            let members = value.members
            check(Set(members.map(\.key)) == Set(object.keys), "an object's keys on the tape")
            for (key, expected) in object {
                guard let member = value[key] else { return check(false, "the tape has no member \(key)") }
                checkWalk(member, expected)
            }
        case .string(let string):
            check(value.stringValue == string, "a string on the tape")
        default:
            check(value.count == 0 && value.stringValue == nil, "a scalar with members on the tape")
        }
    }

    static var seeds: [Data] {
        [
            #"{"data":{"hero":{"__typename":"Droid","name":"R2-D2","friends":[{"name":"Luke"},null]}}}"#,
            #"[1, -0, 0.5, 1e400, 1e-400, 123456789012345678901234567890, -9223372036854775808, 9223372036854775808, 1.7976931348623157e308]"#,
            #"{"a":"\u00e9\ud83d\ude00\n\t\"\\\/","b":[true,false,null],"c":{}}"#,
            #"  [[[[[[]]]]]]  "#,
            #""caf\u00e9 ☕""#,
        ].map { Data($0.utf8) }
    }
}
