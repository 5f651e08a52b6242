import GraphQL

/// What implementing an interface takes: only interfaces, each once, never itself, the
/// interfaces it implements too, and each of its fields with a compatible type and its exact
/// arguments (and no extra required one).
extension SchemaValidation {
    mutating func interfaceRules(_ type: SchemaValidation.TypeNodes) {
        var seen: Set<String> = []
        let nodes = interfaceNodes(of: type.name)
        for interface in interfaces(of: type.name) {
            let declared = nodes.filter { $0.name.value == interface }.map(\.loc)
            guard kind(of: interface) == .interface else {
                report("Type \(type.name) must only implement Interface types, it cannot implement \(interface).", declared)
                continue
            }
            if interface == type.name {
                report("Type \(type.name) cannot implement itself because it would create a circular reference.", declared)
                continue
            }
            guard seen.insert(interface).inserted else {
                report("Type \(type.name) can only implement \(interface) once.", declared)
                continue
            }
            implementsAncestors(type, interface)
            implementsFields(type, interface)
        }
    }

    private mutating func implementsAncestors(_ type: SchemaValidation.TypeNodes, _ interface: String) {
        let own = interfaces(of: type.name)
        for transitive in interfaces(of: interface) where !own.contains(transitive) {
            let message = transitive == type.name
                ? "Type \(type.name) cannot implement \(interface) because it would create a circular reference."
                : "Type \(type.name) must implement \(transitive) because it is implemented by \(interface)."
            let places = interfaceNodes(of: interface).filter { $0.name.value == transitive }.map(\.loc)
                + interfaceNodes(of: type.name).filter { $0.name.value == interface }.map(\.loc)
            report(message, places)
        }
    }

    private mutating func implementsFields(_ type: SchemaValidation.TypeNodes, _ interface: String) {
        guard let implemented = types[interface] else { return }
        for name in implemented.fieldOrder {
            guard let expected = implemented.fieldFacts[name] else { continue }
            guard let field = type.fieldFacts[name] else {
                report("Interface field \(interface).\(name) expected but \(type.name) does not provide it.", [expected.location] + type.locations)
                continue
            }
            if !isSubType(field.type, of: expected.type) {
                report(
                    "Interface field \(interface).\(name) expects type \(expected.type) but \(type.name).\(name) is type \(field.type).",
                    [expected.typeLocation, field.typeLocation])
            }
            for argument in expected.arguments {
                guard let own = field.arguments.first(where: { $0.name == argument.name }) else {
                    report(
                        "Interface field argument \(interface).\(name)(\(argument.name):) expected but \(type.name).\(name) does not provide it.",
                        [argument.location, field.location])
                    continue
                }
                if own.type != argument.type {
                    report(
                        "Interface field argument \(interface).\(name)(\(argument.name):) expects type \(argument.type) but \(type.name).\(name)(\(argument.name):) is type \(own.type).",
                        [argument.typeLocation, own.typeLocation])
                }
            }
            for own in field.arguments where own.isRequired && !expected.arguments.contains(where: { $0.name == own.name }) {
                report(
                    "Object field \(type.name).\(name) includes required argument \(own.name) that is missing from the Interface field \(interface).\(name).",
                    [own.location, expected.location])
            }
        }
    }

    /// The spec's IsSubType for output types: the same type, a possible type of an abstract
    /// one, or non-null where null is allowed, at every level of lists.
    func isSubType(_ type: TypeRef, of expected: TypeRef) -> Bool {
        switch (type, expected) {
        case (.nonNull(let inner), .nonNull(let expectedInner)): return isSubType(inner, of: expectedInner)
        case (.nonNull(let inner), _): return isSubType(inner, of: expected)
        case (_, .nonNull): return false
        case (.list(let inner), .list(let expectedInner)): return isSubType(inner, of: expectedInner)
        case (.list, _), (_, .list): return false
        case (.named(let name), .named(let expectedName)):
            if name == expectedName { return true }
            switch kind(of: expectedName) {
            case .union: return types[expectedName]?.memberNames.contains(name) ?? false
            case .interface: return [.object, .interface].contains(kind(of: name)) && types[name]?.interfaceNames.contains(expectedName) == true
            default: return false
            }
        }
    }
}
