/// Which schema types this module generates, decided before any file is written: the object,
/// interface and union types that selection sets are on, and the enums, custom scalars and input
/// objects that fields and variables reach (input objects transitively). Types of the shared
/// schema module are its own, never generated here.
struct UsedTypes {
    var parentTypes: Set<String> = []
    var enums: Set<String> = []
    var inputObjects: Set<String> = []
    var customScalars: Set<String> = []
    /// The fields selected on each type (by schema name, `__typename` aside): what its test mock
    /// needs to offer.
    var selectedFields: [String: Set<String>] = [:]

    init(types: TypeMapping, selectionSets: [SelectionSetIR], variables: [TypeRef], everything: Bool) {
        let schema = types.schema
        if everything {
            for type in schema.types.values where !SchemaModel.builtInScalars.contains(type.name) { note(type.name, types) }
        }
        var pending = selectionSets
        var seen: Set<ObjectIdentifier> = []
        while let ir = pending.popLast() {
            guard seen.insert(ObjectIdentifier(ir)).inserted else { continue }
            parentTypes.insert(ir.typeName)
            for field in ir.fields {
                note(field.definition.type.namedType, types)
                if field.definition.name != "__typename" { selectedFields[ir.typeName, default: []].insert(field.definition.name) }
                if let nested = field.nested { pending.append(nested) }
            }
            pending += ir.typeCases
            pending += ir.deferred.compactMap(\.nested)
        }
        for variable in variables { note(variable.namedType, types) }
        var inputs = Array(inputObjects)
        while let name = inputs.popLast() {
            for field in schema.type(named: name)?.inputFields ?? [] {
                let before = inputObjects.count
                note(field.type.namedType, types)
                if inputObjects.count > before { inputs.append(field.type.namedType) }
            }
        }
    }

    private mutating func note(_ name: String, _ types: TypeMapping) {
        guard !types.sharedTypes.contains(name) else { return }
        switch types.schema.type(named: name)?.kind {
        case .enumeration: enums.insert(name)
        case .inputObject: inputObjects.insert(name)
        // `Upload` is `GraphQLFile`: nothing to generate.
        case .scalar where !SchemaModel.builtInScalars.contains(name) && name != "Upload": customScalars.insert(name)
        default: break
        }
    }
}
