@_spi(Tools) import enum APICore.JSONSerializer

/// A generated selection-set struct and everything nested in it: its metadata (`__parentType`,
/// `__selections`), an accessor per field (with setters in local cache mutations), its type cases,
/// its `Fragments`, and the structs of its fields' selection sets.
///
/// The metadata of an operation's (or a fragment's) structs is one table, a `static let __table`
/// of its root read once by `Selection.parseTable`; each struct's `__selections` is a computed
/// property reading its entry. A stored `static let` per struct costs the compiler a global, its
/// initializer and accessors, and two witnesses per struct: on GitHub-like operations, about a
/// tenth of the module's compile time.
struct SelectionSetTemplate {
    let context: GenerationContext

    /// What the struct is: an operation's `Data`, a named fragment, or anything nested in them.
    enum Role {
        case root, fragment, nested
    }

    /// Writes the struct of `ir` (a root: an operation's `Data` or a fragment) with everything
    /// nested in it and its metadata table; with `initializers`, it and every struct nested in it
    /// get a memberwise initializer (``writeInitializer(_:role:into:)``).
    func write(
        _ ir: SelectionSetIR, role: Role, mutable: Bool, initializers: Bool = false, into w: inout SwiftWriter,
        extra: ((inout SwiftWriter) -> Void)? = nil
    ) {
        var table = MetadataTable(root: ir)
        write(ir, role: role, mutable: mutable, initializers: initializers, table: &table, into: &w, extra: extra)
    }

    /// Writes one struct, its metadata added to its root's `table`.
    private func write(
        _ ir: SelectionSetIR, role: Role, mutable: Bool, initializers: Bool, table: inout MetadataTable,
        into w: inout SwiftWriter, extra: ((inout SwiftWriter) -> Void)? = nil
    ) {
        let access = context.operationAccess
        let spi = GenerationContext.generatedOnly(access)
        if role == .nested, context.includeDocs, let description = context.schema.type(named: ir.typeName)?.description {
            w.doc(description)
        }
        let conformance: String
        switch role {
        case .root: conformance = mutable ? "MutableRootSelectionSet" : "RootSelectionSet"
        case .fragment: conformance = mutable ? "Fragment, MutableSelectionSet" : "Fragment"
        case .nested: conformance = mutable ? "MutableSelectionSet" : "SelectionSet"
        }
        let opening = role == .fragment ? GenerationContext.topLevel : ""
        w.block("\(opening)\(access)struct \(ir.structName): \(conformance)") { w in
            extra?(&w)
            w.line("\(spi)\(mutable ? "var" : "let") __data: DataDict")
            w.line("\(spi)init(_dataDict: DataDict) { __data = _dataDict }")
            let entry = table.add(selections(for: ir, addTypename: role != .root, table: &table))
            w.line("\(spi)static var __parentType: ParentType { \(parentTypeReference(ir.typeName)) }")
            w.line("\(spi)static var __selections: [Selection] { __table[\(entry)] }")

            if initializers { writeInitializer(ir, role: role, into: &w) }
            let accessors = ir.fields.filter { $0.responseKey != "__typename" }
            if !accessors.isEmpty || !ir.typeCases.isEmpty || !ir.fragments.isEmpty || !ir.deferred.isEmpty { w.line() }
            for field in accessors { writeAccessor(field, mutable: mutable, into: &w) }
            for typeCase in ir.typeCases {
                w.line("\(access)var \(SwiftNames.identifier(typeCase.accessor)): \(typeCase.structName)? { _asInlineFragment() }")
            }
            for fragment in ir.deferred {
                // Pending until the server delivers it; `nil` where it cannot apply (another type,
                // or an `@include`/`@skip` that leaves it out).
                let type = fragment.typeName
                let id = SwiftNames.stringLiteral(fragment.id)
                let property = SwiftNames.identifier(fragment.property)
                if fragment.narrows {
                    w.line("\(access)var \(property): Deferred<\(type)>? { _deferredIfApplies(\(id)) }")
                } else if fragment.isConditional {
                    w.line("\(access)var \(property): Deferred<\(type)>? { _deferredIfIncluded(\(id)) }")
                } else {
                    w.line("\(access)var \(property): Deferred<\(type)> { _deferred(\(id)) }")
                }
            }
            if !ir.fragments.isEmpty { writeFragments(ir.fragments, property: ir.fragmentsProperty, into: &w) }
            func writeNested(_ nested: SelectionSetIR) {
                w.line()
                write(nested, role: .nested, mutable: mutable, initializers: initializers, table: &table, into: &w)
            }
            for typeCase in ir.typeCases { writeNested(typeCase) }
            for nested in ir.deferred.compactMap(\.nested) { writeNested(nested) }
            for field in ir.fields where !field.reusesOuterType {
                if let nested = field.nested {
                    writeNested(nested)
                } else if let alias = field.fragmentType {
                    w.line()
                    w.line("\(access)typealias \(alias.typeName) = \(alias.target)")
                }
            }
            if role != .nested {
                w.line()
                w.line("private static let __table = \(table.declaration)")
            }
        }
    }

