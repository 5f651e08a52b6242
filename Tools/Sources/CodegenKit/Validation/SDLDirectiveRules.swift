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

    /// Every place of a definition that carries directives, in document order.
    static func directiveSites(_ definition: Definition) -> [DirectiveSite] {
        func sites<T>(_ nodes: [T], _ directives: (T) -> [Directive], _ location: String) -> [DirectiveSite] {
            nodes.map { DirectiveSite(directives: directives($0), location: location, scope: .alone) }
        }
        switch definition {
        case let d as SchemaDefinition: return [DirectiveSite(directives: d.directives, location: "SCHEMA", scope: .schema)]
        case let e as SchemaExtensionDefinition: return [DirectiveSite(directives: e.definition.directives, location: "SCHEMA", scope: .schema)]
        case let d as DirectiveDefinition: return sites(d.arguments, \.directives, "ARGUMENT_DEFINITION")
        default:
            guard let parts = TypeParts(definition) else { return [] }
            let location: String
            switch parts.kind {
            case .scalar: location = "SCALAR"
            case .object: location = "OBJECT"
            case .interface: location = "INTERFACE"
            case .union: location = "UNION"
            case .enumeration: location = "ENUM"
            case .inputObject: location = "INPUT_OBJECT"
            }
            return [DirectiveSite(directives: parts.directives, location: location, scope: .type(parts.name.value))]
                + parts.fields.flatMap {
                    sites([$0], \.directives, "FIELD_DEFINITION") + sites($0.arguments, \.directives, "ARGUMENT_DEFINITION")
                }
                + sites(parts.values, \.directives, "ENUM_VALUE") + sites(parts.inputFields, \.directives, "INPUT_FIELD_DEFINITION")
        }
    }

    /// Every directive used, with its site.
    var usedDirectives: [(Directive, DirectiveSite)] {
        document.definitions.flatMap(Self.directiveSites).flatMap { site in site.directives.map { ($0, site) } }
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
        for site in document.definitions.flatMap(Self.directiveSites) {
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
        for definition in document.definitions {
            values += Self.inputValueDefinitions(definition).compactMap(\.defaultValue)
        }
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
