/// Selection-set metadata as the generator writes it: JSON text read once into ``Selection``
/// values. A large module compiles markedly faster than with the same metadata written as Swift
/// expressions, which the compiler type-checks and emits code for one by one. The generator writes
/// one table per operation or fragment (``parseTable(_:_:)``, a `static let` of its root), and each
/// struct's `__selections` reads its entry; ``parse(_:_:)`` reads one selection set alone.
///
/// A selection set is a JSON array, an entry per selection; Swift types are named by their
/// position in `types` (the arguments after the text):
///
/// | entry | selection |
/// |---|---|
/// | `["name", "T"]`, `["name", "T", {options}]` | a field; `T` is the type: an index, in `[…]` for a list, `!` for non-null (`"[2!]!"`); options `alias`, `args` (arguments, a variable as `{"$": "name"}`), `page` (``Field/pagination``), `keys` (``Field/keyArgs``), `catch` (`"null"` or `"result"`), `age` (``Field/cacheMaxAge``, seconds) |
/// | `{"on": i}` | a type case or inline fragment |
/// | `{"spread": i}` | a named fragment |
/// | `{"if": ["v", "!w"], "then": […]}` | selections under `@include(if: $v)` and `@skip(if: $w)` |
/// | `{"defer": "id", "label": "l", "when": "v", "then": […]}` | a deferred fragment |
extension Selection {
    /// The selections `text` describes, naming `types` by position. The text comes from the
    /// generator: text it did not write is a programming error, reported with where it is wrong.
    @_spi(Generated) public static func parse(_ text: String, _ types: Any.Type...) -> [Selection] {
        read(text, types) { reader, json throws(SelectionTextError) in try reader.selections(json) }
    }

    /// The selection sets of one operation or fragment: `text` is a JSON array of selection sets
    /// (each as ``parse(_:_:)`` reads it) naming one list of `types` by position.
    @_spi(Generated) public static func parseTable(_ text: String, _ types: Any.Type...) -> SelectionTable {
        SelectionTable(
            sets: read(text, types) { reader, json throws(SelectionTextError) in
                guard case .array(let sets) = json else { throw SelectionTextError(message: "a table is not an array of selection sets") }
                return try sets.map { set throws(SelectionTextError) in try reader.selections(set) }
            })
    }

    private static func read<Result>(
        _ text: String, _ types: [Any.Type],
        _ body: (SelectionTextReader, JSONValue) throws(SelectionTextError) -> Result
    ) -> Result {
        do throws(SelectionTextError) {
            let json: JSONValue
            do throws(JSONParseError) {
                json = try JSONParser.parse(text)
            } catch {
                throw SelectionTextError(message: "\(error)")
            }
            return try body(SelectionTextReader(types: types), json)
        } catch {
            preconditionFailure("APICore: generated selection metadata is malformed (\(error.message)): regenerate the code. \(text)")
        }
    }
}

/// The metadata of every selection set of one operation or fragment, read once: entry `i` is the
/// `__selections` of the struct the generator numbered `i`. (A plain non-generic subscript: each
/// generated struct reads its entry through it, and a debug build calls it as written.)
@_spi(Generated) public struct SelectionTable: Sendable {
    let sets: [[Selection]]

    /// The selections of the struct numbered `index`.
    public subscript(_ index: Int) -> [Selection] { sets[index] }
}

private struct SelectionTextError: Error {
    let message: String
}

private struct SelectionTextReader {
    let types: [Any.Type]

    func selections(_ json: JSONValue) throws(SelectionTextError) -> [Selection] {
        guard case .array(let entries) = json else { throw SelectionTextError(message: "selections are not an array: \(json)") }
        var selections: [Selection] = []
        selections.reserveCapacity(entries.count)
        for entry in entries { selections.append(try selection(entry)) }
        return selections
    }

    private func selection(_ entry: JSONValue) throws(SelectionTextError) -> Selection {
        switch entry {
        case .array(let parts):
            return .field(try field(parts))
        case .object(let object):
            if let index = object["on"]?.intValue {
                guard let type = try type(at: index) as? any SelectionSet.Type else { throw SelectionTextError(message: "type \(index) is no selection set") }
                return .inlineFragment(type)
            }
            if let index = object["spread"]?.intValue {
                guard let type = try type(at: index) as? any Fragment.Type else { throw SelectionTextError(message: "type \(index) is no fragment") }
                return .fragment(type)
            }
            let nested = try selections(object["then"] ?? .null)
            if let conditions = object["if"]?.arrayValue {
                return .conditional(try conditions.map(condition), nested)
            }
            if let id = object["defer"]?.stringValue {
                let condition = object["when"]?.stringValue.map(SelectionCondition.include(if:))
                return .deferred(Deferral(id, label: object["label"]?.stringValue, if: condition), nested)
            }
            throw SelectionTextError(message: "unknown entry \(entry)")
        default:
            throw SelectionTextError(message: "unknown entry \(entry)")
        }
    }