    /// `name` as written in the root's scope, from the struct at `path`.
    static func qualified(_ name: String, in path: String) -> String { path.isEmpty ? name : path + "." + name }

    /// A memberwise initializer: a parameter per field, typed as its accessor (optional ones
    /// default to `nil`), and `__typename` where the struct's type is abstract (an object type's is
    /// written for it). The data it builds is the JSON a server sends for the same values: every
    /// field under its response key, nested objects as their own data, `null` for `nil` (a field
    /// that `@include`/`@skip` makes optional included: checking the data under variables that
    /// leave it out, as every write and decode does, takes it away). Deferred fragments are
    /// not part of it. A type case's data becomes this type's through `init(_:)`, one per type case.
    private func writeInitializer(_ ir: SelectionSetIR, role: Role, into w: inout SwiftWriter) {
        let access = context.operationAccess
        let shape = InitializerShape(ir, isRoot: role == .root, schema: context.schema)
        let fields = shape.fields
        var parameters: [String] = []
        if shape.typename == .parameter { parameters.append("__typename: String") }
        for field in fields {
            let type = accessorType(field)
            parameters.append("\(SwiftNames.member(field.responseKey)): \(type)\(type.hasSuffix("?") ? " = nil" : "")")
        }
        var entries: [String] = []
        switch shape.typename {
        case .none: break
        case .written: entries.append("\"__typename\": " + SwiftNames.stringLiteral(ir.typeName))
        case .parameter: entries.append("\"__typename\": .string(__typename)")
        }
        // A field under `@include`/`@skip` is written too, `null` when nil: the same data for
        // variables that select it (a null is a value then) and, once checked under variables
        // that leave it out, without it.
        for field in fields {
            let value = SwiftNames.member(field.responseKey)
            // An object in any shape but `T` itself is written through its boxed shape.
            let object = objectType(field)
            let json = object == nil || object == accessorType(field)
                ? "\(value)._outputJSON" : "\(accessorType(field, boxed: true))(_boxing: \(value))._outputJSON"
            entries.append("\(SwiftNames.stringLiteral(field.responseKey)): \(json)")
        }
        w.line()
        w.line("/// Data with these values, as a server would send it.")
        if parameters.isEmpty {
            w.line("\(access)init() {")
        } else {
            w.line("\(access)init(")
            for (index, parameter) in parameters.enumerated() { w.line("    \(parameter)\(index == parameters.count - 1 ? "" : ",")") }
            w.line(") {")
        }
        let literal = entries.isEmpty ? "[:]" : "[" + entries.joined(separator: ", ") + "]"
        w.line("    self.init(_dataDict: DataDict(_data: \(literal)))")
        w.line("}")
        for typeCase in ir.typeCases {
            w.line()
            w.line("/// A `\(typeCase.typeName)`'s data, built by its type case, as this type.")
            w.line("\(access)init(_ value: \(typeCase.structName)) { self.init(_dataDict: value.__data) }")
        }
    }

