import Foundation
import GraphQL

/// Cuts a whole schema into slices, one per domain plus a shared one.
///
/// A type's domain is its `@domain(name:)` (or, for schemas without the directive, the first
/// matching name prefix of the split config); `@domain(name: "shared")` makes it shared. A type
/// with neither belongs to the one domain that uses it, and is shared when several do (or none).
/// Root fields go where their `@domain` says, else where their return type (then their argument
/// types) belongs. A type owned by one domain and referenced by another is an error that names
/// both places, unless `moveConflictsToShared` moves it (and what it needs) to the shared slice.
public struct SchemaSplitter {
    /// How domains map to kits and name prefixes to domains.
    public struct Configuration: Sendable, Equatable {
        /// Domain → kit folder (`user` → `UserKit`); a domain not listed uses `<Domain>Kit`.
        public var kits: [String: String]
        /// The shared slice's kit folder.
        public var sharedKit: String
        /// Type-name prefix → domain, for types without `@domain` (longest prefix wins).
        public var prefixes: [String: String]

        /// A configuration.
        public init(kits: [String: String] = [:], sharedKit: String = "SharedKit", prefixes: [String: String] = [:]) {
            self.kits = kits
            self.sharedKit = sharedKit
            self.prefixes = prefixes
        }

        /// `{"kits": {...}, "sharedKit": "...", "prefixes": {...}}`, keys sorted, defaults left out.
        public var json: String {
            var object: [String: Any] = ["kits": kits]
            if sharedKit != "SharedKit" { object["sharedKit"] = sharedKit }
            if !prefixes.isEmpty { object["prefixes"] = prefixes }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return String(decoding: data, as: UTF8.self) + "\n"
        }

        /// Reads `{"kits": {...}, "sharedKit": "...", "prefixes": {...}}`.
        public static func load(from url: URL) throws(CodegenFailure) -> Configuration {
            guard let data = try? Data(contentsOf: url),
                let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            else {
                throw CodegenFailure([Diagnostic(file: url.path, message: "cannot read the split config (a JSON object with 'kits', 'sharedKit', 'prefixes')")])
            }
            for key in object.keys where !["kits", "sharedKit", "prefixes"].contains(key) {
                throw CodegenFailure([Diagnostic(file: url.path, message: "unknown key '\(key)' (expected 'kits', 'sharedKit', 'prefixes')")])
            }
            return Configuration(
                kits: object["kits"] as? [String: String] ?? [:],
                sharedKit: object["sharedKit"] as? String ?? "SharedKit",
                prefixes: object["prefixes"] as? [String: String] ?? [:])
        }

        /// The folder of the domain's kit.
        public func kit(for domain: String) -> String {
            kits[domain] ?? (domain.prefix(1).uppercased() + domain.dropFirst() + "Kit")
        }
    }

    /// One slice file.
    public struct Slice: Sendable, Equatable {
        /// `shared` or the domain.
        public var domain: String
        /// The path, relative to the output folder.
        public var path: String
        /// The SDL.
        public var contents: String
        /// The shared types it depends on.
        public var sharedDependencies: [String]
    }

    /// What a split produced.
    public struct Result: Sendable {
        /// The slices, shared first.
        public var slices: [Slice]
        /// Types moved to the shared slice to resolve conflicts.
        public var moved: [String]
    }

    static let shared = "shared"
    let configuration: Configuration
    let moveConflictsToShared: Bool
    let sourceName: String

    /// A splitter.
    public init(configuration: Configuration = Configuration(), moveConflictsToShared: Bool = false, sourceName: String = "schema.graphqls") {
        self.configuration = configuration
        self.moveConflictsToShared = moveConflictsToShared
        self.sourceName = sourceName
    }

    private struct Entry {
        var name: String
        var definition: any TypeDefinition
        var declared: String?
        var references: [(name: String, location: Location?)]
    }

    private struct RootField {
        var operation: String
        var definition: GraphQL.FieldDefinition
        var declared: String?
        var references: [(name: String, location: Location?)]
    }

