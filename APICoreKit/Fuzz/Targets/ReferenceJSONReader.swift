@_spi(Tools) import APICore
import Foundation

/// The recursive reader that ``JSONTape`` replaced, kept as an oracle: the JSON target checks that
/// the tape gives the same value for every input, and the same error message at the same offset.
/// (It reads straight into a tree, one value at a time; see `bench.sh json` for why it went.)
enum ReferenceJSONReader {
    /// What the reader found wrong, and where (the byte offset).
    struct Failure: Error, Equatable {
        var message: String
        var offset: Int
    }

    static func parse(_ data: Data) -> Result<JSONValue, Failure> {
        data.withUnsafeBytes { raw in
            var reader = Reader(bytes: raw.bindMemory(to: UInt8.self))
            do throws(Failure) {
                reader.skipWhitespace()
                let value = try reader.readValue(depth: 0)
                reader.skipWhitespace()
                if reader.index < reader.bytes.count {
                    throw reader.error("unexpected data after the JSON value")
                }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
    }
}

private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    func error(_ message: String, at offset: Int? = nil) -> ReferenceJSONReader.Failure {
        ReferenceJSONReader.Failure(message: message, offset: min(offset ?? index, bytes.count))
    }

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func readValue(depth: Int) throws(ReferenceJSONReader.Failure) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
        case UInt8(ascii: "["): return try readArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        case let byte: throw error("unexpected character \(describe(byte))")
        }
    }

    mutating func expectWord(_ word: StaticString) throws(ReferenceJSONReader.Failure) {
        let start = index
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw error("unexpected end of input", at: start) }
        for i in 0..<count where bytes[index + i] != word.utf8Start[i] {
            throw error("invalid literal, expected '\(word)'", at: start)
        }
        index += count
    }

    mutating func readObject(depth: Int) throws(ReferenceJSONReader.Failure) -> JSONValue {
        guard depth <= JSONParser.maximumDepth else { throw error("nesting deeper than \(JSONParser.maximumDepth) levels") }
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a string key, found \(describe(bytes[index]))")
            }
            let key = try readString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after the key \"\(key)\"")
            }
            index += 1
            skipWhitespace()
            object[key] = try readValue(depth: depth)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(object)
            case let byte: throw error("expected ',' or '}' in an object, found \(describe(byte))")
            }
        }
    }

    mutating func readArray(depth: Int) throws(ReferenceJSONReader.Failure) -> JSONValue {
        guard depth <= JSONParser.maximumDepth else { throw error("nesting deeper than \(JSONParser.maximumDepth) levels") }
        index += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(array)
        }
        while true {
            skipWhitespace()
            array.append(try readValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an array") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(array)
            case let byte: throw error("expected ',' or ']' in an array, found \(describe(byte))")
            }
        }
    }

    mutating func readString() throws(ReferenceJSONReader.Failure) -> String {
        let start = index
        index += 1
        let contentStart = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[contentStart..<index]), as: UTF8.self)
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("unescaped control character in a string") }
            index += 1
        }
        guard index < bytes.count else { throw error("unterminated string", at: start) }
        // Slow path: unescape into a byte buffer.
        var buffer = Array(UnsafeBufferPointer(rebasing: bytes[contentStart..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: buffer, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unterminated string", at: start) }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try readHex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                        index += 2
                        let low = try readHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid UTF-16 low surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("unpaired UTF-16 surrogate in \\u escape")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                    // Encoding fails only for scalars that are not Unicode scalar values, which
                    // `Unicode.Scalar(_:)` has refused above.
                    buffer.append(contentsOf: UTF8.encode(unicode)!)
                default:
                    throw error("invalid escape \\\(Character(Unicode.Scalar(escape)))", at: index - 2)
                }
            default:
                if byte < 0x20 { throw error("unescaped control character in a string") }
                buffer.append(byte)
                index += 1
            }
        }
        throw error("unterminated string", at: start)
    }

    mutating func readHex4() throws(ReferenceJSONReader.Failure) -> UInt32 {
        guard bytes.count - index >= 4 else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit \(describe(byte)) in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// A number: `.int` when it is an integer that fits, `.double` when a `Double` holds it as
    /// written, else `.number` with its literal text (nothing is rounded, nothing becomes infinity).
    mutating func readNumber() throws(ReferenceJSONReader.Failure) -> JSONValue {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number", at: start) }
        if bytes[index] == UInt8(ascii: "0"), index + 1 < bytes.count, isDigit(bytes[index + 1]) {
            throw error("invalid number: leading zero", at: start)
        }
        var integer = 0
        var overflow = false
        // Digits from the first that is not zero: more than 15 may not survive a Double.
        var significantDigits = 0
        while index < bytes.count, isDigit(bytes[index]) {
            let digit = Int(bytes[index] - UInt8(ascii: "0"))
            if significantDigits > 0 || digit != 0 { significantDigits += 1 }
            if !overflow {
                let (times10, o1) = integer.multipliedReportingOverflow(by: 10)
                let (sum, o2) = negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
                overflow = o1 || o2
                integer = sum
            }
            index += 1
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number: digit expected after '.'", at: start) }
            while index < bytes.count, isDigit(bytes[index]) {
                if significantDigits > 0 || bytes[index] != UInt8(ascii: "0") { significantDigits += 1 }
                index += 1
            }
        }
        var exponentIsLarge = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number: digit expected in exponent", at: start) }
            var exponent = 0
            while index < bytes.count, isDigit(bytes[index]) {
                exponent = min(exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")), 100_000)
                index += 1
            }
            exponentIsLarge = exponent > 280
        }
        if isInteger {
            if !overflow && !(negative && integer == 0) { return .int(integer) }
            return .number(number(text(from: start)))  // past Int's range, or -0
        }
        let literal = text(from: start)
        guard let double = Double(literal), double.isFinite, double != 0 || significantDigits == 0 else {
            return .number(number(literal))  // past Double's range
        }
        if significantDigits > 15 || exponentIsLarge, !NumberText.sameValue(literal, "\(double)") {
            return .number(number(literal))  // more digits than a Double keeps
        }
        return .double(double)
    }

    func number(_ literal: String) -> JSONNumber {
        guard let number = JSONNumber(literal) else { fatalError("fuzz invariant broken: JSONNumber refuses the literal \(literal)") }
        return number
    }

    func text(from start: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

