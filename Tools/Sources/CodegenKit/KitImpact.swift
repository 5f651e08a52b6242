import Foundation
import GraphQL

/// What a schema change does to one kit: the places in its operations that a breaking change
/// breaks, and those a dangerous change may affect.
public struct KitImpact: Sendable {
    /// One place in an operation or fragment, and the change that reaches it.
    public struct Finding: Sendable, Hashable, Comparable {
        /// `query Households`, `fragment HouseholdFields`.
        public var definition: String
        /// `file:line:column` in the operation file.
        public var position: String
        /// The schema coordinate the operation uses (`Household.name`), empty when only the
        /// validation against the new schema found the problem.
        public var coordinate: String
        /// Why: the schema change's message, or the validation error.
        public var reason: String
        /// The change's kind (`FIELD_REMOVED`), or `INVALID_OPERATION` for a validation error.
        public var kind: String
        /// For a fragment, the kit's operations that spread it (directly or through other
        /// fragments), which the change reaches too: `["query Household", …]`.
        public var operations: [String] = []

        /// By position.
        public static func < (lhs: Finding, rhs: Finding) -> Bool {
            (lhs.position, lhs.coordinate, lhs.kind) < (rhs.position, rhs.coordinate, rhs.kind)
        }
    }

    /// The kit's folder (the config's directory name).
    public var kit: String
    /// The config file, as given.
    public var config: String
    /// Who owns the kit, from `CODEOWNERS` (empty when no rule names it).
    public var owners: [String]
    /// What breaks.
    public var breaks: [Finding]
    /// What a dangerous change may affect.
    public var warnings: [Finding]
}

extension SchemaComparison {
    /// What the changes do to the operations of the kit whose config is at `configURL`: each
    /// operation and fragment is walked against the old schema, and every field, argument and type
    /// it uses is matched with the changes; then the operations are validated against the new
    /// schema, which catches whatever else no longer holds. `owners` names who owns the kit.
    public func impact(onKitAt configURL: URL, owners: CodeOwners?) throws(CodegenFailure) -> KitImpact {
        let configuration = try Codegen.configuration(at: configURL)
        let base = configuration.baseURL
        let operationFiles = Glob(configuration.operationSearchPaths).files(in: base).compactMap { path in
            (try? String(contentsOf: Glob.resolve(path, in: base), encoding: .utf8)).map { (path: Glob.displayPath(path, in: base), text: $0) }
        }
        var breaks: Set<KitImpact.Finding> = []
        var warnings: Set<KitImpact.Finding> = []
        var definitions: [(file: String, range: ClosedRange<Int>, name: String)] = []
        var spreads: [String: Set<String>] = [:]
        for file in operationFiles {
            guard let document = try? parse(source: Source(body: file.text, name: file.path)) else { continue }
            var walker = UsageWalker(schema: old, roots: old.roots)
            walker.walk(document)
            definitions += walker.definitions.map { (file.path, $0.lines, $0.name) }
            spreads.merge(walker.spreads) { $0.union($1) }
            for usage in walker.usages {
                for change in changes where change.severity != .safe && matches(change, usage) {
                    let finding = KitImpact.Finding(
                        definition: usage.definition, position: usage.location?.position ?? file.path, coordinate: usage.coordinate,
                        reason: change.message, kind: change.kind)
                    if change.severity == .breaking { breaks.insert(finding) } else { warnings.insert(finding) }
                }
            }
        }
        // The validation against the new schema, for what the walk did not name.
        do {
            _ = try Compilation.compile(schema: Compilation.schema(from: [newFile]), operationFiles: operationFiles)
        } catch {
            let found = Set(breaks.map { $0.position })
            for diagnostic in error.diagnostics where diagnostic.line > 0 {
                let position = "\(diagnostic.file):\(diagnostic.line):\(diagnostic.column)"
                guard !found.contains(position) else { continue }
                let definition = definitions.first { $0.file == diagnostic.file && $0.range.contains(diagnostic.line) }?.name ?? "document"
                breaks.insert(KitImpact.Finding(definition: definition, position: position, coordinate: "", reason: diagnostic.message, kind: "INVALID_OPERATION"))
            }
        }
        let users = Self.operations(spreading: spreads)
        func named(_ findings: Set<KitImpact.Finding>) -> [KitImpact.Finding] {
            findings.sorted().map { finding in
                var finding = finding
                finding.operations = users[finding.definition] ?? []
                return finding
            }
        }
        let directory = configURL.deletingLastPathComponent().standardizedFileURL
        return KitImpact(
            kit: directory.lastPathComponent, config: Glob.displayPath(configURL.path, in: base), owners: owners?.owners(of: directory) ?? [],
            breaks: named(breaks), warnings: named(warnings))
    }

