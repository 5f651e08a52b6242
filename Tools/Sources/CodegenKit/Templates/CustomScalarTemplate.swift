/// A custom scalar's file: a `String` typealias, written once and then the user's to replace.
struct CustomScalarTemplate {
    let context: GenerationContext

    func render(_ name: String) -> GeneratedFile {
        var writer = SwiftWriter()
        writer.line("// Written once by apicore-codegen and never overwritten: replace the typealias with your own")
        writer.line("// type (conforming to APICore's CustomScalarType) to read \(name) as something richer than text.")
        writer.line("// The extension is `nonisolated` so that the type is usable from any isolation.")
        writer.line()
        writer.line("import APICore")
        writer.line()
        writer.block("\(GenerationContext.topLevel)extension \(context.namespace)") { w in
            if context.includeDocs { w.doc(context.schema.type(named: name)?.description) }
            w.line("\(context.schemaAccess)typealias \(context.types.swiftName(name)) = String")
        }
        return GeneratedFile(path: context.layout.schemaFile("CustomScalars/\(context.types.swiftName(name)).scalar.swift"), contents: writer.text, overwrite: false)
    }
}
