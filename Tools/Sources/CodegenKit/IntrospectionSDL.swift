import Foundation

/// Turns an introspection result (`{"data": {"__schema": …}}` or `{"__schema": …}`) into SDL text,
/// so that a schema read from JSON goes through exactly the same path as one written in SDL.
package enum IntrospectionSDL {
    package struct Failure: Error {
        package var message: String
    }

    static let builtInScalars: Set<String> = ["String", "Int", "Float", "Boolean", "ID"]
    static let builtInDirectives: Set<String> = ["include", "skip", "deprecated", "specifiedBy", "oneOf"]

    package static func sdl(fromIntrospection data: Data) throws -> String {
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure(message: "an introspection result must be a JSON object")
        }
        let schemaObject = (root["data"] as? [String: Any])?["__schema"] ?? root["__schema"]
        guard let schema = schemaObject as? [String: Any], let types = schema["types"] as? [[String: Any]] else {
            throw Failure(message: "no '__schema' with 'types' found (expected {\"data\": {\"__schema\": …}} or {\"__schema\": …})")
        }
        var out: [String] = []
        let rootNames = ["query": "Query", "mutation": "Mutation", "subscription": "Subscription"]
        var schemaLines: [String] = []
        var needsSchemaDefinition = false
        for (key, defaultName) in [("query", "Query"), ("mutation", "Mutation"), ("subscription", "Subscription")] {
            guard let name = (schema["\(key)Type"] as? [String: Any])?["name"] as? String else { continue }
            schemaLines.append("  \(key): \(name)")
            if name != rootNames[key] ?? defaultName { needsSchemaDefinition = true }
        }
        if needsSchemaDefinition { out.append("schema {\n" + schemaLines.joined(separator: "\n") + "\n}") }

        for directive in schema["directives"] as? [[String: Any]] ?? [] {
            guard let name = directive["name"] as? String, !builtInDirectives.contains(name) else { continue }
            var text = description(directive["description"], indent: "")
            text += "directive @\(name)\(arguments(directive["args"], indent: ""))"
            if directive["isRepeatable"] as? Bool == true { text += " repeatable" }
            text += " on " + ((directive["locations"] as? [String]) ?? []).joined(separator: " | ")
            out.append(text)
        }

        for type in types {
            guard let name = type["name"] as? String, !name.hasPrefix("__"), let kind = type["kind"] as? String else { continue }
            if kind == "SCALAR" && builtInScalars.contains(name) { continue }
            var text = description(type["description"], indent: "")
            switch kind {
            case "SCALAR":
                text += "scalar \(name)"
            case "OBJECT", "INTERFACE":
                text += (kind == "OBJECT" ? "type " : "interface ") + name
                let interfaces = (type["interfaces"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                if !interfaces.isEmpty { text += " implements " + interfaces.joined(separator: " & ") }
                text += " {\n"
                for field in type["fields"] as? [[String: Any]] ?? [] {
                    text += description(field["description"], indent: "  ")
                    text += "  \(field["name"] as? String ?? "")\(arguments(field["args"], indent: "  ")): \(typeReference(field["type"]))"
                    text += deprecation(field) + "\n"
                }
                text += "}"
            case "UNION":
                let members = (type["possibleTypes"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                text += "union \(name) = " + members.joined(separator: " | ")
            case "ENUM":
                text += "enum \(name) {\n"
                for value in type["enumValues"] as? [[String: Any]] ?? [] {
                    text += description(value["description"], indent: "  ")
                    text += "  \(value["name"] as? String ?? "")" + deprecation(value) + "\n"
                }
                text += "}"
            case "INPUT_OBJECT":
                text += "input \(name)\(type["isOneOf"] as? Bool == true ? " @oneOf" : "") {\n"
                for field in type["inputFields"] as? [[String: Any]] ?? [] {
                    text += description(field["description"], indent: "  ")
                    text += "  " + inputValue(field) + deprecation(field) + "\n"
                }
                text += "}"
            default:
                throw Failure(message: "type '\(name)' has unknown kind '\(kind)'")
            }
            out.append(text)
        }
        return out.joined(separator: "\n\n") + "\n"
    }

    static func description(_ value: Any?, indent: String) -> String {
        guard let text = value as? String, !text.isEmpty else { return "" }
        let escaped = text.replacingOccurrences(of: "\"\"\"", with: "\\\"\"\"")
        return "\(indent)\"\"\"\n" + escaped.split(separator: "\n", omittingEmptySubsequences: false).map { "\(indent)\($0)" }.joined(separator: "\n")
            + "\n\(indent)\"\"\"\n"
    }

    static func deprecation(_ object: [String: Any]) -> String {
        guard object["isDeprecated"] as? Bool == true else { return "" }
        guard let reason = object["deprecationReason"] as? String else { return " @deprecated" }
        return " @deprecated(reason: \(stringLiteral(reason)))"
    }

    /// A GraphQL string literal (its escapes are JSON's).
    static func stringLiteral(_ text: String) -> String { SelectionSetTemplate.jsonString(text) }

    static func arguments(_ value: Any?, indent: String) -> String {
        let args = value as? [[String: Any]] ?? []
        guard !args.isEmpty else { return "" }
        if args.contains(where: { ($0["description"] as? String)?.isEmpty == false }) {
            let inner = indent + "  "
            return "(\n" + args.map { description($0["description"], indent: inner) + inner + inputValue($0) + deprecation($0) }.joined(separator: "\n")
                + "\n\(indent))"
        }
        return "(" + args.map { inputValue($0) + deprecation($0) }.joined(separator: ", ") + ")"
    }

    static func inputValue(_ value: [String: Any]) -> String {
        var text = "\(value["name"] as? String ?? ""): \(typeReference(value["type"]))"
        if let defaultValue = value["defaultValue"] as? String { text += " = \(defaultValue)" }
        return text
    }

    static func typeReference(_ value: Any?) -> String {
        guard let type = value as? [String: Any] else { return "Unknown" }
        switch type["kind"] as? String {
        case "NON_NULL": return typeReference(type["ofType"]) + "!"
        case "LIST": return "[" + typeReference(type["ofType"]) + "]"
        default: return type["name"] as? String ?? "Unknown"
        }
    }
}
