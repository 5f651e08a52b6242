import Foundation

/// A JSON document read into a flat tape: one pass over the bytes checks the whole text
/// (RFC 8259) and records every value as two 64-bit words, with no allocation per value.
///
/// The tape is what ``JSONParser`` builds ``JSONValue`` from, and what a reader that needs only
/// part of a document (its shape, one member, a count) walks without building a tree. Strings
/// and number literals stay in the text and are decoded when asked for; a string with escapes is
/// unescaped once, into a side buffer. Numbers are checked and classified while reading: an
/// integer that fits `Int`, a `Double` that holds the literal exactly, or the literal kept as text
/// (as ``JSONValue/number(_:)``).
///
/// Word layout: the first word of a value holds its kind in the top byte and a payload below;
/// the second holds the rest.
///
/// | kind | first word's payload | second word |
/// |---|---|---|
/// | `null`, `true`, `false` | — | — |
/// | integer | — | the `Int`'s bits |
/// | double | — | the `Double`'s bits |
/// | number literal | offset in the text | length |
/// | string | offset in the text (or in the unescaped buffer) | length |
/// | array, object | index of the word after the last member | member count |
///
/// An object's members are a key (a string) then a value, in the order written.
@_spi(Tools) public struct JSONTape: Sendable {
    /// The kind of a value on the tape.
    public enum Kind: UInt8, Sendable {
        /// `null`.
        case null = 1
        /// `true`.
        case `true`
        /// `false`.
        case `false`
        /// An integer that `Int` holds.
        case int
        /// A number that `Double` holds as written.
        case double
        /// Any other number, kept as its literal.
        case number
        /// A string without escapes, as written in the text.
        case string
        /// A string that had escapes, unescaped into the side buffer.
        case escapedString
        /// An array.
        case array
        /// An object.
        case object
    }

    /// The text read: strings and number literals point into it.
    let text: Data
    /// Two words per value.
    let words: [UInt64]
    /// Strings that had escapes, unescaped.
    let unescaped: [UInt8]

    /// Reads a complete JSON document; the error says what is wrong and where.
    public init(reading data: Data) throws(JSONParseError) {
        let result = data.withUnsafeBytes { raw -> Result<([UInt64], [UInt8]), JSONParseError> in
            var writer = TapeWriter(bytes: raw.bindMemory(to: UInt8.self))
            do throws(JSONParseError) {
                try writer.read()
                return .success((writer.words, writer.unescaped))
            } catch {
                return .failure(error)
            }
        }
        let (words, unescaped) = try result.get()
        self.text = data
        self.words = words
        self.unescaped = unescaped
    }

    /// Reads a complete JSON document given as text.
    public init(reading text: String) throws(JSONParseError) {
        try self.init(reading: Data(text.utf8))
    }

    /// Whether `data` is one complete JSON document; the error says where it is not.
    public static func validate(_ data: Data) throws(JSONParseError) {
        _ = try JSONTape(reading: data)
    }

    /// The document's value: index 0.
    public var root: Value { Value(tape: self, index: 0) }

    /// A value on the tape: its kind, its scalar, or its members, read without building a tree.
    public struct Value: Sendable {
        let tape: JSONTape
        let index: Int

        /// What kind of value this is.
        public var kind: Kind { Kind(rawValue: UInt8(tape.words[index] >> 56))! }

        /// The payload of the first word.
        var payload: Int { Int(tape.words[index] & JSONTape.payloadMask) }
        /// The second word.
        var second: UInt64 { tape.words[index + 1] }

        /// The index of the value after this one (after its last member, for a container).
        var end: Int {
            switch kind {
            case .array, .object: return payload
            default: return index + 2
            }
        }

        /// The number of elements of an array or members of an object; 0 for other values.
        public var count: Int {
            switch kind {
            case .array, .object: return Int(second)
            default: return 0
            }
        }

