import Foundation

/// Why a body could not be read as JSON, and where.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, such as "unexpected character 'x'".
    public var message: String
    /// Zero-based byte offset into the input.
    public var offset: Int
    /// One-based line of `offset`.
    public var line: Int
    /// One-based column (in bytes) of `offset`.
    public var column: Int

    /// `line:column: message`.
    public var description: String { "\(line):\(column): \(message)" }
}

/// Parses JSON text (RFC 8259) into ``JSONValue``.
///
/// It works on UTF-8 bytes directly: no `Any`, no bridging, the same result on every platform.
/// The text is read once into a ``JSONTape``, which checks it all, and the tree is built from
/// the tape with every container sized once. Nesting deeper than ``maximumDepth`` is rejected.
@_spi(Tools) public enum JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 512

    /// Parses a complete JSON document.
    public static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        JSONValue(try JSONTape(reading: data))
    }

    /// Parses JSON text given as a string.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        JSONValue(try JSONTape(reading: text))
    }
}

/// Decimal number texts compared by value, digit for digit.
@_spi(Tools) public enum NumberText {
    /// Whether two number texts (JSON literals, or Swift's shortest `Double` descriptions such as
    /// `1e-05` and `1.2345678901234567e+19`) write the same value.
    public static func sameValue(_ a: String, _ b: String) -> Bool {
        canonical(a) == canonical(b)
    }

    /// The value as sign, significant digits without leading or trailing zeros, and the power of
    /// ten of the first digit's place.
    struct Canonical: Equatable {
        var negative: Bool
        var digits: [UInt8]
        var exponent: Int
    }

    static func canonical(_ text: String) -> Canonical {
        var bytes = text.utf8[...]
        let negative = bytes.first == UInt8(ascii: "-")
        if negative || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var digits: [UInt8] = []
        var pointPosition: Int?
        var exponent = 0
        while let byte = bytes.first {
            bytes = bytes.dropFirst()
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits.append(byte)
            } else if byte == UInt8(ascii: ".") {
                pointPosition = digits.count
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                // Saturated, as the reader does: `0e9223372036854775807` must not overflow.
                let sign = bytes.first == UInt8(ascii: "-") ? -1 : 1
                var magnitude = 0
                for digit in bytes where digit >= UInt8(ascii: "0") && digit <= UInt8(ascii: "9") {
                    magnitude = min(magnitude * 10 + Int(digit - UInt8(ascii: "0")), 1_000_000)
                }
                exponent = sign * magnitude
                break
            }
        }
        var place = (pointPosition ?? digits.count) + exponent
        let leadingZeros = digits.prefix { $0 == UInt8(ascii: "0") }.count
        digits.removeFirst(leadingZeros)
        place -= leadingZeros
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        if digits.isEmpty { return Canonical(negative: false, digits: [], exponent: 0) }
        return Canonical(negative: negative, digits: digits, exponent: place)
    }
}
