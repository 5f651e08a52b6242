/// The generator's one naming rule (Tools/README, "Names"): what the schema and the documents name
/// keeps its GraphQL name in Swift, unless Swift or the generated code's own names are in the way.
///
/// - Types: a name Swift reserves or that generated code spells unqualified in its scope gets a
///   trailing `_`: for schema types and mocks, `Type`, `Self`, `Int`, `Bool`, `InputObject`,
///   `Objects`, the namespace, …; for operations, fragments and nested selection sets also
///   `Result`, `Data`, `Deferred`, `Fragment`, …. A name still taken in its scope gets `_2`,
///   `_3`, … in declaration order.
/// - Members (fields, enum cases, input fields, variables, arguments): Swift keywords in backticks,
///   `_` as `__`. Enum values that meet after case conversion keep their GraphQL spelling (see
///   `SwiftNames.enumCases`).
/// - The generator's helpers give way to the schema's names: a `fragments`, `asItem` or deferred
///   property that a response key takes gets a trailing `_` (`fragments_`); a nested type gets
///   `_2` where a property of its struct has its name. What a protocol requires (`__data`,
///   `Data`) stays: a response key or variable that takes it gets the `_`.
extension SwiftNames {
    /// Names a schema type (in the namespace) or a mock (in `Mock`) must not take: Swift's
    /// keywords and the names generated code spells unqualified inside the namespace and `Mock`.
    static let reservedInNamespace: Set<String> = keywords.union([
        "Type", "Protocol", "Self", "self", "Any", "AnyObject", "String", "Int", "Double", "Bool", "Sendable", "Swift", "APICore",
        "APICoreTesting", "GraphQLNullable", "InputIndirect", "InputDict", "InputObject", "GraphQLEnum", "EnumType", "GraphQLFile",
        "ParentType", "Objects", "Interfaces", "Unions", "Mock", "MockObject", "MockValue", "MockIndirect",
    ])

    /// Names an operation, a fragment or a nested selection set must not take: those above and
    /// the rest of what selection sets spell unqualified (`Result` for `@catch`, `Data`, …).
    static let reservedTypeNames: Set<String> = reservedInNamespace.union([
        "Result", "Data", "DataDict", "Selection", "SelectionSet", "RootSelectionSet", "MutableSelectionSet", "MutableRootSelectionSet",
        "Fragment", "Fragments", "Deferred", "GraphQLError", "GraphQLQuery", "GraphQLMutation", "GraphQLSubscription",
        "GraphQLOperationType", "LocalCacheMutation", "JSONValue", "JSONObject", "_ObjectValue",
        // Reserved before the rule was one, and kept so that no generated name changes.
        "Optional", "Array", "Dictionary", "Set", "Float", "Field", "OutputType", "ArgumentValue",
    ])

    /// A type the generator declares, named after `name`: with a trailing `_` while it is
    /// `reserved` or in `taken` (the schema namespace, the names its scope already has).
    static func typeName(_ name: String, avoiding taken: Set<String> = [], reserved: Set<String> = reservedTypeNames) -> String {
        var result = name
        while reserved.contains(result) || taken.contains(result) { result += "_" }
        return result
    }

    /// The members generated code declares itself, which a schema's name must not take: the
    /// protocols' requirements (`__data`, `Data`, Hashable's `hashValue`), and `self`, which Swift
    /// resolves to a member of that name inside `self.init(…)`.
    static let protocolMembers: Set<String> = ["__data", "__parentType", "__selections", "__table", "__variables", "__variableDefaults", "Data", "hashValue", "self"]

    /// A property, parameter or case named after a GraphQL name, as declared: backticked when a
    /// keyword, `__` for `_`, with a trailing `_` when a protocol requirement has the name.
    static func member(_ name: String) -> String { identifier(memberName(name)) }

    /// `member(name)` without backticks: the name as its scope holds it.
    static func memberName(_ name: String) -> String {
        if name == "_" { return "__" }
        return protocolMembers.contains(name) ? name + "_" : name
    }
}

/// The Swift names of an operation set's top-level types: operations, then fragments, each
/// free of the reserved names, the namespace, and each other.
struct TopLevelNames {
    /// Each fragment's struct, by GraphQL name.
    private(set) var fragments: [String: String] = [:]
    /// Every name declared at the top level.
    private(set) var taken: Set<String>

    init(namespace: String, operations: [String], fragments names: [String]) {
        taken = [namespace]
        for operation in operations { taken.insert(operation) }
        for name in names.sorted() {
            let swift = SwiftNames.typeName(name, avoiding: taken)
            fragments[name] = swift
            taken.insert(swift)
        }
    }

    /// The struct of fragment `name`.
    func fragment(_ name: String) -> String { fragments[name] ?? name }
}
