/// Builds indented Swift source text.
struct SwiftWriter {
    private(set) var text = ""
    private var indentLevel = 0

    mutating func line(_ string: String = "") {
        if string.isEmpty {
            text += "\n"
        } else {
            text += String(repeating: "    ", count: indentLevel) + string + "\n"
        }
    }

    mutating func block(_ opener: String, _ body: (inout SwiftWriter) -> Void) {
        line(opener + " {")
        indentLevel += 1
        body(&self)
        indentLevel -= 1
        line("}")
    }

    /// `///` lines for a description; nothing when there is none.
    mutating func doc(_ description: String?) {
        guard let description, !description.isEmpty else { return }
        for part in description.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            line(trimmed.isEmpty ? "///" : "/// " + trimmed)
        }
    }
}

enum SwiftNames {
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static",
        "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else",
        "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "as", "Any",
        "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "Type", "Protocol",
    ]

    /// An identifier, in backticks when it is a keyword; `_`, which Swift cannot name a
    /// declaration, as `__` (no GraphQL name starts with `__` but introspection's).
    static func identifier(_ name: String) -> String {
        if name == "_" { return "__" }
        return keywords.contains(name) ? "`\(name)`" : name
    }

    /// A type name from a `@defer` label: `friends` → `Friends`, `hero-details` → `HeroDetails`.
    static func typeName(fromLabel label: String) -> String {
        let parts = label.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map { $0.prefix(1).uppercased() + $0.dropFirst() }
        let name = parts.joined()
        guard let first = name.first else { return "Deferred" }
        return first.isNumber ? "_" + name : name
    }

    /// A Swift string literal; raw (`#"…"#`) when the text has quotes or backslashes.
    static func stringLiteral(_ text: String) -> String {
        if !text.contains("\"") && !text.contains("\\") && !text.contains("\n") { return "\"\(text)\"" }
        var hashes = "#"
        while text.contains("\"" + hashes) { hashes += "#" }
        if text.contains("\n") { return hashes + "\"\"\"\n" + text + "\n\"\"\"" + hashes }
        return hashes + "\"" + text + "\"" + hashes
    }

    /// The Swift cases of an enum's values, in order: each value's custom name, else Apollo's
    /// case conversion (`NEW_HOPE` → `newHope`). GraphQL names are case-sensitive, Swift cases
    /// after conversion may not be: values that would meet (`north`, `North`, `NORTH`) keep their
    /// GraphQL spelling, and a name still taken gets `_2`, `_3`, … in declaration order.
    static func enumCases(_ values: [String], custom: [String: String] = [:]) -> [String] {
        let preferred = values.map { custom[$0] ?? enumCase($0, escaped: false) }
        var counts: [String: Int] = [:]
        for name in preferred { counts[name, default: 0] += 1 }
        var taken: Set<String> = []
        return zip(values, preferred).map { value, name in
            var chosen = counts[name]! > 1 && custom[value] == nil ? value : name
            let base = chosen
            var counter = 2
            while !taken.insert(chosen).inserted {
                chosen = base + "_\(counter)"
                counter += 1
            }
            return identifier(chosen)
        }
    }

    /// Apollo's default case conversion: `NEW_HOPE` → `newHope`, `JEDI` → `jedi`, `someValue` stays.
    static func enumCase(_ name: String, escaped: Bool = true) -> String {
        let letters = name.filter(\.isLetter)
        let isUpper = !letters.isEmpty && letters == letters.uppercased()
        let parts = name.split(separator: "_", omittingEmptySubsequences: true).map(String.init)
        guard let first = parts.first else { return identifier(name) }
        var result = isUpper ? first.lowercased() : first.lowerFirst
        for part in parts.dropFirst() {
            result += isUpper ? part.lowercased().upperFirst : part.upperFirst
        }
        if result.first?.isNumber == true { result = "_" + result }
        return escaped ? identifier(result) : result
    }
}

extension String {
    var upperFirst: String { prefix(1).uppercased() + dropFirst() }
    var lowerFirst: String { prefix(1).lowercased() + dropFirst() }

    /// `friends` → `friend`, `categories` → `category`; left alone when unsure.
    var singularized: String {
        if hasSuffix("ies") && count > 3 { return String(dropLast(3)) + "y" }
        if hasSuffix("sses") || hasSuffix("ches") || hasSuffix("shes") || hasSuffix("xes") { return String(dropLast(2)) }
        if hasSuffix("s") && !hasSuffix("ss") && !hasSuffix("us") && !hasSuffix("is") && count > 1 { return String(dropLast()) }
        return self
    }
}
