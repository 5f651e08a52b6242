import Foundation
import GraphQL

/// Plans a new feature kit from the whole schema: marks the types it is given with the kit's
/// domain, checks that the domain then has a slice of its own, and picks a first query over the
/// domain's types (a root field returning one of them whose required arguments are built-in
/// scalars) with the built-in scalar fields of the type it returns. ``files`` then writes the
/// kit's package around that query; `scripts/new-kit.sh` registers it and generates its code.
public struct KitScaffold: Sendable {
    /// What to create.
    public struct Request: Sendable {
        /// The package, target and folder name (`RecipeKit`).
        public var name: String
        /// The `@domain(name:)` its types carry.
        public var domain: String
        /// Who owns it (`@org/team`), for its README.
        public var owner: String
        /// Types to mark with the domain first (those already marked with it are left as they are).
        public var types: [String]

        /// A request.
        public init(name: String, domain: String, owner: String, types: [String] = []) {
            self.name = name
            self.domain = domain
            self.owner = owner
            self.types = types
        }

        /// Refuses a name that is no Swift identifier or names a module kits already import, a domain
        /// that is no GraphQL name or is `shared`, and an owner CODEOWNERS would not take.
        public func validate() throws(CodegenFailure) {
            var problems: [String] = []
            if name.wholeMatch(of: /[A-Za-z_][A-Za-z0-9_]*/) == nil || SwiftNames.keywords.contains(name) {
                problems.append("'\(name)' is not a Swift identifier (letters, digits and _, not starting with a digit), so it cannot name a package and module")
            } else if ["APICore", "APICoreKit", "SharedKit", "Foundation", "Testing", "Pantry", "Tools"].contains(name) || name.hasPrefix("APICore") {
                problems.append("'\(name)' is taken by a module the kits already use")
            }
            if domain.wholeMatch(of: /[a-z][A-Za-z0-9_]*/) == nil {
                problems.append("the domain '\(domain)' must be a lower-case GraphQL name (recipe, meal_plan)")
            } else if domain == SchemaSplitter.shared {
                problems.append("the domain 'shared' is SharedKit's")
            }
            if owner.wholeMatch(of: /@[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)?|[^@\s]+@[^@\s]+/) == nil {
                problems.append("the owner '\(owner)' is not a CODEOWNERS owner (@org/team, @user or an e-mail address)")
            }
            guard problems.isEmpty else { throw CodegenFailure(problems.map { Diagnostic(file: "new-kit", message: $0) }) }
        }

        /// The kit's name without `Kit` (`Recipe`): its repository, service and namespace start with it.
        var base: String { name.hasSuffix("Kit") && name.count > 3 ? String(name.dropLast(3)) : name }
    }

    /// A field the first query selects, or an argument it passes.
    struct Value: Sendable {
        var name: String
        var type: TypeRef
    }

    /// The first query.
    struct Query: Sendable {
        /// `Recipes`: the operation's name (`RecipesQuery` in Swift).
        var operationName: String
        /// The root field it selects.
        var field: String
        /// What the root field returns.
        var returns: TypeRef
        /// Its required arguments, passed as variables of the same names.
        var arguments: [Value]
        /// The fragment's type condition (the model is named after it).
        var typeName: String
        /// An object type an answer can name in `__typename` (the type itself, or one implementing it).
        var concreteType: String
        /// The built-in scalar fields the fragment selects.
        var fields: [Value]

        var fragmentName: String { typeName + "Details" }
    }

    /// What ``plan(_:schema:schemaName:split:)`` decided.
    public struct Plan: Sendable {
        /// The schema with the given types marked (the text given when none needed marking).
        public var schema: String
        /// The types it marked.
        public var marked: [String]
        /// The slice the kit gets, relative to the repository (`RecipeKit/GraphQL/Schema/recipe-schema.graphqls`).
        public var slicePath: String
        var request: Request
        var query: Query
    }

    static let builtInSwiftTypes = ["ID": "String", "String": "String", "Int": "Int", "Float": "Double", "Boolean": "Bool"]

