import GraphQL

/// The SDL rules about directives used in a schema, and about the values they are given.
extension SDLRules {
    /// Where directives are used: the list, its location's name (`FIELD_DEFINITION`) and which
    /// lists share a scope for uniqueness (the schema's, a type's definition and extensions, or
    /// the place alone).
    struct DirectiveSite {
        enum Scope: Hashable {
            case schema, type(String), alone
        }

        let directives: [Directive]
        let location: String
        let scope: Scope
    }

    /// Every place of a definition that carries directives, in document order (places without
    /// any left out: they have nothing to check).
    static func directiveSites(_ definition: Definition) -> [DirectiveSite] {
        var sites: [DirectiveSite] = []
        func add(_ directives: [Directive], _ location: String, _ scope: DirectiveSite.Scope = .alone) {
            if !directives.isEmpty { sites.append(DirectiveSite(directives: directives, location: location, scope: scope)) }
        }
        switch definition {
        case let d as SchemaDefinition: add(d.directives, "SCHEMA", .schema)
        case let e as SchemaExtensionDefinition: add(e.definition.directives, "SCHEMA", .schema)
        case let d as DirectiveDefinition: for argument in d.arguments { add(argument.directives, "ARGUMENT_DEFINITION") }
        default:
            if let parts = TypeParts(definition) { return directiveSites(parts) }
        }
        return sites
    }

    /// Every place of a type definition or extension that carries directives.
    static func directiveSites(_ parts: TypeParts) -> [DirectiveSite] {
        var sites: [DirectiveSite] = []
        func add(_ directives: [Directive], _ location: String, _ scope: DirectiveSite.Scope = .alone) {
            if !directives.isEmpty { sites.append(DirectiveSite(directives: directives, location: location, scope: scope)) }
        }
        let location: String
        switch parts.kind {
        case .scalar: location = "SCALAR"
        case .object: location = "OBJECT"
        case .interface: location = "INTERFACE"
        case .union: location = "UNION"
        case .enumeration: location = "ENUM"
        case .inputObject: location = "INPUT_OBJECT"
        }
        add(parts.directives, location, .type(parts.name.value))
        for field in parts.fields {
            add(field.directives, "FIELD_DEFINITION")
            for argument in field.arguments { add(argument.directives, "ARGUMENT_DEFINITION") }
        }
        for value in parts.values { add(value.directives, "ENUM_VALUE") }
        for field in parts.inputFields { add(field.directives, "INPUT_FIELD_DEFINITION") }
        return sites
    }

    mutating func knownDirectives() {
        for (directive, site) in usedDirectives {
            guard let facts = knownDirective(directive.name.value) else {
                report("Unknown directive \"@\(directive.name.value)\".", directive.loc)
                continue
            }
            if !facts.locations.contains(site.location) {
                report("Directive \"@\(directive.name.value)\" may not be used on \(site.location).", directive.loc)
            }
        }
    }

    mutating func uniqueDirectivesPerLocation() {
        var seen: [DirectiveSite.Scope: [String: Directive]] = [:]
        for site in sites {
            var own: [String: Directive] = site.scope == .alone ? [:] : seen[site.scope] ?? [:]
            for directive in site.directives where knownDirective(directive.name.value)?.repeatable == false {
                if let first = own[directive.name.value] {
                    report("The directive \"@\(directive.name.value)\" can only be used once at this location.", first.loc, directive.loc)
                } else {
                    own[directive.name.value] = directive
                }
            }
            if site.scope != .alone { seen[site.scope] = own }
        }
    }

    /// `known`: arguments a directive does not take (KnownArgumentNamesOnDirectives); else the
    /// required ones it is not given (ProvidedRequiredArgumentsOnDirectives).
    mutating func directiveArguments(known: Bool) {
        for (directive, _) in usedDirectives {
            guard let facts = knownDirective(directive.name.value) else { continue }
            if known {
                for argument in directive.arguments where !facts.arguments.contains(argument.name.value) {
                    report("Unknown argument \"\(argument.name.value)\" on directive \"@\(directive.name.value)\".", argument.loc)
                }
            } else {
                let given = Set(directive.arguments.map(\.name.value))
                for required in facts.required where !given.contains(required.name) {
                    report(
                        "Directive \"@\(directive.name.value)\" argument \"\(required.name)\" of type \"\(required.type)\" is required, but it was not provided.",
                        directive.loc)
                }
            }
        }
    }

    mutating func uniqueArgumentNames() {
        for (directive, _) in usedDirectives {
            for (name, nodes) in Self.grouped(directive.arguments.map(\.name)) where nodes.count > 1 {
                errors.append(ValidationError(rule: "UniqueArgumentNamesRule", "There can be only one argument named \"\(name)\".", at: nodes.map(\.loc)))
            }
        }
    }

    /// Object values (in directive arguments and default values) name each field once.
    mutating func uniqueInputFieldNames() {
        var values: [Value] = usedDirectives.flatMap { $0.0.arguments.map(\.value) }
        for parts in types { values += parts.inputValues.compactMap(\.defaultValue) }
        for case let directive as DirectiveDefinition in document.definitions { values += directive.arguments.compactMap(\.defaultValue) }
        for value in values { errors += Self.duplicateObjectFields(in: value, rule: "UniqueInputFieldNamesRule") }
    }

    /// The errors for every object value in `value` that names a field twice.
    static func duplicateObjectFields(in value: Value, rule: String) -> [ValidationError] {
        switch value {
        case let object as ObjectValue:
            var errors: [ValidationError] = []
            var known: [String: Name] = [:]
            for field in object.fields {
                if let first = known[field.name.value] {
                    errors.append(ValidationError(rule: rule, "There can be only one input field named \"\(field.name.value)\".", at: [first.loc, field.name.loc]))
                } else {
                    known[field.name.value] = field.name
                }
                errors += duplicateObjectFields(in: field.value, rule: rule)
            }
            return errors
        case let list as ListValue:
            return list.values.flatMap { duplicateObjectFields(in: $0, rule: rule) }
        default:
            return []
        }
    }

    /// The arguments and input fields a definition declares.
    static func inputValueDefinitions(_ definition: Definition) -> [InputValueDefinition] {
        (definition as? DirectiveDefinition)?.arguments ?? TypeParts(definition)?.inputValues ?? []
    }

    private func knownDirective(_ name: String) -> SDLIndex.DirectiveFacts? { directivesKnown[name] }
}
