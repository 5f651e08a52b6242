import Foundation

/// Writes ``JSONValue`` as compact JSON text with object keys sorted, so equal values always
/// give equal bytes (which de-duplication and persisted-query hashes rely on).
public enum JSONSerializer {
    /// The UTF-8 bytes of `value`.
    public static func data(_ value: JSONValue) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out)
        return Data(out)
    }

    /// The text of `value`.
    public static func string(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        write(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let bool): out.append(contentsOf: (bool ? "true" : "false").utf8)
        case .int(let int): out.append(contentsOf: String(int).utf8)
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
                write(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, key) in object.keys.sorted().enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(object[key] ?? .null, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
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
        out.append(UInt8(ascii: "\""))
    }
}
