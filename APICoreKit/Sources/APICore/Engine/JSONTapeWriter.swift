import Foundation

/// The one pass that checks JSON text and writes the tape.
struct TapeWriter {
    let bytes: UnsafeBufferPointer<UInt8>
    let base: UnsafePointer<UInt8>
    let count: Int
    var index = 0
    /// Two words per value; the tape takes them (``TapeBuffer/take()``), or ``release()`` frees them.
    var words: TapeBuffer<UInt64>
    /// Strings that had escapes, unescaped.
    var unescaped = TapeBuffer<UInt8>(capacity: 0)

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        // An empty buffer may have no address; one byte of a static string stands in (never read).
        self.base = bytes.baseAddress ?? UnsafePointer(("" as StaticString).utf8Start)
        self.count = bytes.count
        // About one value per 12 bytes of typical JSON; the buffer grows past that when needed.
        words = TapeBuffer(capacity: max(16, bytes.count / 6))
    }

    /// Frees what the tape did not take (after an error).
    mutating func release() {
        words.release()
        unescaped.release()
    }

    // MARK: Errors

    func error(_ message: String, at offset: Int? = nil) -> JSONParseError {
        let offset = min(offset ?? index, count)
        var line = 1
        var lineStart = 0
        for i in 0..<offset where base[i] == UInt8(ascii: "\n") {
            line += 1
            lineStart = i + 1
        }
        return JSONParseError(message: message, offset: offset, line: line, column: offset - lineStart + 1)
    }

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    // MARK: The pass

    @inline(__always)
    mutating func append(_ kind: JSONTape.Kind, _ payload: Int = 0, _ second: UInt64 = 0) {
        words.append(UInt64(kind.rawValue) << 56 | UInt64(payload))
        words.append(second)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < count {
            switch base[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Reads the document: values are read in a loop, containers kept on a stack of their start
    /// words (no recursion, so depth costs no stack).
    mutating func read() throws(JSONParseError) {
        // The start word of each open container, and how many members it has so far.
        var open: [(start: Int, members: Int)] = []
        skipWhitespace()
        value: while true {
            guard index < count else { throw error("unexpected end of input") }
            switch base[index] {
            case UInt8(ascii: "\""):
                try readString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = base[index] == UInt8(ascii: "{")
                guard open.count < JSONParser.maximumDepth else { throw error("nesting deeper than \(JSONParser.maximumDepth) levels") }
                open.append((words.count, 0))
                append(isObject ? .object : .array)
                index += 1
                skipWhitespace()
                if index < count && base[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    close(open.removeLast())
                } else if isObject {
                    try readKey()
                    continue value
                } else {
                    continue value
                }
            case UInt8(ascii: "t"): try expectWord("true"); append(.true)
            case UInt8(ascii: "f"): try expectWord("false"); append(.false)
            case UInt8(ascii: "n"): try expectWord("null"); append(.null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try readNumber()
            case let byte: throw error("unexpected character \(describe(byte))")
            }
            // After a value: the next member, or the end of one or more containers.
            while let top = open.last {
                skipWhitespace()
                let isObject = words[top.start] >> 56 == UInt64(JSONTape.Kind.object.rawValue)
                guard index < count else { throw error(isObject ? "unexpected end of input in an object" : "unexpected end of input in an array") }
                let byte = base[index]
                if byte == UInt8(ascii: ",") {
                    index += 1
                    open[open.count - 1].members += 1
                    if isObject {
                        skipWhitespace()
                        try readKey()
                    } else {
                        skipWhitespace()
                    }
                    continue value
                }
                guard byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw error(isObject ? "expected ',' or '}' in an object, found \(describe(byte))" : "expected ',' or ']' in an array, found \(describe(byte))")
                }
                index += 1
                var closing = open.removeLast()
                closing.members += 1
                close(closing)
            }
            skipWhitespace()
            if index < count { throw error("unexpected data after the JSON value") }
            return
        }
    }

    /// Fills a container's start word with the index past its end, and its member count.
    @inline(__always)
    mutating func close(_ container: (start: Int, members: Int)) {
        words[container.start] |= UInt64(words.count)
        words[container.start + 1] = UInt64(container.members)
    }

    /// A key, the `:` after it and the whitespace before the value.
    mutating func readKey() throws(JSONParseError) {
        guard index < count else { throw error("unexpected end of input in an object") }
        guard base[index] == UInt8(ascii: "\"") else { throw error("expected a string key, found \(describe(base[index]))") }
        let keyWord = words.count
        try readString()
        skipWhitespace()
        guard index < count, base[index] == UInt8(ascii: ":") else {
            let key = JSONTape.Kind(rawValue: UInt8(words[keyWord] >> 56)) == .string
                ? String(decoding: UnsafeBufferPointer(start: base + Int(words[keyWord] & JSONTape.payloadMask), count: Int(words[keyWord + 1])), as: UTF8.self)
                : String(decoding: UnsafeBufferPointer(start: unescaped.base + Int(words[keyWord] & JSONTape.payloadMask), count: Int(words[keyWord + 1])), as: UTF8.self)
            throw error("expected ':' after the key \"\(key)\"")
        }
        index += 1
        skipWhitespace()
    }

    mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
        let start = index
        let length = word.utf8CodeUnitCount
        guard count - index >= length else { throw error("unexpected end of input", at: start) }
        for i in 0..<length where base[index + i] != word.utf8Start[i] {
            throw error("invalid literal, expected '\(word)'", at: start)
        }
        index += length
    }

    // MARK: Strings

    /// The offset of the first `"`, `\` or control character at or after `index`, eight bytes at
    /// a time; `count` when there is none.
    @inline(__always)
    func nextSpecial(from start: Int) -> Int {
        var position = start
        while position + 8 <= count {
            let found = Self.specials(in: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            if found != 0 { return position + found.trailingZeroBitCount / 8 }
            position += 8
        }
        while position < count {
            let byte = base[position]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return position }
            position += 1
        }
        return count
    }

    /// The bytes of `word` (eight of the text, in memory order) that end a run of a string's text:
    /// `"`, `\` or below 0x20, each flagged by its high bit; the lowest flag is exact, and a false
    /// flag only ever sits above a true one.
    @inline(__always)
    static func specials(in word: UInt64) -> UInt64 {
        let word = UInt64(littleEndian: word)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        return ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (word &- ones &* 0x20) & ~word) & 0x8080_8080_8080_8080
    }

    mutating func readString() throws(JSONParseError) {
        let start = index
        let contentStart = index + 1
        index = nextSpecial(from: contentStart)
        guard index < count else { throw error("unterminated string", at: start) }
        switch base[index] {
        case UInt8(ascii: "\""):
            append(.string, contentStart, UInt64(index - contentStart))
            index += 1
        case UInt8(ascii: "\\"):
            try readEscapedString(start: start, contentStart: contentStart)
        default:
            throw error("unescaped control character in a string")
        }
    }

    /// A string with escapes, from its first `\`: unescaped into the side buffer.
    mutating func readEscapedString(start: Int, contentStart: Int) throws(JSONParseError) {
        // Unescaping never lengthens text (`\uXXXX` is 6 bytes for at most 3 of UTF-8, a pair 12
        // for 4), so the rest of the document fits in what is left of it: room for all of it at
        // the first escape, and the buffer never moves or copies while reading (each doubling
        // copied it into fresh pages). ``TapeBuffer/take()`` cuts what was far from needed.
        if unescaped.capacity == 0 { unescaped.reserve(count - contentStart) }
        let offset = unescaped.count
        unescaped.append(contentsOf: UnsafeBufferPointer(start: base + contentStart, count: index - contentStart))
        while true {
            // `index` is at a special byte.
            switch base[index] {
            case UInt8(ascii: "\""):
                append(.escapedString, offset, UInt64(unescaped.count - offset))
                index += 1
                return
            case UInt8(ascii: "\\"):
                index += 1
                guard index < count else { throw error("unterminated string", at: start) }
                let escape = base[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): unescaped.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): unescaped.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): unescaped.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): unescaped.append(0x08)
                case UInt8(ascii: "f"): unescaped.append(0x0C)
                case UInt8(ascii: "n"): unescaped.append(0x0A)
                case UInt8(ascii: "r"): unescaped.append(0x0D)
                case UInt8(ascii: "t"): unescaped.append(0x09)
                case UInt8(ascii: "u"): try readUnicodeEscape()
                default: throw error("invalid escape \\\(Character(Unicode.Scalar(escape)))", at: index - 2)
                }
            default:
                throw error("unescaped control character in a string")
            }
            copyUntilSpecial()
            guard index < count else { throw error("unterminated string", at: start) }
        }
    }

    /// Copies a string's text from `index` into the side buffer up to its next special byte (or
    /// the end of the input), eight bytes at a time, each word stored whole before it is looked
    /// at: a short run between two escapes costs no call. The buffer has room for the eight: what
    /// it holds never outgrows what was read since the first escape (unescaping never lengthens),
    /// and it was given room for the whole rest of the input then.
    @inline(__always)
    mutating func copyUntilSpecial() {
        // Locals, so that the stores through `out` do not make the loop reload them.
        let out = UnsafeMutableRawPointer(unescaped.base)
        let input = UnsafeRawPointer(base)
        let end = count
        var written = unescaped.count
        var position = index
        defer {
            unescaped.count = written
            index = position
        }
        while position &+ 8 <= end {
            let word = input.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            out.storeBytes(of: word, toByteOffset: written, as: UInt64.self)
            let found = Self.specials(in: word)
            if found != 0 {
                let run = found.trailingZeroBitCount &>> 3
                position &+= run
                written &+= run
                return
            }
            position &+= 8
            written &+= 8
        }
        while position < end {
            let byte = input.load(fromByteOffset: position, as: UInt8.self)
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return }
            out.storeBytes(of: byte, toByteOffset: written, as: UInt8.self)
            position &+= 1
            written &+= 1
        }
    }

    /// `\uXXXX` (a surrogate pair included) after its `\u`, appended as UTF-8.
    mutating func readUnicodeEscape() throws(JSONParseError) {
        var scalar = try readHex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard count - index >= 6, base[index] == UInt8(ascii: "\\"), base[index + 1] == UInt8(ascii: "u")
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
        for byte in UTF8.encode(unicode)! { unescaped.append(byte) }
    }

    mutating func readHex4() throws(JSONParseError) -> UInt32 {
        guard count - index >= 4 else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = base[index]
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

    // MARK: Numbers

    @inline(__always)
    func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// Powers of ten a `Double` holds exactly.
    static let exactPowersOfTen: [Double] = (0...22).map { (0..<$0).reduce(1.0) { value, _ in value * 10 } }

    /// A number: an integer that fits `Int`; a `Double` that holds it as written (the literal's
    /// shortest reading back the same); else the literal (nothing rounded, nothing infinite).
    mutating func readNumber() throws(JSONParseError) {
        let start = index
        let negative = base[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < count, isDigit(base[index]) else { throw error("invalid number", at: start) }
        if base[index] == UInt8(ascii: "0"), index + 1 < count, isDigit(base[index + 1]) {
            throw error("invalid number: leading zero", at: start)
        }
        // The integer part, exactly while it fits.
        var integer = 0
        var overflow = false
        // The significant digits (from the first that is not zero) and their value, while 19 fit.
        var significantDigits = 0
        var significand: UInt64 = 0
        while index < count, isDigit(base[index]) {
            let digit = Int(base[index] &- UInt8(ascii: "0"))
            if significantDigits > 0 || digit != 0 {
                significantDigits += 1
                if significantDigits <= 19 { significand = significand &* 10 &+ UInt64(digit) }
            }
            if !overflow {
                let (times10, o1) = integer.multipliedReportingOverflow(by: 10)
                let (sum, o2) = negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
                overflow = o1 || o2
                integer = sum
            }
            index += 1
        }
        var fractionDigits = 0
        var isInteger = true
        if index < count, base[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < count, isDigit(base[index]) else { throw error("invalid number: digit expected after '.'", at: start) }
            while index < count, isDigit(base[index]) {
                let digit = base[index] &- UInt8(ascii: "0")
                if significantDigits > 0 || digit != 0 {
                    significantDigits += 1
                    if significantDigits <= 19 { significand = significand &* 10 &+ UInt64(digit) }
                }
                fractionDigits += 1
                index += 1
            }
        }
        var exponent = 0
        var exponentIsLarge = false
        if index < count, base[index] == UInt8(ascii: "e") || base[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            var exponentNegative = false
            if index < count, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") {
                exponentNegative = base[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < count, isDigit(base[index]) else { throw error("invalid number: digit expected in exponent", at: start) }
            while index < count, isDigit(base[index]) {
                exponent = min(exponent * 10 + Int(base[index] - UInt8(ascii: "0")), 100_000)
                index += 1
            }
            exponentIsLarge = exponent > 280
            if exponentNegative { exponent = -exponent }
        }
        if isInteger {
            if !overflow && !(negative && integer == 0) {
                append(.int, 0, UInt64(UInt(bitPattern: integer)))
            } else {
                append(.number, start, UInt64(index - start))  // past Int's range, or -0
            }
            return
        }
        // Exact when the significand and the power of ten both are (a single rounding).
        let power = exponent - fractionDigits
        if significantDigits <= 15, (-22...22).contains(power) {
            let magnitude = power < 0 ? Double(significand) / Self.exactPowersOfTen[-power] : Double(significand) * Self.exactPowersOfTen[power]
            append(.double, 0, (negative ? -magnitude : magnitude).bitPattern)
            return
        }
        let literal = String(decoding: UnsafeBufferPointer(start: base + start, count: index - start), as: UTF8.self)
        guard let double = Double(literal), double.isFinite, double != 0 || significantDigits == 0 else {
            append(.number, start, UInt64(index - start))  // past Double's range
            return
        }
        if significantDigits > 15 || exponentIsLarge, !NumberText.sameValue(literal, "\(double)") {
            append(.number, start, UInt64(index - start))  // more digits than a Double keeps
            return
        }
        append(.double, 0, double.bitPattern)
    }
}
