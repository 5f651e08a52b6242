import GraphQL

/// The GraphQLSwift schema that operations are validated against, built from a schema that
/// passed every rule.
///
/// GraphQLSwift's builder evaluates each default value while it builds the types, and an object
/// literal default of an input object whose fields are being built (`input A { x: A = { x: null } }`,
/// or through a cycle of such defaults) recurses without end: the process dies of a stack
/// overflow. Document validation only asks whether a default exists, never what it is, so the
/// builder is given each such default as `null` (and a non-null type that has one as nullable,
/// so that it stays optional; `[]` for a non-null list). Nothing the generator emits comes from
/// this schema.
enum GraphQLSwiftSchema {
    static func build(_ documents: [Document]) throws -> GraphQLSchema {
        let safe = try documents.map(withoutObjectDefaults)
        guard let first = safe.first else { throw GraphQLError(message: "no schema") }
        let combined = first.set(value: .array(safe.flatMap(\.definitions)), key: "definitions")
        return try buildASTSchema(documentAST: combined, assumeValidSDL: true)
    }

    /// `document` parsed again from its text with each object literal default replaced, or as
    /// it is when it has none.
    private static func withoutObjectDefaults(_ document: Document) throws -> Document {
        guard let source = document.loc?.source else { return document }
        var edits: [(range: Range<Int>, text: String)] = []
        for definition in document.definitions {
            for value in SDLRules.inputValueDefinitions(definition) {
                guard let literal = value.defaultValue, containsObject(literal), let valueRange = range(literal.loc) else { continue }
                switch value.type {
                case let nonNull as NonNullType where nonNull.type is ListType:
                    edits.append((valueRange, "[]"))
                case let nonNull as NonNullType:
                    guard let typeRange = range(value.type.loc), let inner = range(nonNull.type.loc) else { continue }
                    edits.append((typeRange, String(decoding: Array(source.body.utf8)[inner], as: UTF8.self)))
                    edits.append((valueRange, "null"))
                default:
                    edits.append((valueRange, "null"))
                }
            }
        }
        guard !edits.isEmpty else { return document }
        var bytes = Array(source.body.utf8)
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            bytes.replaceSubrange(edit.range, with: Array(edit.text.utf8))
        }
        return try parse(source: Source(body: String(decoding: bytes, as: UTF8.self), name: source.name))
    }

    private static func range(_ location: Location?) -> Range<Int>? { location.map { $0.start..<$0.end } }

    private static func containsObject(_ value: Value) -> Bool {
        switch value {
        case is ObjectValue: return true
        case let list as ListValue: return list.values.contains(where: containsObject)
        default: return false
        }
    }
}
