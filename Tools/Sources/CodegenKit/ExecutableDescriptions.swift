/// Descriptions on operations, fragments and variable definitions (GraphQL, September 2025),
/// which GraphQLSwift's parser refuses ("descriptions are supported only on type definitions").
///
/// Before an operation file is parsed, each such description is read and blanked out with spaces
/// (line breaks kept, so every position after it is unchanged); the parser then sees a document it
/// knows, and the descriptions go into the generated doc comments, keyed by where the definition
/// they describe starts. Documents sent to a server never carry them (they are printed from the
/// generator's model), so persisted-query hashes do not change.
struct ExecutableDescriptions {
    /// The text with descriptions blanked out.
    let text: String
    /// Each description by the UTF-8 offset of what it describes (`query`, `fragment`, `$name`).
    let descriptions: [Int: String]

    init(_ source: String) {
        var bytes = Array(source.utf8)
        var descriptions: [Int: String] = [:]
        let tokens = DocumentTokens.tokens(bytes)
        var braces = 0, parentheses = 0, brackets = 0
        // In an operation's variable definitions: the parenthesis depth they are at.
        var variablesDepth: Int?
        for (index, token) in tokens.enumerated() {
            let next = index + 1 < tokens.count ? tokens[index + 1] : nil
            let previous = index > 0 ? tokens[index - 1] : nil
            switch token.kind {
            case .punctuator(UInt8(ascii: "{")): braces += 1
            case .punctuator(UInt8(ascii: "}")): braces -= 1
            case .punctuator(UInt8(ascii: "[")): brackets += 1
            case .punctuator(UInt8(ascii: "]")): brackets -= 1
            case .punctuator(UInt8(ascii: "(")):
                parentheses += 1
                if braces == 0, parentheses == 1, let previous, Self.opensVariables(previous, tokens, index - 1, bytes) { variablesDepth = 1 }
            case .punctuator(UInt8(ascii: ")")):
                if parentheses == variablesDepth { variablesDepth = nil }
                parentheses -= 1
            case .string, .blockString:
                guard let next else { continue }
                let topLevel = braces == 0 && parentheses == 0 && brackets == 0
                let describesDefinition = topLevel && next.isName(["query", "mutation", "subscription", "fragment"], in: bytes)
                let describesVariable = variablesDepth == parentheses && braces == 0 && brackets == 0
                    && next.kind == .punctuator(UInt8(ascii: "$")) && previous?.kind != .punctuator(UInt8(ascii: "="))
                    && previous?.kind != .punctuator(UInt8(ascii: ":"))
                guard describesDefinition || describesVariable else { continue }
                descriptions[next.start] = token.stringValue(in: bytes)
                for offset in token.start..<token.end where bytes[offset] != UInt8(ascii: "\n") && bytes[offset] != UInt8(ascii: "\r") {
                    bytes[offset] = UInt8(ascii: " ")
                }
            default:
                continue
            }
        }
        text = String(decoding: bytes, as: UTF8.self)
        self.descriptions = descriptions
    }

    /// Whether the `(` after `tokens[at]` opens an operation's variable definitions: it follows
    /// `query`/`mutation`/`subscription`, or the operation's name right after one.
    private static func opensVariables(_ token: DocumentTokens.Token, _ tokens: [DocumentTokens.Token], _ at: Int, _ bytes: [UInt8]) -> Bool {
        let operations = ["query", "mutation", "subscription"]
        if token.isName(operations, in: bytes) { return true }
        guard token.kind == .name, at > 0 else { return false }
        return tokens[at - 1].isName(operations, in: bytes)
    }
}
