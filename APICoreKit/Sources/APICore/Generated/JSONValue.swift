import Foundation

/// A JSON value: what a server sends, what the cache stores, what variables encode to.
///
/// Integers and floating-point numbers stay apart (`.int(1)` is not `.double(1)`), so an `ID`
/// or an `Int` field round-trips exactly; a number that neither `Int` nor `Double` can hold
/// exactly (a 30-digit integer, `1e400`, `-0`) keeps its literal text, so custom scalars and
/// the cache give back every digit the server sent.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in `Int`.
    case int(Int)
    /// A number that a `Double` holds exactly as written (its shortest form reads back the same).
    case double(Double)
    /// Any other number, kept as its literal text.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object. Key order is not kept; serialization sorts keys.
    case object(JSONObject)
}

/// A JSON number literal kept as text because neither `Int` nor `Double` holds it exactly.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal, as written in the JSON text: `123456789012345678901234567890`, `1e400`, `-0`.
    public let text: String

    /// A number from its literal text; `nil` when `text` is not a JSON number.
    public init?(_ text: String) {
        guard let first = text.utf8.first, first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")),
            let last = text.utf8.last, last >= UInt8(ascii: "0") && last <= UInt8(ascii: "9"),
            let value = try? JSONParser.parse(text)
        else { return nil }
        switch value {
        case .int, .double, .number: self.text = text
        default: return nil
        }
    }

    /// A literal the parser has already checked.
    init(unchecked text: String) { self.text = text }

    /// The nearest `Double`, or `nil` when the number is out of `Double`'s range (it would be
    /// infinite, or zero although it is not).
    public var doubleValue: Double? {
        guard let double = Double(text), double.isFinite else { return nil }
        if double == 0 {
            let mantissa = text.utf8.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
            if mantissa.contains(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }) { return nil }
        }
        return double
    }

    /// The literal.
    public var description: String { text }
}

/// A JSON object: the shape of a GraphQL response's `data` and of every selection set in it.
public typealias JSONObject = [String: JSONValue]

extension JSONValue {
    /// The object's members, or `nil` when this is not an object.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The array's elements, or `nil` when this is not an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    /// The string, or `nil` when this is not a string.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The integer, or `nil` when this is not an integer.
    public var intValue: Int? {
        if case .int(let int) = self { return int }
        return nil
    }

    /// The number as a `Double` (integers included), or `nil` when this is not a number or is
    /// a number out of `Double`'s range.
    public var doubleValue: Double? {
        switch self {
        case .double(let double): return double
        case .int(let int): return Double(int)
        case .number(let number): return number.doubleValue
        default: return nil
        }
    }

    /// The Boolean, or `nil` when this is not a Boolean.
    public var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    /// Whether this is `null`.
    @inlinable public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key` when this is an object, else `nil`.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// A word for the kind of value, for error messages: "a string", "an object", ...
    @_spi(Engine) public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a Boolean"
        case .int, .double, .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `nil` is `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A Boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text with sorted keys.
    public var description: String { JSONSerializer.string(self) }
}

extension JSONValue {
    /// Parses a complete JSON document (RFC 8259) from its UTF-8 bytes: numbers kept exact
    /// (integers as ``int(_:)``), nesting up to 512 deep; an error says where the input is wrong.
    public init(parsing data: Data) throws(JSONParseError) {
        self = try JSONParser.parse(data)
    }

    /// Parses a complete JSON document given as text, as ``init(parsing:)-(Data)`` does.
    public init(parsing text: String) throws(JSONParseError) {
        self = try JSONParser.parse(text)
    }
}

extension JSONValue: Codable {
    /// Decodes any JSON, so a REST response of free shape can be read as `JSONValue`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? container.decode(Int.self) {
            self = .int(int)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode(JSONObject.self))
        }
    }

    /// Encodes the value as it is.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .int(let int): try container.encode(int)
        case .double(let double): try container.encode(double)
        case .number(let number):
            // Codable has no number of arbitrary precision; `Decimal` keeps up to 38 digits.
            guard let decimal = Decimal(string: number.text, locale: Locale(identifier: "en_US_POSIX")), !decimal.isNaN else {
                throw EncodingError.invalidValue(number, .init(codingPath: encoder.codingPath, debugDescription: "\(number) cannot be encoded as a number"))
            }
            try container.encode(decimal)
        case .string(let string): try container.encode(string)
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }
}

extension Array where Element == JSONValue {
    /// How many elements from the start are the same in both lists.
    package func matchingPrefixCount(_ other: [JSONValue]) -> Int {
        withUnsafeBufferPointer { mine in
            other.withUnsafeBufferPointer { theirs in
                var count = 0
                while count < Swift.min(mine.count, theirs.count), JSONValue.same(mine.baseAddress! + count, theirs.baseAddress! + count) { count += 1 }
                return count
            }
        }
    }

    /// How many elements from the end are the same in both lists, looking no further back than
    /// `limit` elements.
    package func matchingSuffixCount(_ other: [JSONValue], limit: Int) -> Int {
        withUnsafeBufferPointer { mine in
            other.withUnsafeBufferPointer { theirs in
                var count = 0
                while count < Swift.min(limit, mine.count, theirs.count),
                    JSONValue.same(mine.baseAddress! + (mine.count - 1 - count), theirs.baseAddress! + (theirs.count - 1 - count))
                {
                    count += 1
                }
                return count
            }
        }
    }
}

extension JSONValue {
    /// Whether the values at two places are equal, compared first as the bits they are stored as:
    /// a copied string, array or object shares its storage with the original, so values with the
    /// same bits are one value and nothing inside them is read (a large list read again from the
    /// cache compares at the cost of its buffer). Other values are compared as values.
    @inline(__always)
    package static func same(_ first: UnsafePointer<JSONValue>, _ second: UnsafePointer<JSONValue>) -> Bool {
        memcmp(first, second, MemoryLayout<JSONValue>.size) == 0 || first.pointee == second.pointee
    }
}
