import GraphQL

/// The generator's own rules for a schema that passed graphql-js's (`Validation/`): what its
/// client directives say must hold.
struct SchemaRules {
    let model: SchemaModel
    var diagnostics: [Diagnostic] = []

    /// Every problem of `documents`, read into `model`.
    static func check(_ documents: [Document], model: SchemaModel) -> [Diagnostic] {
        var rules = SchemaRules(model: model)
        rules.checkFieldPolicies()
        return rules.diagnostics
    }

    private mutating func report(_ location: Location?, _ message: String) {
        diagnostics.append(Diagnostic(at: location, fallbackFile: "schema", message))
    }

    /// `@fieldPolicy(forField:keyArgs:)`: the field exists, its key arguments are its own, and it
    /// returns an object type (or a list of one) with as many key fields as there are key arguments.
    private mutating func checkFieldPolicies() {
        for type in model.types.values.sorted(by: { $0.name < $1.name }) {
            for (name, policy) in type.fieldPolicies.sorted(by: { $0.key < $1.key }) {
                let at = "@fieldPolicy(forField: \"\(name)\") on '\(type.name)'"
                guard let field = type.field(named: name) else {
                    report(policy.location, "\(at): '\(type.name)' has no field '\(name)'")
                    continue
                }
                if policy.keyArgs.isEmpty { report(policy.location, "\(at): keyArgs names no argument") }
                for argument in policy.keyArgs where !field.arguments.contains(where: { $0.name == argument }) {
                    report(policy.location, "\(at): '\(type.name).\(name)' has no argument '\(argument)'")
                }
                let target = field.type.namedType
                guard model.type(named: target)?.kind == .object else {
                    report(policy.location, "\(at): the field returns '\(target)', not an object type, whose records its arguments could name")
                    continue
                }
                let keys = model.keyFields(of: target)
                if !policy.keyArgs.isEmpty && keys.count != policy.keyArgs.count {
                    report(
                        policy.location,
                        "\(at): keyArgs names \(policy.keyArgs.count) argument(s) but '\(target)' has \(keys.count) key field(s) (\(keys.joined(separator: ", ")))")
                }
            }
        }
    }
}
