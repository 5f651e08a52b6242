/// A GraphQL document's tokens, read without GraphQLSwift's parser: for what happens before it
/// parses (executable descriptions, the nesting limit) and for places its locations get wrong.
enum DocumentTokens {
    /// The deepest a document may nest: selection sets, arguments, lists and objects together, and
    /// lists (values and types) alone. GraphQLSwift's parser and validator recurse as deep as the
    /// document (its stack ends near a thousand selection sets), and it prints a list value in
    /// time exponential in its depth (beyond about 50 lists an error message takes hours); far
    /// deeper than any operation a person writes, and the generated Swift would not compile much
    /// deeper either.
    static let maximumDepth = 100
    static let maximumListDepth = 24

    /// Where `source` first nests deeper than the limits, as a diagnostic in `file`, or `nil`.
    static func nestingProblem(_ source: String, file: String) -> Diagnostic? {
        let bytes = Array(source.utf8)
        var depth = 0
        var lists = 0
        for token in tokens(bytes) {
            switch token.kind {
            case .punctuator(UInt8(ascii: "{")), .punctuator(UInt8(ascii: "(")): depth += 1
            case .punctuator(UInt8(ascii: "[")):
                depth += 1
                lists += 1
            case .punctuator(UInt8(ascii: "}")), .punctuator(UInt8(ascii: ")")): depth -= 1
            case .punctuator(UInt8(ascii: "]")):
                depth -= 1
                lists -= 1
            default: continue
            }
            guard depth > maximumDepth || lists > maximumListDepth else { continue }
            let line = bytes[..<token.start].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            let lineStart = bytes[..<token.start].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
            let column = String(decoding: bytes[lineStart..<token.start], as: UTF8.self).count + 1
            let what = lists > maximumListDepth
                ? "lists nest deeper than \(maximumListDepth) levels" : "selection sets, arguments, lists and objects nest deeper than \(maximumDepth) levels"
            return Diagnostic(file: file, line: line, column: column, message: "\(what) here; the generator reads no deeper")
        }
        return nil
    }


    /// A token: its kind and where it is; its text and, for a string, its value are read from the
    /// bytes only when asked (a schema is mostly descriptions, rarely needed).
    struct Token {
        enum Kind: Equatable {
            case name
            case punctuator(UInt8)
            /// `...`
            case spread
            case string
            case blockString
            case number
        }

        let kind: Kind
        let start: Int
        let end: Int

        func isName(_ names: [String], in bytes: [UInt8]) -> Bool {
            kind == .name && names.contains { $0.utf8.elementsEqual(bytes[start..<end]) }
        }

        /// A string's value, escapes resolved and a block string's indentation removed.
        func stringValue(in bytes: [UInt8]) -> String {
            switch kind {
            case .blockString:
                let raw = String(decoding: bytes[(start + 3)..<max(start + 3, end - 3)], as: UTF8.self)
                return DocumentTokens.blockStringValue(raw.replacingOccurrences(of: "\\\"\"\"", with: "\"\"\""))
            case .string:
                var value: [UInt8] = []
                var i = start + 1
                let last = bytes[end - 1] == UInt8(ascii: "\"") ? end - 1 : end
                while i < last {
                    if bytes[i] == UInt8(ascii: "\\"), i + 1 < last {
                        let (decoded, length) = DocumentTokens.unescape(bytes, at: i, bytes[i + 1])
                        value += decoded
                        i += length
                    } else {
                        value.append(bytes[i])
                        i += 1
                    }
                }
                return String(decoding: value, as: UTF8.self)
            default:
                return String(decoding: bytes[start..<end], as: UTF8.self)
            }
        }
    }