    /// The Swift type of a field's accessor: optional where the schema or a condition makes it so.
    /// `boxed`: an object field's shape with `_ObjectValue<T>` for its selection set `T` (selection
    /// sets are no `GraphQLOutputValue`s; their boxes are).
    private func accessorType(_ field: FieldIR, boxed: Bool = false) -> String {
        var type = context.types.output(field.definition.type, nested: objectType(field).map { boxed ? "_ObjectValue<\($0)>" : $0 })
        if field.catchTo == .result { type = "Result<\(type), GraphQLError>" }
        if field.isConditional && !type.hasSuffix("?") { type += "?" }
        return type
    }

    /// The selection set of an object field (`nil` for a scalar or enum).
    private func objectType(_ field: FieldIR) -> String? { field.nested?.structName ?? field.fragmentType?.typeName }

    /// How an accessor reaches its field's value: `DataDict`'s subscripts read any field value
    /// and objects as `T`, `T?`, `[T]`, `[T?]`, `[T]?` and `[T?]?`; an object field of another
    /// shape (a list of lists, a `Result`) names its boxed shape.
    private func dataKey(_ field: FieldIR) -> String {
        let key = SwiftNames.stringLiteral(field.responseKey)
        guard objectType(field) != nil, field.catchTo == .result || Self.listDepth(field.definition.type) > 1 else { return key }
        return "\(key), as: \(accessorType(field, boxed: true)).self"
    }

    private static func listDepth(_ type: TypeRef) -> Int {
        switch type {
        case .named: return 0
        case .nonNull(let inner): return listDepth(inner)
        case .list(let inner): return 1 + listDepth(inner)
        }
    }

    private func writeAccessor(_ field: FieldIR, mutable: Bool, into w: inout SwiftWriter) {
        let access = context.operationAccess
        if context.includeDocs { w.doc(field.definition.description) }
        if let reason = field.definition.deprecationReason {
            w.line("@available(*, deprecated, message: \(SwiftNames.stringLiteral(reason)))")
        }
        let type = accessorType(field)
        let key = dataKey(field)
        let property = SwiftNames.member(field.responseKey)
        if mutable {
            w.line("\(access)var \(property): \(type) {")
            w.line("    get { __data[\(key)] }")
            w.line("    set { __data[\(key)] = newValue }")
            w.line("}")
        } else {
            w.line("\(access)var \(property): \(type) { __data[\(key)] }")
        }
    }

    private func writeFragments(_ fragments: [FragmentSpreadIR], property: String, into w: inout SwiftWriter) {
        let access = context.operationAccess
        let spi = GenerationContext.generatedOnly(access)
        w.line("\(access)var \(SwiftNames.identifier(property)): Fragments { Fragments(_dataDict: __data) }")
        w.line()
        // No protocol: nothing reads a container generically, and a conformance per container
        // costs the compiler more than its accessors do.
        w.block("\(access)struct Fragments: Sendable") { w in
            w.line("\(spi)let __data: DataDict")
            w.line("\(spi)init(_dataDict: DataDict) { __data = _dataDict }")
            for fragment in fragments {
                let property = SwiftNames.identifier(fragment.property)
                if fragment.isConditional {
                    w.line("\(access)var \(property): \(fragment.typeName)? { __data._asConditionalFragment() }")
                } else {
                    w.line("\(access)var \(property): \(fragment.typeName) { __data._toFragment() }")
                }
            }
        }
    }

    /// `StarWarsAPI.Objects.Droid`, `StarWarsAPI.Interfaces.Character`, `StarWarsAPI.Unions.SearchResult`.
    func parentTypeReference(_ typeName: String) -> String {
        let group: String
        switch context.schema.type(named: typeName)?.kind {
        case .interface: group = "Interfaces"
        case .union: group = "Unions"
        default: group = "Objects"
        }
        return "\(context.namespace).\(group).\(context.types.swiftName(typeName))"
    }