        /// The string, or `nil` when this is not a string.
        public var stringValue: String? {
            switch kind {
            case .string:
                return tape.text.withUnsafeBytes { String(decoding: UnsafeRawBufferPointer(rebasing: $0[payload..<payload + Int(second)]), as: UTF8.self) }
            case .escapedString:
                return tape.unescaped.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[payload..<payload + Int(second)]), as: UTF8.self) }
            default:
                return nil
            }
        }

        /// The elements of an array, in order; empty for other values.
        public var elements: [Value] {
            guard kind == .array else { return [] }
            var result: [Value] = []
            result.reserveCapacity(count)
            var cursor = index + 2
            while cursor < payload {
                let element = Value(tape: tape, index: cursor)
                result.append(element)
                cursor = element.end
            }
            return result
        }

        /// The members of an object, in the order written; empty for other values.
        public var members: [(key: String, value: Value)] {
            guard kind == .object else { return [] }
            var result: [(key: String, value: Value)] = []
            result.reserveCapacity(count)
            var cursor = index + 2
            while cursor < payload {
                let key = Value(tape: tape, index: cursor).stringValue ?? ""
                let value = Value(tape: tape, index: cursor + 2)
                result.append((key, value))
                cursor = value.end
            }
            return result
        }

        /// The member named `key` of an object (its last, when the key is written twice), or `nil`.
        /// Keys compare as the tree's do: a key that is not valid UTF-8 is read with U+FFFD in
        /// place of what is wrong.
        public subscript(key: String) -> Value? {
            guard kind == .object else { return nil }
            var found: Value?
            // Only a key written with invalid UTF-8 reads as one holding U+FFFD, so only then
            // are keys compared as strings rather than as bytes.
            let repaired = key.unicodeScalars.contains("\u{FFFD}")
            var bytes = key
            bytes.withUTF8 { wanted in
                var cursor = index + 2
                while cursor < payload {
                    let name = Value(tape: tape, index: cursor)
                    let value = Value(tape: tape, index: cursor + 2)
                    if name.hasBytes(wanted) || (repaired && name.stringValue == key) { found = value }
                    cursor = value.end
                }
            }
            return found
        }

        /// Whether this string's UTF-8 is `wanted`, compared without making a `String`.
        func hasBytes(_ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
            let length = Int(second)
            guard length == wanted.count else { return false }
            let compare = { (bytes: UnsafeRawBufferPointer) in
                length == 0 || memcmp(bytes.baseAddress! + payload, wanted.baseAddress!, length) == 0
            }
            return kind == .escapedString ? tape.unescaped.withUnsafeBytes(compare) : tape.text.withUnsafeBytes(compare)
        }

        /// The value as a ``JSONValue`` tree.
        public var jsonValue: JSONValue {
            tape.text.withUnsafeBytes { raw in
                let text = raw.bindMemory(to: UInt8.self)
                return tape.unescaped.withUnsafeBufferPointer { unescaped in
                    tape.words.withUnsafeBufferPointer { words in
                        var builder = TreeBuilder(words: words, text: text, unescaped: unescaped)
                        var cursor = index
                        return builder.value(at: &cursor)
                    }
                }
            }
        }
    }

    static let payloadMask: UInt64 = (1 << 56) - 1
}

extension JSONValue {
    /// The value a tape holds at its root.
    @_spi(Tools) public init(_ tape: JSONTape) {
        self = tape.root.jsonValue
    }
}

/// Builds ``JSONValue`` from a tape: containers sized once, strings decoded from the text.
private struct TreeBuilder {
    let words: UnsafeBufferPointer<UInt64>
    let text: UnsafeBufferPointer<UInt8>
    let unescaped: UnsafeBufferPointer<UInt8>

    @inline(__always)
    func string(_ first: UInt64, _ second: UInt64) -> String {
        let offset = Int(first & JSONTape.payloadMask)
        let base = first >> 56 == UInt64(JSONTape.Kind.string.rawValue) ? text.baseAddress! : unescaped.baseAddress!
        return String(decoding: UnsafeBufferPointer(start: base + offset, count: Int(second)), as: UTF8.self)
    }

    mutating func value(at cursor: inout Int) -> JSONValue {
        let first = words[cursor]
        let second = words[cursor + 1]
        cursor += 2
        switch JSONTape.Kind(rawValue: UInt8(first >> 56)) {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .int: return .int(Int(bitPattern: UInt(second)))
        case .double: return .double(Double(bitPattern: second))
        case .number:
            let offset = Int(first & JSONTape.payloadMask)
            return .number(JSONNumber(unchecked: String(decoding: UnsafeBufferPointer(rebasing: text[offset..<offset + Int(second)]), as: UTF8.self)))
        case .string, .escapedString: return .string(string(first, second))
        case .array:
            var array: [JSONValue] = []
            array.reserveCapacity(Int(second))
            for _ in 0..<Int(second) { array.append(value(at: &cursor)) }
            return .array(array)
        case .object:
            var object = JSONObject(minimumCapacity: Int(second))
            for _ in 0..<Int(second) {
                let key = string(words[cursor], words[cursor + 1])
                cursor += 2
                object[key] = value(at: &cursor)
            }
            return .object(object)
        case nil: preconditionFailure("JSONTape: a word of no kind at \(cursor - 2)")
        }
    }
}