    /// Splits the schema text.
    public func split(_ text: String) throws(CodegenFailure) -> Result {
        let source = Source(body: text, name: sourceName)
        let document: Document
        do {
            document = try parse(source: source)
        } catch let error as GraphQLError {
            throw CodegenFailure([Diagnostic(error, fallbackFile: sourceName)])
        } catch {
            throw CodegenFailure([Diagnostic(file: sourceName, message: "\(error)")])
        }
        var diagnostics: [Diagnostic] = []
        _ = SchemaModel.build(from: [document], diagnostics: &diagnostics)
        guard diagnostics.isEmpty else { throw CodegenFailure(diagnostics) }

        var rootNames: [String: String] = ["query": "Query", "mutation": "Mutation", "subscription": "Subscription"]
        for case let schema as SchemaDefinition in document.definitions {
            for operationType in schema.operationTypes { rootNames[operationType.operation.rawValue] = operationType.type.name.value }
        }
        let rootByName = Dictionary(uniqueKeysWithValues: rootNames.map { ($0.value, $0.key) })

        var entries: [Entry] = []
        var rootFields: [RootField] = []
        /// The directives on each root type, its extensions' included.
        var rootDirectives: [String: [Directive]] = [:]
        /// Directive definitions other than `@domain`'s: they go to the shared slice.
        var directiveDefinitions: [String] = []
        /// Extensions of the other types, which go where the type goes.
        var extensions: [String: [(location: Location?, references: [(name: String, location: Location?)])]] = [:]
        for definition in document.definitions {
            if let directive = definition as? DirectiveDefinition {
                if directive.name.value != "domain" { directiveDefinitions.append(Self.text(of: directive.loc, in: text)) }
                continue
            }
            guard let (type, location) = Self.typeDefinition(in: definition) else { continue }
            let name = type.name.value
            if let operation = rootByName[name], let object = type as? ObjectTypeDefinition {
                rootDirectives[operation, default: []] += object.directives
                for field in object.fields {
                    rootFields.append(RootField(
                        operation: operation, definition: field, declared: Self.domain(of: field.directives),
                        references: Self.references(of: field)))
                }
                continue
            }
            if let location {
                extensions[name, default: []].append((location, Self.references(of: type)))
                continue
            }
            entries.append(Entry(name: name, definition: type, declared: declaredDomain(of: type), references: Self.references(of: type)))
        }
        let index = Dictionary(uniqueKeysWithValues: entries.enumerated().map { ($1.name, $0) })
        for (name, found) in extensions {
            // What an extension uses counts as used by its type (an extension of a type the file
            // does not define was refused by the schema check above).
            if let position = index[name] { entries[position].references += found.flatMap(\.references) }
        }

        // Undeclared types belong to the domains that use them, found by propagation.
        var users: [String: Set<String>] = [:]
        func domains(ofType name: String) -> Set<String> {
            guard let position = index[name] else { return [] }
            if let declared = entries[position].declared { return [declared] }
            return users[name] ?? []
        }
        func rootDomain(_ field: RootField) -> String {
            if let declared = field.declared { return declared }
            for reference in field.references {
                let found = domains(ofType: reference.name)
                if found.count == 1, let only = found.first, index[reference.name].map({ entries[$0].declared != nil }) == true {
                    return only
                }
            }
            for reference in field.references {
                let found = domains(ofType: reference.name)
                if found.count == 1, let only = found.first { return only }
            }
            return Self.shared
        }
        var changed = true
        var rounds = 0
        while changed && rounds < entries.count + 2 {
            changed = false
            rounds += 1
            var next = users
            for entry in entries {
                let from = entry.declared.map { Set([$0]) } ?? (users[entry.name] ?? [])
                for reference in entry.references where index[reference.name].map({ entries[$0].declared == nil }) == true {
                    let before = next[reference.name] ?? []
                    let after = before.union(from)
                    if after != before { next[reference.name] = after; changed = true }
                }
            }
            for field in rootFields {
                let domain = rootDomain(field)
                for reference in field.references where index[reference.name].map({ entries[$0].declared == nil }) == true {
                    let before = next[reference.name] ?? []
                    let after = before.union([domain])
                    if after != before { next[reference.name] = after; changed = true }
                }
            }
            users = next
        }
        var assigned: [String: String] = [:]
        for entry in entries {
            if let declared = entry.declared {
                assigned[entry.name] = declared
            } else {
                let found = (users[entry.name] ?? []).subtracting([Self.shared])
                assigned[entry.name] = found.count == 1 && users[entry.name]?.contains(Self.shared) != true ? found.first! : Self.shared
            }
        }

        // A domain type referenced from another domain, or from the shared slice, is a conflict.
        var moved: [String] = []
        var conflicts: [Diagnostic] = []
        var resolving = true
        while resolving {
            resolving = false
            conflicts = []
            func check(_ fromDomain: String, _ fromDescription: String, _ references: [(name: String, location: Location?)]) {
                for reference in references {
                    guard let target = assigned[reference.name], target != Self.shared, target != fromDomain else { continue }
                    if moveConflictsToShared {
                        assigned[reference.name] = Self.shared
                        moved.append(reference.name)
                        resolving = true
                        continue
                    }
                    let targetLocation = index[reference.name].flatMap { entries[$0].definition.name.loc }
                    conflicts.append(Diagnostic(
                        at: reference.location, fallbackFile: sourceName,
                        "\(fromDescription) references \(target) type '\(reference.name)' (defined at \(Self.position(targetLocation))): "
                            + "a type owned by one domain cannot be used by another; mark it @domain(name: \"shared\") or split with --move-to-shared"))
                }
            }
            for entry in entries {
                let domain = assigned[entry.name] ?? Self.shared
                check(domain, "\(domain) type '\(entry.name)'", entry.references)
            }
            for field in rootFields {
                let domain = rootDomain(field)
                check(domain, "\(domain) root field '\(rootNames[field.operation] ?? field.operation).\(field.definition.name.value)'", field.references)
            }
        }
        guard conflicts.isEmpty else { throw CodegenFailure(conflicts) }

        // Write the slices, in the schema's own order.
        let allDomains = Set(assigned.values).union(rootFields.map(rootDomain)).subtracting([Self.shared]).sorted()
        var slices: [Slice] = []
        for domain in [Self.shared] + allDomains {
            var parts: [String] = []
            var dependencies: Set<String> = []
            if domain == Self.shared { parts += directiveDefinitions }
            for entry in entries where assigned[entry.name] == domain {
                parts.append(Self.text(of: entry.definition.loc, in: text))
                parts += (extensions[entry.name] ?? []).map { Self.text(of: $0.location, in: text) }
                for reference in entry.references where assigned[reference.name] == Self.shared && domain != Self.shared {
                    dependencies.insert(reference.name)
                }
            }
            for operation in ["query", "mutation", "subscription"] {
                guard let rootName = rootNames[operation], index[rootName] == nil,
                    document.definitions.contains(where: { ($0 as? ObjectTypeDefinition)?.name.value == rootName })
                else { continue }
                let fields = rootFields.filter { $0.operation == operation && rootDomain($0) == domain }
                for field in fields {
                    for reference in field.references where assigned[reference.name] == Self.shared && domain != Self.shared {
                        dependencies.insert(reference.name)
                    }
                }
                let body = fields.map { field in
                    Self.text(of: field.definition.loc, in: text).split(separator: "\n", omittingEmptySubsequences: false)
                        .map { "  " + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
                }
                let directives = Self.rootDirectiveText(rootDirectives[operation] ?? [], in: text, domain: domain) { name in
                    rootFields.first { $0.operation == operation && $0.definition.name.value == name }.map(rootDomain) ?? Self.shared
                }
                let fieldList = body.isEmpty ? "" : " {\n" + body.joined(separator: "\n") + "\n}"
                if domain == Self.shared {
                    parts.append("type \(rootName)\(directives)\(fieldList)")
                } else if !body.isEmpty || !directives.isEmpty {
                    parts.append("extend type \(rootName)\(directives)\(fieldList)")
                }
            }
            let kit = domain == Self.shared ? configuration.sharedKit : configuration.kit(for: domain)
            var header = "# @generated by apicore-codegen split-schema from \(sourceName). DO NOT EDIT: edit \(sourceName) and run scripts/generate.sh.\n"
            if domain == Self.shared {
                header += "# Shared: the types more than one domain uses, and the root types the domain slices extend.\n"
            } else {
                header += "# Domain: \(domain) (\(kit)).\n"
                header += "# Depends on shared types: \(dependencies.isEmpty ? "none" : dependencies.sorted().joined(separator: ", ")).\n"
            }
            slices.append(Slice(
                domain: domain, path: "\(kit)/GraphQL/Schema/\(domain)-schema.graphqls",
                contents: header + "\n" + parts.joined(separator: "\n\n") + "\n", sharedDependencies: dependencies.sorted()))
        }
        return Result(slices: slices, moved: Array(Set(moved)).sorted())
    }

    /// Writes the slices under `output`; with `check`, writes nothing and answers the paths that
    /// would change.
    public static func write(_ result: Result, to output: URL, check: Bool) throws(CodegenFailure) -> [String] {
        var changed: [String] = []
        for slice in result.slices {
            let url = output.appendingPathComponent(slice.path)
            if (try? String(contentsOf: url, encoding: .utf8)) == slice.contents { continue }
            changed.append(slice.path)
            if check { continue }
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try slice.contents.write(to: url, atomically: true, encoding: .utf8)
            } catch {
                throw CodegenFailure([Diagnostic(file: slice.path, message: "cannot write the slice (\(error.localizedDescription))")])
            }
        }
        return changed
    }

