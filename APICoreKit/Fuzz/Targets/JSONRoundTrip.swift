@_spi(Tools) import APICore
import Foundation

/// Parse → serialize → parse: whatever the parser accepts, it reads back from its own output as
/// the same value, digit for digit, and the serialized text is stable. Text and bytes agree.
enum JSONRoundTrip {
    static func run(_ input: Data) {
        let first: JSONValue
        do {
            first = try JSONParser.parse(input)
        } catch {
            check(!error.description.isEmpty, "a parse error without a description")
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