    /// For each fragment (`fragment Name`), the operations that reach it through spreads, sorted;
    /// `spreads` gives the fragments each definition spreads itself.
    static func operations(spreading spreads: [String: Set<String>]) -> [String: [String]] {
        var users: [String: Set<String>] = [:]
        for operation in spreads.keys where !operation.hasPrefix("fragment ") {
            var pending = Array(spreads[operation] ?? [])
            var reached: Set<String> = []
            while let fragment = pending.popLast() {
                guard reached.insert(fragment).inserted else { continue }  // cycles are invalid, but must not loop
                users[fragment, default: []].insert(operation)
                pending += spreads[fragment] ?? []
            }
        }
        return users.mapValues { $0.sorted() }
    }

    /// Whether a change reaches what a use of the schema names.
    private func matches(_ change: SchemaChange, _ usage: UsageWalker.Usage) -> Bool {
        switch change.kind {
        case "TYPE_REMOVED", "TYPE_CHANGED_KIND", "TYPE_REMOVED_FROM_UNION", "TYPE_ADDED_TO_UNION",
            "IMPLEMENTED_INTERFACE_REMOVED", "IMPLEMENTED_INTERFACE_ADDED", "VALUE_REMOVED_FROM_ENUM", "VALUE_ADDED_TO_ENUM":
            // The generated code holds the whole type: its cases, its possible types.
            return usage.coordinate == change.typeName
        case "REQUIRED_ARG_ADDED", "OPTIONAL_ARG_ADDED", "ARG_DEFAULT_VALUE_CHANGE":
            // These reach every use of the field (a default matters most where it is not passed).
            return usage.coordinate == String(change.coordinate.prefix { $0 != "(" })
        default:
            // A field or an input field: an input object's generated struct holds every field.
            if let type = change.typeName, old.types[type]?.kind == .inputObject || new.types[type]?.kind == .inputObject {
                return usage.coordinate == type
            }
            return usage.coordinate == change.coordinate
        }
    }
}

/// The schema coordinates an operation document uses, each with where.
struct UsageWalker {
    struct Usage {
        /// `Type.field`, `Type.field(argument:)` or `Type`.
        var coordinate: String
        var location: Location?
        var definition: String
    }

    let schema: SchemaIndex
    let roots: [String: String]
    var usages: [Usage] = []
    var definitions: [(name: String, lines: ClosedRange<Int>)] = []
    /// The fragments (`fragment Name`) each definition spreads itself, at any depth of its selections.
    var spreads: [String: Set<String>] = [:]

    init(schema: SchemaIndex, roots: [String: String]) {
        self.schema = schema
        self.roots = roots
    }

    mutating func walk(_ document: Document) {
        for definition in document.definitions {
            switch definition {
            case let operation as OperationDefinition:
                let name = "\(operation.operation.rawValue) \(operation.name?.value ?? "(anonymous)")"
                record(name, operation.loc)
                guard let root = roots[operation.operation.rawValue] else { continue }
                for variable in operation.variableDefinitions {
                    useInput(TypeRef(variable.type).namedType, at: variable.loc, in: name, seen: [])
                }
                walk(operation.selectionSet, on: root, in: name)
            case let fragment as FragmentDefinition:
                let name = "fragment \(fragment.name.value)"
                record(name, fragment.loc)
                let type = fragment.typeCondition.name.value
                usages.append(Usage(coordinate: type, location: fragment.typeCondition.loc, definition: name))
                walk(fragment.selectionSet, on: type, in: name)
            default:
                continue
            }
        }
    }

    private mutating func record(_ name: String, _ location: Location?) {
        guard let location else { return }
        // The lines from the source text: a location's end token is not always its last one.
        let body = Array(location.source.body.utf8)
        let last = body[..<min(location.end, body.count)].count { $0 == UInt8(ascii: "\n") } + 1
        definitions.append((name, location.startToken.line...max(location.startToken.line, last)))
    }

