/// An enum's file: a Swift enum with a case per value (deprecated ones as the config says), read
/// through `GraphQLEnum` so that values added later decode as `.unknown`.
struct EnumTemplate {
    let context: GenerationContext

    func render(_ name: String) -> GeneratedFile {
        let type = context.schema.type(named: name)
        let access = context.schemaAccess
        var w = context.newFile(source: nil)
        w.block("\(GenerationContext.topLevel)extension \(context.namespace)") { w in
            if context.includeDocs { w.doc(type?.description) }
            w.block("\(access)enum \(context.types.swiftName(name)): String, EnumType") { w in
                let values = type?.enumValues ?? []
                let cases = context.types.swiftCases(values.map(\.name), of: name)
                for (value, swiftCase) in zip(values, cases) {
                    if value.deprecationReason != nil && context.configuration.deprecatedEnumCases == .exclude { continue }
                    if context.includeDocs { w.doc(value.description) }
                    if let reason = value.deprecationReason {
                        w.line("/// - Important: Deprecated: \(reason)")
                    }
                    w.line("case \(swiftCase) = \(SwiftNames.stringLiteral(value.name))")
                }
            }
        }
        return GeneratedFile(path: context.layout.schemaFile("Enums/\(context.types.swiftName(name)).graphql.swift"), contents: w.text, overwrite: true)
    }
}