    /// The metadata of one struct as JSON (the format is documented with `Selection.parse` in
    /// APICore), its Swift types numbered in `table`: every merged field (under its conditions),
    /// then the type cases and deferred fragments. Nested types are named from the root's scope.
    func selections(for ir: SelectionSetIR, addTypename: Bool, table: inout MetadataTable) -> String {
        let path = table.name(of: ir)
        func index(_ type: String) -> Int { table.index(ofType: type) }
        func nested(_ selectionSet: SelectionSetIR) -> Int { index(table.name(of: selectionSet)) }
        var entries: [String] = []
        // Every object's `__typename` arrives (the document selects it everywhere), whatever
        // `@include`/`@skip` a `__typename` of the operation's own is under: type cases need it.
        if addTypename && !ir.fields.contains(where: { $0.responseKey == "__typename" && !$0.isConditional }) {
            entries.append("[\"__typename\",\"\(index("String"))!\"]")
        }
        for field in ir.fields {
            var options: [String] = []
            if let alias = field.alias { options.append("\"alias\":\(Self.jsonString(alias))") }
            if !field.arguments.isEmpty {
                options.append("\"args\":{" + field.arguments.map { "\(Self.jsonString($0.name)):\(argumentJSON($0.value))" }.joined(separator: ",") + "}")
            }
            if context.schema.connectionFields(of: ir.typeName).contains(field.definition.name) {
                let names = field.definition.arguments.map(\.name).filter(SchemaModel.pageArgumentNames.contains).sorted()
                options.append("\"page\":[" + names.map(Self.jsonString).joined(separator: ",") + "]")
            }
            if let policy = context.schema.type(named: ir.typeName)?.fieldPolicies[field.definition.name] {
                options.append("\"keys\":[" + policy.keyArgs.map(Self.jsonString).joined(separator: ",") + "]")
            }
            if let catchTo = field.catchTo.caught { options.append("\"catch\":\"\(catchTo)\"") }
            if let age = context.schema.cacheMaxAge(of: field.definition) { options.append("\"age\":\(age)") }
            let type = typeText(
                field.definition.type,
                nested: field.nested.map(table.name(of:)) ?? field.fragmentType.map { Self.qualified($0.typeName, in: path) }, index: index)
            let entry = "[\(Self.jsonString(field.definition.name)),\"\(type)\"" + (options.isEmpty ? "" : ",{" + options.joined(separator: ",") + "}") + "]"
            entries += conditioned(entry, field.isConditional ? field.conditionSets : [[]])
        }
        for typeCase in ir.typeCases {
            entries.append("{\"on\":\(nested(typeCase))}")
        }
        for fragment in ir.deferred {
            var deferral = "\"defer\":\(Self.jsonString(fragment.id))"
            if let label = fragment.directive.label { deferral += ",\"label\":\(Self.jsonString(label))" }
            if let variable = fragment.directive.variable { deferral += ",\"when\":\(Self.jsonString(variable))" }
            // A named fragment's spread, or an inline fragment's own struct (the IR always builds one).
            let inner = fragment.fragmentName.map { _ in "{\"spread\":\(index(fragment.typeName))}" } ?? fragment.nested.map { "{\"on\":\(nested($0))}" }
            guard let inner else { preconditionFailure("codegen: the inline deferred fragment \(fragment.name) has no struct") }
            entries += conditioned("{\(deferral),\"then\":[\(inner)]}", fragment.isConditional ? fragment.conditionSets : [[]])
        }
        return "[" + entries.joined(separator: ",") + "]"
    }

    /// `entry` once per condition set (OR of ANDs); `[[]]` is unconditional.
    private func conditioned(_ entry: String, _ conditionSets: [[Condition]]) -> [String] {
        conditionSets.map { conditions in
            guard !conditions.isEmpty else { return entry }
            let names = conditions.map { Self.jsonString(($0.inverted ? "!" : "") + $0.variable) }
            return "{\"if\":[" + names.joined(separator: ",") + "],\"then\":[\(entry)]}"
        }
    }

    /// A field's type in the metadata text: the index of its Swift type, in `[…]` for a list,
    /// `!` for non-null.
    private func typeText(_ ref: TypeRef, nested: String?, index: (String) -> Int) -> String {
        switch ref {
        case .nonNull(let inner): return typeText(inner, nested: nested, index: index) + "!"
        case .list(let inner): return "[" + typeText(inner, nested: nested, index: index) + "]"
        case .named(let name): return String(index(context.types.leaf(name) ?? nested ?? name))
        }
    }