    private mutating func walk(_ selectionSet: SelectionSet, on parent: String, in definition: String) {
        for selection in selectionSet.selections {
            switch selection {
            case let field as GraphQL.Field:
                let name = field.name.value
                guard !name.hasPrefix("__"), let found = schema.types[parent]?.field(name) else { continue }
                let coordinate = "\(parent).\(name)"
                // At the field's start (its alias, if any), where validation places its errors.
                let place = field.loc ?? field.name.loc
                usages.append(Usage(coordinate: coordinate, location: place, definition: definition))
                for argument in field.arguments {
                    usages.append(Usage(coordinate: "\(coordinate)(\(argument.name.value):)", location: argument.loc, definition: definition))
                }
                let type = found.type.namedType
                usages.append(Usage(coordinate: type, location: place, definition: definition))
                if let nested = field.selectionSet { walk(nested, on: type, in: definition) }
            case let inline as InlineFragment:
                let type = inline.typeCondition?.name.value ?? parent
                if let condition = inline.typeCondition { usages.append(Usage(coordinate: type, location: condition.loc, definition: definition)) }
                walk(inline.selectionSet, on: type, in: definition)
            case let spread as FragmentSpread:
                // Its definition is walked on its own; what reaches it is noted.
                spreads[definition, default: []].insert("fragment \(spread.name.value)")
            default:
                continue
            }
        }
    }

    /// A variable's type, and the input objects it holds (their generated structs hold them all).
    private mutating func useInput(_ type: String, at location: Location?, in definition: String, seen: Set<String>) {
        guard !seen.contains(type) else { return }
        usages.append(Usage(coordinate: type, location: location, definition: definition))
        for (_, value) in schema.types[type]?.inputFields ?? [] {
            useInput(value.type.namedType, at: location, in: definition, seen: seen.union([type]))
        }
    }
}

/// A `CODEOWNERS` file: patterns and owners, the last matching pattern winning.
public struct CodeOwners: Sendable {
    private let rules: [(pattern: String, owners: [String])]
    private let root: URL

    /// Reads the file at `url`; its directory is the root its patterns start from.
    public init(contentsOf url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        rules = text.split(separator: "\n").compactMap { line in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let pattern = words.first, !pattern.hasPrefix("#") else { return nil }
            return (pattern, Array(words.dropFirst().prefix { !$0.hasPrefix("#") }))
        }
        var directory = url.deletingLastPathComponent().standardizedFileURL
        if [".github", "docs"].contains(directory.lastPathComponent) { directory = directory.deletingLastPathComponent() }
        root = directory
    }

    /// The owners of a directory (or file) under the root, by the last rule that matches it.
    public func owners(of url: URL) -> [String] {
        let absolute = url.standardizedFileURL.path
        let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
        guard absolute.hasPrefix(prefix) || absolute + "/" == prefix else { return [] }
        let path = String(absolute.dropFirst(min(prefix.count, absolute.count))) + (url.hasDirectoryPath || isDirectory(absolute) ? "/" : "")
        return rules.last { matches($0.pattern, path) }?.owners ?? []
    }

    private func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }

    /// Gitignore-style, as far as owners files use it: `*`, `/anchored/`, `folder/`, `*.ext`, a file.
    private func matches(_ pattern: String, _ path: String) -> Bool {
        if pattern == "*" || pattern == "/*" || pattern == "**" { return true }
        let anchored = pattern.hasPrefix("/") || pattern.dropLast().contains("/")
        let body = pattern.hasPrefix("/") ? String(pattern.dropFirst()) : pattern
        if body.hasPrefix("*.") { return path.hasSuffix(String(body.dropFirst())) }
        let candidates = anchored ? [path] : suffixes(of: path)
        return candidates.contains { candidate in
            body.hasSuffix("/") ? candidate.hasPrefix(body) : (candidate == body || candidate.hasPrefix(body + "/"))
        }
    }

    /// The path and every path it has below a folder of it (an unanchored pattern matches at any depth).
    private func suffixes(of path: String) -> [String] {
        var result = [path]
        var rest = Substring(path)
        while let slash = rest.firstIndex(of: "/"), rest.index(after: slash) < rest.endIndex {
            rest = rest[rest.index(after: slash)...]
            result.append(String(rest))
        }
        return result
    }
}
