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
    static func build(_ documents: [Document], model: SchemaModel) throws -> GraphQLSchema {
        let cycles = InputCycles(model, throughLists: true)
        let safe = try documents.map { try withoutObjectDefaults($0, cycles: cycles) }
        guard let first = safe.first else { throw GraphQLError(message: "no schema") }
        let combined = first.set(value: .array(safe.flatMap(\.definitions)), key: "definitions")
        return try buildASTSchema(documentAST: combined, assumeValidSDL: true)
    }

    /// `document` parsed again from its text with each object literal default replaced, or as
    /// it is when it has none. (Where things end is read from the text's tokens: GraphQLSwift's
    /// locations of some nodes end before they start.)
    private static func withoutObjectDefaults(_ document: Document, cycles: InputCycles) throws -> Document {
        guard let source = document.loc?.source else { return document }
        let bytes = Array(source.body.utf8)
        // Read only when there is something to replace.
        lazy var tokens = DocumentTokens.tokens(bytes)
        var edits: [(range: Range<Int>, text: String)] = []
        // Only an input field's default can lead the builder back to the input object it is
        // building: when the field's type holds its owner again (however: in lists too).
        for case let input? in document.definitions.map(TypeParts.init) where input.kind == .inputObject {
            for value in input.inputFields where cycles.isIndirect(input.name.value, value.name.value) {
                guard let literal = value.defaultValue, containsObject(literal), let valueStart = literal.loc?.start,
                    let valueRange = extent(from: valueStart, tokens)
                else { continue }
                switch value.type {
                case let nonNull as NonNullType where nonNull.type is ListType:
                    edits.append((valueRange, "[]"))
                case is NonNullType:
                    // The non-null type's own text without its `!` is the nullable type.
                    guard let typeStart = value.type.loc?.start, let typeRange = extent(from: typeStart, tokens) else { continue }
                    let text = String(decoding: bytes[typeRange], as: UTF8.self)
                    guard let bang = text.lastIndex(of: "!") else { continue }
                    edits.append((typeRange, String(text[..<bang])))
                    edits.append((valueRange, "null"))
                default:
                    edits.append((valueRange, "null"))
                }
            }
        }
        guard !edits.isEmpty else { return document }
        var edited = bytes
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            edited.replaceSubrange(edit.range, with: Array(edit.text.utf8))
        }
        return try parse(source: Source(body: String(decoding: edited, as: UTF8.self), name: source.name))
    }

    /// The bytes of the value or type that starts at `start`: one token, or a bracketed list or
    /// object up to its closing token, with a trailing `!` for a type.
    private static func extent(from start: Int, _ tokens: [DocumentTokens.Token]) -> Range<Int>? {
        guard var index = tokens.firstIndex(where: { $0.start == start }) else { return nil }
        var depth = 0
        repeat {
            switch tokens[index].kind {
            case .punctuator(UInt8(ascii: "[")), .punctuator(UInt8(ascii: "{")): depth += 1
            case .punctuator(UInt8(ascii: "]")), .punctuator(UInt8(ascii: "}")): depth -= 1
            default: break
            }
            if depth == 0 { break }
            index += 1
        } while index < tokens.count
        guard index < tokens.count else { return nil }
        if index + 1 < tokens.count, tokens[index + 1].kind == .punctuator(UInt8(ascii: "!")) { index += 1 }
        return start..<tokens[index].end
    }

    private static func containsObject(_ value: Value) -> Bool {
        switch value {
        case is ObjectValue: return true
        case let list as ListValue: return list.values.contains(where: containsObject)
        default: return false
        }
    }
}
