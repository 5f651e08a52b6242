/// The namespace file: the object, interface and union types that this module's selection sets
/// are on, as `ParentType` metadata (key fields, possible types).
struct SchemaTypesTemplate {
    let context: GenerationContext

    func render(parentTypes: Set<String>) -> GeneratedFile {
        let access = context.schemaAccess
        let spi = GenerationContext.generatedOnly(access)
        let schema = context.schema
        var w = context.newFile(source: nil)
        w.line("/// The types of the \(context.namespace) schema that this module's operations use.")
        w.block("\(GenerationContext.topLevel)\(access)enum \(context.namespace)") { w in
            let groups: [(String, SchemaModel.Kind, String)] = [
                ("Objects", .object, "Object types, with the fields that identify them in the cache."),
                ("Interfaces", .interface, "Interfaces, with the object types that implement them."),
                ("Unions", .union, "Unions, with their member types."),
            ]
            var first = true
            for (group, kind, summary) in groups {
                let names = parentTypes.filter { schema.type(named: $0)?.kind == kind }.sorted()
                guard !names.isEmpty else { continue }
                if !first { w.line() }
                first = false
                w.line("/// \(summary)")
                w.block("\(access)enum \(group)") { w in
                    for name in names {
                        let keys = schema.keyFields(of: name)
                        let keyArgument = keys.isEmpty ? "" : ", keyFields: [\(keys.map(SwiftNames.stringLiteral).joined(separator: ", "))]"
                        if kind == .object {
                            w.line("\(spi)static let \(context.types.swiftName(name)) = ParentType.object(\(SwiftNames.stringLiteral(name))\(keyArgument))")
                        } else {
                            let possibleTypes = schema.possibleTypes(of: name).sorted()
                            let possible = possibleTypes.map(SwiftNames.stringLiteral).joined(separator: ", ")
                            // Objects are keyed by their runtime type's key fields, not the declared type's.
                            let differing = possibleTypes.map { ($0, schema.keyFields(of: $0)) }.filter { $0.1 != keys && !$0.1.isEmpty }
                            let byType = differing.isEmpty ? "" : ", keyFieldsByType: [" + differing.map { type, fields in
                                "\(SwiftNames.stringLiteral(type)): [\(fields.map(SwiftNames.stringLiteral).joined(separator: ", "))]"
                            }.joined(separator: ", ") + "]"
                            w.line("\(spi)static let \(context.types.swiftName(name)) = ParentType.abstract(\(SwiftNames.stringLiteral(name)), possibleTypes: [\(possible)]\(keyArgument)\(byType))")
                        }
                    }
                }
            }
        }
        return GeneratedFile(path: context.layout.schemaFile("\(context.namespace).graphql.swift"), contents: w.text, overwrite: true)
    }
}