    /// The document's tokens, comments and insignificant characters left out. Lenient: what does
    /// not lex is skipped a byte at a time, for the parser to report.
    static func tokens(_ bytes: [UInt8]) -> [Token] {
        var tokens: [Token] = []
        tokens.reserveCapacity(bytes.count / 4)
        let count = bytes.count
        var i = 0
        func byte(_ at: Int) -> UInt8 { at < count ? bytes[at] : 0 }
        func isNameByte(_ b: UInt8) -> Bool { b == UInt8(ascii: "_") || (b >= 48 && b <= 57) || (b | 0x20 >= 97 && b | 0x20 <= 122) }
        while i < count {
            let c = bytes[i]
            let start = i
            switch c {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ","), 0xEF, 0xBB, 0xBF:
                i += 1
            case UInt8(ascii: "#"):
                while i < count && bytes[i] != UInt8(ascii: "\n") && bytes[i] != UInt8(ascii: "\r") { i += 1 }
            case UInt8(ascii: "\""):
                if byte(i + 1) == UInt8(ascii: "\""), byte(i + 2) == UInt8(ascii: "\"") {
                    i += 3
                    while i < count {
                        if bytes[i] == UInt8(ascii: "\\"), byte(i + 1) == UInt8(ascii: "\""), byte(i + 2) == UInt8(ascii: "\""), byte(i + 3) == UInt8(ascii: "\"") {
                            i += 4
                        } else if bytes[i] == UInt8(ascii: "\""), byte(i + 1) == UInt8(ascii: "\""), byte(i + 2) == UInt8(ascii: "\"") {
                            i += 3
                            break
                        } else {
                            i += 1
                        }
                    }
                    tokens.append(Token(kind: .blockString, start: start, end: min(i, count)))
                } else {
                    i += 1
                    while i < count, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\n") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
                    i = min(i + 1, count)
                    tokens.append(Token(kind: .string, start: start, end: i))
                }
            case UInt8(ascii: "_"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                while i < count, isNameByte(bytes[i]) { i += 1 }
                tokens.append(Token(kind: .name, start: start, end: i))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                i += 1
                while i < count, isNameByte(bytes[i]) || bytes[i] == UInt8(ascii: ".") || bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                tokens.append(Token(kind: .number, start: start, end: i))
            case UInt8(ascii: "."):
                let spread = byte(i + 1) == UInt8(ascii: ".") && byte(i + 2) == UInt8(ascii: ".")
                i += spread ? 3 : 1
                tokens.append(Token(kind: spread ? .spread : .punctuator(c), start: start, end: i))
            default:
                i += 1
                tokens.append(Token(kind: .punctuator(c), start: start, end: i))
            }
        }
        return tokens
    }

    /// A string escape at `at` (`\n`, `\"`, `\u0041`, `\u{1F600}`): its UTF-8 bytes and length.
    static func unescape(_ bytes: [UInt8], at: Int, _ escaped: UInt8) -> ([UInt8], Int) {
        let simple: [UInt8: String] = [
            UInt8(ascii: "n"): "\n", UInt8(ascii: "t"): "\t", UInt8(ascii: "r"): "\r", UInt8(ascii: "b"): "\u{8}", UInt8(ascii: "f"): "\u{C}",
            UInt8(ascii: "\""): "\"", UInt8(ascii: "\\"): "\\", UInt8(ascii: "/"): "/",
        ]
        if let text = simple[escaped] { return (Array(text.utf8), 2) }
        guard escaped == UInt8(ascii: "u") else { return ([escaped], 2) }
        var end = at + 2
        let braced = end < bytes.count && bytes[end] == UInt8(ascii: "{")
        if braced { end += 1 }
        let digitsStart = end
        while end < bytes.count, end - digitsStart < (braced ? 8 : 4), let _ = Int(String(UnicodeScalar(bytes[end])), radix: 16) { end += 1 }
        let digits = String(decoding: bytes[digitsStart..<end], as: UTF8.self)
        if braced && end < bytes.count && bytes[end] == UInt8(ascii: "}") { end += 1 }
        guard let code = UInt32(digits, radix: 16), let scalar = UnicodeScalar(code) else { return ([], end - at) }
        return (Array(String(Character(scalar)).utf8), end - at)
    }

    /// The spec's BlockStringValue: common indentation and blank first and last lines removed.
    static func blockStringValue(_ raw: String) -> String {
        var lines = raw.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let indents = lines.dropFirst().compactMap { line -> Int? in
            let indent = line.prefix { $0 == " " || $0 == "\t" }.count
            return indent < line.count ? indent : nil
        }
        if let common = indents.min() {
            lines = [lines[0]] + lines.dropFirst().map { String($0.dropFirst(min(common, $0.count))) }
        }
        while let first = lines.first, first.allSatisfy({ $0 == " " || $0 == "\t" }) { lines.removeFirst() }
        while let last = lines.last, last.allSatisfy({ $0 == " " || $0 == "\t" }) { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