    // MARK: Helpers

    /// A type definition, or the definition inside a type extension with the extension's place.
    static func typeDefinition(in definition: any Definition) -> (any TypeDefinition, extension: Location?)? {
        switch definition {
        case let type as any TypeDefinition: return (type, nil)
        case let ext as TypeExtensionDefinition: return (ext.definition, ext.loc)
        case let ext as InterfaceExtensionDefinition: return (ext.definition, ext.loc)
        case let ext as UnionExtensionDefinition: return (ext.definition, ext.loc)
        case let ext as EnumExtensionDefinition: return (ext.definition, ext.loc)
        case let ext as InputObjectExtensionDefinition: return (ext.definition, ext.loc)
        case let ext as ScalarExtensionDefinition: return (ext.definition, ext.loc)
        default: return nil
        }
    }

    /// The directives a root type carries in the slice of `domain`: `@typePolicy(connectionFields:)`
    /// names only that slice's fields; the other directives (but `@domain`) stay on the shared
    /// slice's root type.
    private static func rootDirectiveText(_ directives: [Directive], in text: String, domain: String, domainOfField: (String) -> String) -> String {
        var texts: [String] = []
        for directive in directives where directive.name.value != "domain" {
            guard directive.name.value == "typePolicy" else {
                if domain == Self.shared { texts.append(Self.text(of: directive.loc, in: text)) }
                continue
            }
            var arguments: [String] = []
            if domain == Self.shared, let keys = SchemaModel.policyList("keyFields", [directive]) {
                arguments.append("keyFields: \"\(keys.joined(separator: " "))\"")
            }
            let connections = (SchemaModel.policyList("connectionFields", [directive]) ?? []).filter { domainOfField($0) == domain }
            if !connections.isEmpty { arguments.append("connectionFields: \"\(connections.joined(separator: " "))\"") }
            if !arguments.isEmpty { texts.append("@typePolicy(\(arguments.joined(separator: ", ")))") }
        }
        return texts.map { " " + $0 }.joined()
    }

