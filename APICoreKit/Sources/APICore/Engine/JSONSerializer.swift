import Foundation

/// Writes ``JSONValue`` as compact JSON text with object keys sorted, so equal values always
/// give equal bytes (which de-duplication and persisted-query hashes rely on).
@_spi(Tools) public enum JSONSerializer {
    /// The UTF-8 bytes of `value`.
    public static func data(_ value: JSONValue) -> Data {
        data(value, sortingKeys: true)
    }

    /// The UTF-8 bytes of `value`; without `sortingKeys`, an object's keys come in the order it
    /// holds them (for bytes that are only parsed back, such as a stored record's, never compared).
    package static func data(_ value: JSONValue, sortingKeys: Bool) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out, sortingKeys: sortingKeys)
        return Data(out)
    }

    /// The text of `value`.
    public static func string(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        write(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func write(_ value: JSONValue, into out: inout [UInt8], sortingKeys: Bool = true) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let bool): out.append(contentsOf: (bool ? "true" : "false").utf8)
        case .int(let int): writeInt(int, into: &out)
        case .double(let double):
            if double.isFinite {
                if double == double.rounded(.towardZero), abs(double) < 1e15 {
                    // `Int(double)` cannot trap: the value is integral and well inside Int's range.
                    if double.sign == .minus { out.append(UInt8(ascii: "-")) }
                    out.append(contentsOf: String(Int(double.magnitude)).utf8)
                    out.append(contentsOf: ".0".utf8)
                } else {
                    out.append(contentsOf: "\(double)".utf8)
                }
            } else {
                out.append(contentsOf: "null".utf8)  // JSON has no NaN or infinity.
            }
        case .number(let number): out.append(contentsOf: number.text.utf8)  // checked when it was made
        case .string(let string): writeString(string, into: &out)
        case .array(let array):
            out.append(UInt8(ascii: "["))
            for (i, element) in array.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(element, into: &out, sortingKeys: sortingKeys)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            var first = true
            func member(_ key: String, _ value: JSONValue) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(value, into: &out, sortingKeys: sortingKeys)
            }
            if sortingKeys {
                for key in object.keys.sorted() { member(key, object[key] ?? .null) }
            } else {
                for (key, value) in object { member(key, value) }
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// An integer's digits, without making a `String` of them.
    static func writeInt(_ int: Int, into out: inout [UInt8]) {
        if int < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = int.magnitude
        // At most 20 digits (`UInt64.max`), written from the end.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: digits[start...])
        }
    }

    static func writeString(_ string: String, into out: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes in
            out.append(UInt8(ascii: "\""))
            // Most strings need no escape: their bytes go in at once.
            if !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                out.append(contentsOf: bytes)
            } else {
                for byte in bytes { writeEscaped(byte, into: &out) }
            }
            out.append(UInt8(ascii: "\""))
        }
    }

    private static func writeEscaped(_ byte: UInt8, into out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
        case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
        case 0x0A: out.append(contentsOf: "\\n".utf8)
        case 0x0D: out.append(contentsOf: "\\r".utf8)
        case 0x09: out.append(contentsOf: "\\t".utf8)
        case 0..<0x20:
            let hex = String(byte, radix: 16)
            out.append(contentsOf: "\\u00".utf8)
            if hex.count == 1 { out.append(UInt8(ascii: "0")) }
            out.append(contentsOf: hex.utf8)
        default: out.append(byte)
        }
    }
}
