import GraphQL

/// graphql-js's SDL rules (`specifiedSDLRules`), which a schema document passes before a schema is
/// built from it: each error at the places graphql-js names, in its words. `base` is the schema a
/// document extends (graphql-js's `extendSchema`); the generator reads all its schema files as
/// one document and extends nothing.
struct SDLRules {
    let document: Document
    let base: SDLIndex?
    var errors: [ValidationError] = []
    private var rule = ""

    /// graphql-js's names, in its order.
    static let names = [
        "LoneSchemaDefinitionRule", "UniqueOperationTypesRule", "UniqueTypeNamesRule", "UniqueEnumValueNamesRule",
        "UniqueFieldDefinitionNamesRule", "UniqueArgumentDefinitionNamesRule", "UniqueDirectiveNamesRule", "KnownTypeNamesRule",
        "KnownDirectivesRule", "UniqueDirectivesPerLocationRule", "PossibleTypeExtensionsRule", "KnownArgumentNamesOnDirectivesRule",
        "UniqueArgumentNamesRule", "UniqueInputFieldNamesRule", "ProvidedRequiredArgumentsOnDirectivesRule",
    ]

    /// The errors of `document` by the named rules (all when `nil`).
    /// `types`: the document's type definitions and extensions, when the caller has read them.
    static func validate(_ document: Document, extending base: SDLIndex? = nil, rules: Set<String>? = nil, types: [TypeParts]? = nil)
        -> [ValidationError]
    {
        var rules = SDLRules(document: document, base: base, only: rules, types: types)
        rules.run()
        return rules.errors
    }

    private let only: Set<String>?
    private let definitions: [Definition]
    /// The type definitions and extensions among them, read once.
    let types: [TypeParts]
    /// Every place that carries directives, and every directive used with its place, read once.
    let sites: [DirectiveSite]
    let usedDirectives: [(Directive, DirectiveSite)]
    /// The directives known here: the base's (or the specified ones) and the document's.
    let directivesKnown: [String: SDLIndex.DirectiveFacts]

    private init(document: Document, base: SDLIndex?, only: Set<String>?, types: [TypeParts]?) {
        self.document = document
        self.base = base
        self.only = only
        definitions = document.definitions
        let types = types ?? document.definitions.compactMap(TypeParts.init)
        self.types = types
        sites = types.flatMap(Self.directiveSites)
            + document.definitions.filter { $0 is SchemaDefinition || $0 is SchemaExtensionDefinition || $0 is DirectiveDefinition }
            .flatMap(Self.directiveSites)
        usedDirectives = sites.flatMap { site in site.directives.map { ($0, site) } }
        var directives = base?.directives ?? SDLIndex.specifiedDirectives
        for case let definition as DirectiveDefinition in document.definitions { directives[definition.name.value] = SDLIndex.facts(definition) }
        directivesKnown = directives
    }

    private mutating func run() {
        let checks: [(String, (inout SDLRules) -> Void)] = [
            ("LoneSchemaDefinitionRule", { $0.loneSchemaDefinition() }),
            ("UniqueOperationTypesRule", { $0.uniqueOperationTypes() }),
            ("UniqueTypeNamesRule", { $0.uniqueTypeNames() }),
            ("UniqueEnumValueNamesRule", { $0.uniqueEnumValueNames() }),
            ("UniqueFieldDefinitionNamesRule", { $0.uniqueFieldDefinitionNames() }),
            ("UniqueArgumentDefinitionNamesRule", { $0.uniqueArgumentDefinitionNames() }),
            ("UniqueDirectiveNamesRule", { $0.uniqueDirectiveNames() }),
            ("KnownTypeNamesRule", { $0.knownTypeNames() }),
            ("KnownDirectivesRule", { $0.knownDirectives() }),
            ("UniqueDirectivesPerLocationRule", { $0.uniqueDirectivesPerLocation() }),
            ("PossibleTypeExtensionsRule", { $0.possibleTypeExtensions() }),
            ("KnownArgumentNamesOnDirectivesRule", { $0.directiveArguments(known: true) }),
            ("UniqueArgumentNamesRule", { $0.uniqueArgumentNames() }),
            ("UniqueInputFieldNamesRule", { $0.uniqueInputFieldNames() }),
            ("ProvidedRequiredArgumentsOnDirectivesRule", { $0.directiveArguments(known: false) }),
        ]
        for (name, check) in checks where only?.contains(name) ?? true {
            rule = name
            check(&self)
        }
    }

