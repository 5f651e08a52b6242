/// An input object's file: a struct with a property per field (optional ones default to absent)
/// and the `__data` that is sent.
struct InputObjectTemplate {
    let context: GenerationContext

    func render(_ name: String) -> GeneratedFile {
        let type = context.schema.type(named: name)
        let fields = type?.inputFields ?? []
        let access = context.schemaAccess
        var w = context.newFile(source: nil)
        w.block("\(GenerationContext.topLevel)extension \(context.namespace)") { w in
            if context.includeDocs { w.doc(type?.description) }
            w.block("\(access)struct \(name): InputObject") { w in
                var parameters: [String] = []
                for field in fields {
                    let (swiftType, omittable) = context.types.input(field.type, optionalDefault: field.hasDefault)
                    if context.includeDocs { w.doc(field.description) }
                    if let reason = field.deprecationReason {
                        w.line("/// - Important: Deprecated: \(reason)")
                    }
                    w.line("\(access)var \(SwiftNames.identifier(field.name)): \(swiftType)")
                    parameters.append("\(SwiftNames.identifier(field.name)): \(swiftType)" + (omittable ? " = nil" : ""))
                }
                w.line()
                w.block("\(access)init(\(parameters.joined(separator: ", ")))") { w in
                    for field in fields { w.line("self.\(SwiftNames.identifier(field.name)) = \(SwiftNames.identifier(field.name))") }
                }
                w.line()
                let entries = fields.map { "\(SwiftNames.stringLiteral($0.name)): \(SwiftNames.identifier($0.name))" }
                w.line("\(GenerationContext.generatedOnly(access))var __data: InputDict { InputDict([\(entries.isEmpty ? ":" : entries.joined(separator: ", "))]) }")
            }
        }
        return GeneratedFile(path: context.layout.schemaFile("InputObjects/\(name).graphql.swift"), contents: w.text, overwrite: true)
    }
}