    static func directives(of type: any TypeDefinition) -> [Directive] {
        switch type {
        case let object as ObjectTypeDefinition: return object.directives
        case let interface as InterfaceTypeDefinition: return interface.directives
        case let union as UnionTypeDefinition: return union.directives
        case let enumeration as EnumTypeDefinition: return enumeration.directives
        case let input as InputObjectTypeDefinition: return input.directives
        case let scalar as ScalarTypeDefinition: return scalar.directives
        default: return []
        }
    }

    private func declaredDomain(of type: any TypeDefinition) -> String? {
        if let declared = Self.domain(of: Self.directives(of: type)) { return declared }
        let name = type.name.value
        return configuration.prefixes.filter { name.hasPrefix($0.key) }.max { $0.key.count < $1.key.count }?.value
    }

    static func domain(of directives: [Directive]) -> String? {
        guard let directive = directives.first(where: { $0.name.value == "domain" }),
            let value = directive.arguments.first(where: { $0.name.value == "name" })?.value as? StringValue
        else { return nil }
        return value.value
    }

    private static func references(of field: GraphQL.FieldDefinition) -> [(name: String, location: Location?)] {
        [(TypeRef(field.type).namedType, field.type.loc)] + field.arguments.map { (TypeRef($0.type).namedType, $0.type.loc) }
    }

    private static func references(of type: any TypeDefinition) -> [(name: String, location: Location?)] {
        var result: [(name: String, location: Location?)] = []
        switch type {
        case let object as ObjectTypeDefinition:
            result += object.interfaces.map { ($0.name.value, $0.loc) }
            result += object.fields.flatMap(references(of:))
        case let interface as InterfaceTypeDefinition:
            result += interface.interfaces.map { ($0.name.value, $0.loc) }
            result += interface.fields.flatMap(references(of:))
        case let union as UnionTypeDefinition:
            result += union.types.map { ($0.name.value, $0.loc) }
        case let input as InputObjectTypeDefinition:
            result += input.fields.map { (TypeRef($0.type).namedType, $0.type.loc) }
        default:
            break
        }
        return result.filter { !SchemaModel.builtInScalars.contains($0.name) }
    }

    private static func position(_ location: Location?) -> String { location?.position ?? "?" }

    /// The source text of a definition (its description included), without `@domain(...)`.
    static func text(of location: Location?, in text: String) -> String {
        guard let location else { return "" }
        let utf8 = Array(text.utf8)
        let slice = String(decoding: utf8[location.start..<min(location.end, utf8.count)], as: UTF8.self)
        return slice.replacingOccurrences(of: #"\s*@domain\(\s*name:\s*"[^"]*"\s*\)"#, with: "", options: .regularExpression)
    }
}