    mutating func report(_ message: String, _ locations: Location?...) {
        errors.append(ValidationError(rule: rule, message, at: locations))
    }

    // MARK: The schema definition and root types

    private mutating func loneSchemaDefinition() {
        let alreadyDefined = base.map { $0.hasSchemaDefinition || !$0.rootTypes.isEmpty } ?? false
        var count = 0
        for case let schema as SchemaDefinition in definitions {
            if alreadyDefined {
                report("Cannot define a new schema within a schema extension.", schema.loc)
                continue
            }
            if count > 0 { report("Must provide only one schema definition.", schema.loc) }
            count += 1
        }
    }

    private mutating func uniqueOperationTypes() {
        var defined: [OperationType: OperationTypeDefinition] = [:]
        for definition in definitions {
            let operationTypes: [OperationTypeDefinition]
            switch definition {
            case let schema as SchemaDefinition: operationTypes = schema.operationTypes
            case let ext as SchemaExtensionDefinition: operationTypes = ext.definition.operationTypes
            default: continue
            }
            for operationType in operationTypes {
                let operation = operationType.operation.rawValue
                if base?.rootTypes.contains(operationType.operation) == true {
                    report("Type for \(operation) already defined in the schema. It cannot be redefined.", operationType.loc)
                } else if let first = defined[operationType.operation] {
                    report("There can be only one \(operation) type in schema.", first.loc, operationType.loc)
                } else {
                    defined[operationType.operation] = operationType
                }
            }
        }
    }

    // MARK: Names defined once

    private mutating func uniqueTypeNames() {
        var known: [String: Name] = [:]
        for parts in types where !parts.isExtension {
            let name = parts.name
            if base?.types[name.value] != nil || (base != nil && SDLIndex.standardTypeNames.contains(name.value) && name.value.hasPrefix("__")) {
                report("Type \"\(name.value)\" already exists in the schema. It cannot also be defined in this type definition.", name.loc)
            } else if let first = known[name.value] {
                report("There can be only one type named \"\(name.value)\".", first.loc, name.loc)
            } else {
                known[name.value] = name
            }
        }
    }

    private mutating func uniqueEnumValueNames() {
        var known: [String: [String: Name]] = [:]
        for parts in types where parts.kind == .enumeration {
            let typeName = parts.name.value
            for value in parts.values {
                let existing = base?.types[typeName]
                if existing?.kind == .enumeration, existing?.values.contains(value.name.value) == true {
                    report(
                        "Enum value \"\(typeName).\(value.name.value)\" already exists in the schema. It cannot also be defined in this type extension.",
                        value.name.loc)
                } else if let first = known[typeName]?[value.name.value] {
                    report("Enum value \"\(typeName).\(value.name.value)\" can only be defined once.", first.loc, value.name.loc)
                } else {
                    known[typeName, default: [:]][value.name.value] = value.name
                }
            }
        }
    }