    /// An argument as JSON: a variable is `{"$": "name"}`.
    private func argumentJSON(_ value: GQL.Value) -> String {
        switch value {
        case .variable(let name): return "{\"$\":\(Self.jsonString(name))}"
        case .int(let text): return text
        case .float(let text): return text.contains(".") || text.contains("e") || text.contains("E") ? text : text + ".0"
        case .string(let string), .enumValue(let string): return Self.jsonString(string)
        case .boolean(let bool): return bool ? "true" : "false"
        case .null: return "null"
        case .list(let values): return "[" + values.map(argumentJSON).joined(separator: ",") + "]"
        case .object(let fields): return "{" + fields.map { "\(Self.jsonString($0.name)):\(argumentJSON($0.value))" }.joined(separator: ",") + "}"
        }
    }

    /// A JSON string literal, escaped as APICore writes JSON.
    static func jsonString(_ text: String) -> String { JSONSerializer.string(.string(text)) }
}

/// What a selection set's memberwise initializer takes: a parameter per field but `__typename`,
/// and `__typename` itself written for an object type, a parameter for an abstract one, or absent
/// from an operation's root unless it selects it. The initializers and the tests' round trip
/// (``InitializerRoundTrip``) both follow it.
struct InitializerShape {
    enum Typename { case none, written, parameter }

    let typename: Typename
    let fields: [FieldIR]

    init(_ ir: SelectionSetIR, isRoot: Bool, schema: SchemaModel) {
        fields = ir.fields.filter { $0.responseKey != "__typename" }
        if isRoot && !ir.fields.contains(where: { $0.responseKey == "__typename" }) {
            typename = .none
        } else {
            typename = schema.type(named: ir.typeName)?.kind == .object ? .written : .parameter
        }
    }
}

/// The metadata of one root's structs, gathered as they are written: their JSON texts by number
/// and the Swift types the texts name, numbered once for all.
struct MetadataTable {
    private var entries: [String] = []
    private var types: [String] = []
    private var typeNumbers: [String: Int] = [:]
    /// Every struct under the root, named from the root's scope (`Hero.Friend`); a field that
    /// reuses an enclosing scope's struct holds the same object, so it finds that struct's name.
    private var names: [ObjectIdentifier: String] = [:]

    init(root: SelectionSetIR) { name(root, path: "") }

    private mutating func name(_ ir: SelectionSetIR, path: String) {
        names[ObjectIdentifier(ir)] = path
        func nested(_ child: SelectionSetIR) { name(child, path: SelectionSetTemplate.qualified(child.structName, in: path)) }
        for typeCase in ir.typeCases { nested(typeCase) }
        for deferred in ir.deferred { if let child = deferred.nested { nested(child) } }
        for field in ir.fields where !field.reusesOuterType { if let child = field.nested { nested(child) } }
    }

    /// The name of a struct under the root, from the root's scope.
    func name(of selectionSet: SelectionSetIR) -> String {
        guard let name = names[ObjectIdentifier(selectionSet)] else { preconditionFailure("codegen: \(selectionSet.structName) is not under this root") }
        return name
    }

    /// The number of a Swift type (as written in the root's scope).
    mutating func index(ofType type: String) -> Int {
        if let number = typeNumbers[type] { return number }
        types.append(type)
        typeNumbers[type] = types.count - 1
        return types.count - 1
    }

    /// Adds one struct's metadata; its number is its entry in the table.
    mutating func add(_ entry: String) -> Int {
        entries.append(entry)
        return entries.count - 1
    }

    /// `Selection.parseTable(text, types…)`.
    var declaration: String {
        let text = SwiftNames.stringLiteral("[" + entries.joined(separator: ",") + "]")
        return "Selection.parseTable(" + ([text] + types.map { "\($0).self" }).joined(separator: ", ") + ")"
    }
}