    private func condition(_ json: JSONValue) throws(SelectionTextError) -> SelectionCondition {
        guard let text = json.stringValue, !text.isEmpty else { throw SelectionTextError(message: "a condition is not a variable: \(json)") }
        return text.hasPrefix("!") ? .skip(if: String(text.dropFirst())) : .include(if: text)
    }

    private func field(_ parts: [JSONValue]) throws(SelectionTextError) -> Field {
        guard parts.count >= 2, let name = parts[0].stringValue, let typeText = parts[1].stringValue else {
            throw SelectionTextError(message: "a field is not [name, type]: \(parts)")
        }
        let options = parts.count > 2 ? parts[2].objectValue ?? [:] : [:]
        var arguments: [String: ArgumentValue] = [:]
        for (key, value) in options["args"]?.objectValue ?? [:] { arguments[key] = argument(value) }
        let catchTo: Field.CatchTo?
        switch options["catch"]?.stringValue {
        case nil: catchTo = nil
        case "null": catchTo = .null
        case "result": catchTo = .result
        case let other?: throw SelectionTextError(message: "unknown catch '\(other)'")
        }
        var typeScanner = Substring(typeText)
        let type = try outputType(&typeScanner)
        guard typeScanner.isEmpty else { throw SelectionTextError(message: "type '\(typeText)' of \(name) has extra text") }
        return Field(
            name, alias: options["alias"]?.stringValue, type, arguments: arguments,
            pagination: options["page"]?.arrayValue.map { Set($0.compactMap(\.stringValue)) },
            keyArgs: options["keys"]?.arrayValue.map { $0.compactMap(\.stringValue) }, catchTo: catchTo,
            cacheMaxAge: options["age"]?.intValue.map { .seconds(max(0, $0)) })
    }

    /// `2`, `2!`, `[2!]`, `[[2]]!`…
    private func outputType(_ text: inout Substring) throws(SelectionTextError) -> OutputType {
        var output: OutputType
        if text.first == "[" {
            text.removeFirst()
            output = .list(try outputType(&text))
            guard text.first == "]" else { throw SelectionTextError(message: "a list type is not closed") }
            text.removeFirst()
        } else {
            let digits = text.prefix { $0.isASCII && $0.isNumber }
            guard let index = Int(digits) else { throw SelectionTextError(message: "a type is not an index") }
            text.removeFirst(digits.count)
            let swiftType = try type(at: index)
            if let selectionSet = swiftType as? any SelectionSet.Type {
                output = .object(selectionSet)
            } else if let scalar = swiftType as? any GraphQLOutputValue.Type {
                output = .scalar(scalar)
            } else {
                throw SelectionTextError(message: "type \(index) (\(swiftType)) is neither a selection set nor a field value")
            }
        }
        if text.first == "!" {
            text.removeFirst()
            output = .nonNull(output)
        }
        return output
    }

    private func type(at index: Int) throws(SelectionTextError) -> Any.Type {
        guard types.indices.contains(index) else { throw SelectionTextError(message: "no type at \(index) of \(types.count)") }
        return types[index]
    }

    /// A literal stays one value; a variable (`{"$": "name"}`) anywhere inside makes the
    /// structure around it a list or object of arguments.
    private func argument(_ json: JSONValue) -> ArgumentValue {
        switch json {
        case .object(let object):
            if object.count == 1, let name = object["$"]?.stringValue { return .variable(name) }
            let fields = object.mapValues(argument)
            return fields.values.allSatisfy(\.isLiteral) ? .value(json) : .object(fields)
        case .array(let items):
            let values = items.map(argument)
            return values.allSatisfy(\.isLiteral) ? .value(json) : .list(values)
        default:
            return .value(json)
        }
    }
}

extension ArgumentValue {
    fileprivate var isLiteral: Bool {
        if case .value = self { return true }
        return false
    }
}