    private mutating func uniqueFieldDefinitionNames() {
        // The places of the first definitions are looked up again only for a duplicate (rare):
        // keeping every name's node would copy them all.
        var known: [String: Set<String>] = [:]
        func first(_ typeName: String, _ field: String) -> Location? {
            types.lazy.filter { $0.name.value == typeName }.flatMap(\.fieldNames).first { $0.value == field }?.loc
        }
        for parts in types {
            let typeName = parts.name.value
            let existing = base?.types[typeName]
            for name in parts.fieldNames {
                if let existing, [.object, .interface, .inputObject].contains(existing.kind), existing.fields.contains(name.value) {
                    report(
                        "Field \"\(typeName).\(name.value)\" already exists in the schema. It cannot also be defined in this type extension.",
                        name.loc)
                } else if !known[typeName, default: []].insert(name.value).inserted {
                    report("Field \"\(typeName).\(name.value)\" can only be defined once.", first(typeName, name.value), name.loc)
                }
            }
        }
    }

    private mutating func uniqueArgumentDefinitionNames() {
        func check(_ owner: @autoclosure () -> String, _ arguments: [InputValueDefinition]) {
            guard arguments.count > 1, Set(arguments.map(\.name.value)).count < arguments.count else { return }
            for (name, nodes) in Self.grouped(arguments.map(\.name)) where nodes.count > 1 {
                errors.append(ValidationError(rule: rule, "Argument \"\(owner())(\(name):)\" can only be defined once.", at: nodes.map(\.loc)))
            }
        }
        for case let directive as DirectiveDefinition in definitions { check("@\(directive.name.value)", directive.arguments) }
        for parts in types {
            for field in parts.fields { check("\(parts.name.value).\(field.name.value)", field.arguments) }
        }
    }

    private mutating func uniqueDirectiveNames() {
        var known: [String: Name] = [:]
        for case let directive as DirectiveDefinition in definitions {
            let name = directive.name
            if base?.directives[name.value] != nil {
                report("Directive \"@\(name.value)\" already exists in the schema. It cannot be redefined.", name.loc)
            } else if let first = known[name.value] {
                report("There can be only one directive named \"@\(name.value)\".", first.loc, name.loc)
            } else {
                known[name.value] = name
            }
        }
    }

    /// `names` grouped by value, in the order each value first appears.
    static func grouped(_ names: [Name]) -> [(String, [Name])] {
        var order: [String] = []
        var groups: [String: [Name]] = [:]
        for name in names {
            if groups[name.value] == nil { order.append(name.value) }
            groups[name.value, default: []].append(name)
        }
        return order.map { ($0, groups[$0]!) }
    }

    // MARK: Known types and extensions

    private mutating func knownTypeNames() {
        var known = Set(base?.types.keys.map { $0 } ?? [])
        for parts in types where !parts.isExtension { known.insert(parts.name.value) }
        // The types' parts were read once; the schema's and the directives' definitions are few.
        let others = definitions.filter { $0 is SchemaDefinition || $0 is SchemaExtensionDefinition || $0 is DirectiveDefinition }
        func check(_ type: NamedType) {
            let name = type.name.value
            if !known.contains(name) && !SDLIndex.standardTypeNames.contains(name) { report("Unknown type \"\(name)\".", type.loc) }
        }
        for parts in types { parts.forEachNamedType(check) }
        for type in others.flatMap(SDLIndex.namedTypes) { check(type) }
    }

    private mutating func possibleTypeExtensions() {
        var defined: [String: TypeParts] = [:]
        for parts in types where !parts.isExtension { defined[parts.name.value] = parts }
        for parts in types where parts.isExtension {
            let (name, kind) = (parts.name, parts.kind)
            let expected = defined[name.value]?.kind ?? base?.types[name.value]?.kind
                ?? (base != nil && SDLIndex.standardTypeNames.contains(name.value) && !name.value.hasPrefix("__") ? .scalar : nil)
            guard let expected else {
                report("Cannot extend type \"\(name.value)\" because it is not defined.", name.loc)
                continue
            }
            if expected != kind {
                if let definition = defined[name.value] {
                    report("Cannot extend non-\(kind.rawValue) type \"\(name.value)\".", definition.location, parts.location)
                } else {
                    report("Cannot extend non-\(kind.rawValue) type \"\(name.value)\".", parts.location)
                }
            }
        }
    }
}