    /// Marks the requested types, splits the schema and picks the first query. Every failure names
    /// the schema file, and the line and column where one applies.
    public static func plan(
        _ request: Request, schema text: String, schemaName: String = "schema.graphqls", split configuration: SchemaSplitter.Configuration
    ) throws(CodegenFailure) -> Plan {
        let (marked, names) = try mark(request.types, domain: request.domain, in: text, schemaName: schemaName)
        var kits = configuration
        kits.kits[request.domain] = request.name
        let result = try SchemaSplitter(configuration: kits, sourceName: schemaName).split(marked)
        guard let slice = result.slices.first(where: { $0.domain == request.domain }) else {
            throw CodegenFailure([Diagnostic(file: schemaName, message: """
                no type carries @domain(name: "\(request.domain)"), so the kit would have no schema of its own: \
                mark its types with the directive, or name them with --types
                """)])
        }
        let document = try parse(marked, name: schemaName)
        let query = try firstQuery(domain: request.domain, slice: slice.contents, schema: SchemaIndex(document), schemaName: schemaName)
        return Plan(schema: marked, marked: names, slicePath: slice.path, request: request, query: query)
    }

    static func parse(_ text: String, name: String) throws(CodegenFailure) -> Document {
        do {
            return try GraphQL.parse(source: Source(body: text, name: name))
        } catch let error as GraphQLError {
            throw CodegenFailure([Diagnostic(error, fallbackFile: name)])
        } catch {
            throw CodegenFailure([Diagnostic(file: name, message: "\(error)")])
        }
    }

    // MARK: Marking

    /// Adds `@domain(name: "<domain>")` to each named type's definition (after its name, interfaces
    /// and other directives), leaving the rest of the text as it is.
    static func mark(_ types: [String], domain: String, in text: String, schemaName: String) throws(CodegenFailure) -> (String, [String]) {
        guard !types.isEmpty else { return (text, []) }
        let document = try parse(text, name: schemaName)
        var roots: Set<String> = ["Query", "Mutation", "Subscription"]
        for case let schema as SchemaDefinition in document.definitions {
            roots.formUnion(schema.operationTypes.map(\.type.name.value))
        }
        var bytes = Array(text.utf8)
        var insertions: [(offset: Int, name: String)] = []
        var diagnostics: [Diagnostic] = []
        for name in types {
            if roots.contains(name) {
                diagnostics.append(Diagnostic(file: schemaName, message: "'\(name)' is a root type: mark its fields with @domain, not the type"))
                continue
            }
            guard let type = document.definitions.lazy.compactMap({ $0 as? any TypeDefinition }).first(where: { $0.name.value == name }) else {
                let known = SchemaModel.builtInScalars.contains(name) ? " ('\(name)' is a built-in scalar)" : ""
                diagnostics.append(Diagnostic(file: schemaName, message: "--types names '\(name)', which the schema does not define\(known)"))
                continue
            }
            let directives = SchemaSplitter.directives(of: type)
            if let owner = SchemaSplitter.domain(of: directives) {
                if owner != domain {
                    diagnostics.append(Diagnostic(at: type.name.loc, fallbackFile: schemaName, "type \(name) already belongs to the domain '\(owner)'"))
                }
                continue
            }
            var ends = [type.name.loc?.end] + directives.map { $0.loc.map { directiveEnd(in: bytes, from: $0.start) } }
            if let object = type as? ObjectTypeDefinition { ends += object.interfaces.map(\.name.loc?.end) }
            if let interface = type as? InterfaceTypeDefinition { ends += interface.interfaces.map(\.name.loc?.end) }
            guard let offset = ends.compactMap({ $0 }).max() else { continue }
            insertions.append((offset, name))
        }
        guard diagnostics.isEmpty else { throw CodegenFailure(diagnostics) }
        for insertion in insertions.sorted(by: { $0.offset > $1.offset }) {
            bytes.insert(contentsOf: Array(" @domain(name: \"\(domain)\")".utf8), at: insertion.offset)
        }
        return (String(decoding: bytes, as: UTF8.self), insertions.map(\.name).sorted())
    }

    /// Where the directive starting at `start` ends: after its name, or after the `)` closing its
    /// arguments (strings skipped). GraphQLSwift's locations of directives end at their first token.
    static func directiveEnd(in bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count, bytes[index] == UInt8(ascii: "_") || (bytes[index] < 128 && Character(UnicodeScalar(bytes[index])).isLetter)
            || (bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")) { index += 1 }
        let nameEnd = index
        while index < bytes.count, [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(bytes[index]) { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "(") else { return nameEnd }
        var inString = false
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\") where inString: index += 1
            case UInt8(ascii: "\""): inString.toggle()
            case UInt8(ascii: ")") where !inString: return index + 1
            default: break
            }
            index += 1
        }
        return nameEnd
    }

    // MARK: The first query

    /// The fields, interfaces and kinds of the schema's types, extensions merged.
    struct SchemaIndex {
        var fields: [String: [GraphQL.FieldDefinition]] = [:]
        var objects: [String: [String]] = [:]  // object type → its interfaces, in order of definition
        var interfaces: Set<String> = []
        var queryRoot = "Query"

        init(_ document: Document) {
            for definition in document.definitions {
                if let schema = definition as? SchemaDefinition {
                    queryRoot = schema.operationTypes.first { $0.operation == .query }?.type.name.value ?? queryRoot
                }
                guard let (type, _) = SchemaSplitter.typeDefinition(in: definition) else { continue }
                let name = type.name.value
                switch type {
                case let object as ObjectTypeDefinition:
                    fields[name, default: []] += object.fields
                    objects[name, default: []] += object.interfaces.map(\.name.value)
                case let interface as InterfaceTypeDefinition:
                    fields[name, default: []] += interface.fields
                    interfaces.insert(name)
                default: break
                }
            }
        }

        /// `type` itself when it is an object, else the first object implementing it.
        func concreteType(of type: String) -> String? {
            if objects[type] != nil { return type }
            guard interfaces.contains(type) else { return nil }
            return objects.keys.sorted().first { objects[$0]?.contains(type) == true }
        }
    }

    static func required(_ argument: InputValueDefinition) -> Bool {
        TypeRef(argument.type).isNonNull && argument.defaultValue == nil
    }

    /// A type the Swift side can hold as a built-in value: a built-in scalar, or a list of them.
    static func isBuiltInLeaf(_ type: TypeRef) -> Bool {
        switch type.nullable {
        case .named(let name): return builtInSwiftTypes[name] != nil
        case .list(let element): return !element.nullable.isList && builtInSwiftTypes[element.namedType] != nil
        case .nonNull: return false
        }
    }

    static func firstQuery(domain: String, slice: String, schema: SchemaIndex, schemaName: String) throws(CodegenFailure) -> Query {
        let sliceDocument = try parse(slice, name: schemaName)
        var rootFields: [GraphQL.FieldDefinition] = []
        for definition in sliceDocument.definitions {
            if let (type, _) = SchemaSplitter.typeDefinition(in: definition), type.name.value == schema.queryRoot, let object = type as? ObjectTypeDefinition {
                rootFields += object.fields
            }
        }
        var candidates: [Query] = []
        var rejected: [String] = []
        for field in rootFields {
            let returns = TypeRef(field.type)
            let arguments = field.arguments.filter(required)
            let element = returns.nullable.isList ? (returns.nullable.listElement ?? returns) : returns
            let typeName = returns.namedType
            guard arguments.allSatisfy({ builtInSwiftTypes[TypeRef($0.type).nullable.description] != nil }) else {
                rejected.append("\(field.name.value): a required argument is not a built-in scalar")
                continue
            }
            guard !element.nullable.isList, let concrete = schema.concreteType(of: typeName) else {
                rejected.append("\(field.name.value): returns \(returns), not an object, an interface with an implementation, or a list of one")
                continue
            }
            let leaves = (schema.fields[typeName] ?? []).filter { !$0.arguments.contains(where: required) && isBuiltInLeaf(TypeRef($0.type)) }
            guard !leaves.isEmpty else {
                rejected.append("\(field.name.value): \(typeName) has no field of a built-in scalar type")
                continue
            }
            candidates.append(Query(
                operationName: field.name.value.prefix(1).uppercased() + field.name.value.dropFirst(), field: field.name.value, returns: returns,
                arguments: arguments.map { Value(name: $0.name.value, type: TypeRef($0.type)) }, typeName: typeName, concreteType: concrete,
                fields: leaves.map { Value(name: $0.name.value, type: TypeRef($0.type)) }))
        }
        // A list without arguments first (the kit's overview), then the fewest arguments.
        if let best = candidates.enumerated().min(by: { rank($0.element, $0.offset) < rank($1.element, $1.offset) })?.element { return best }
        let why = rejected.isEmpty ? "the domain has no \(schema.queryRoot) field" : "none fits (" + rejected.joined(separator: "; ") + ")"
        throw CodegenFailure([Diagnostic(file: schemaName, message: """
            no first query for the domain '\(domain)': it needs a \(schema.queryRoot) field returning one of its types (or a list of them) \
            whose required arguments are built-in scalars, and \(why); add one to the schema, or mark the types such a field returns
            """)])
    }

    private static func rank(_ query: Query, _ position: Int) -> (Int, Int, Int) {
        (query.arguments.count, query.returns.nullable.isList ? 0 : 1, position)
    }
}

extension TypeRef {
    /// A list's element type, `nil` for anything else.
    var listElement: TypeRef? {
        if case .list(let element) = self { return element }
        return nil
    }
}
