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
            if type?.isOneOf == true {
                writeOneOf(name, fields: fields, into: &w)
                return
            }
            w.block("\(access)struct \(context.types.swiftName(name)): InputObject") { w in
                var parameters: [String] = []
                var assignments: [String] = []
                for field in fields {
                    let (swiftType, omittable) = context.types.input(field.type, optionalDefault: field.hasDefault)
                    let property = context.types.swiftField(field.name, of: name)
                    if context.includeDocs { w.doc(field.description) }
                    if let reason = field.deprecationReason {
                        w.line("/// - Important: Deprecated: \(reason)")
                    }
                    if context.inputCycles.isIndirect(name, field.name) {
                        // Holds this type again (directly or through others): kept out of line.
                        let storage = Self.storageName(field.name)
                        w.line("\(access)var \(property): \(swiftType) {")
                        w.line("    get { \(storage).value }")
                        w.line("    set { \(storage) = InputIndirect(newValue) }")
                        w.line("}")
                        assignments.append("\(storage) = InputIndirect(\(property))")
                    } else {
                        w.line("\(access)var \(property): \(swiftType)")
                        assignments.append("self.\(property) = \(property)")
                    }
                    parameters.append("\(property): \(swiftType)" + (omittable ? " = nil" : ""))
                }
                for field in fields where context.inputCycles.isIndirect(name, field.name) {
                    let (swiftType, _) = context.types.input(field.type, optionalDefault: field.hasDefault)
                    w.line("private var \(Self.storageName(field.name)): InputIndirect<\(swiftType)>")
                }
                w.line()
                w.block("\(access)init(\(parameters.joined(separator: ", ")))") { w in
                    for assignment in assignments { w.line(assignment) }
                }
                w.line()
                let entries = fields.map { "\(SwiftNames.stringLiteral($0.name)): \(context.types.swiftField($0.name, of: name))" }
                w.line("\(GenerationContext.generatedOnly(access))var __data: InputDict { InputDict([\(entries.isEmpty ? ":" : entries.joined(separator: ", "))]) }")
            }
        }
        return GeneratedFile(path: context.layout.schemaFile("InputObjects/\(context.types.swiftName(name)).graphql.swift"), contents: w.text, overwrite: true)
    }

    /// The stored property that boxes a field in a cycle: GraphQL names never start with `__`
    /// (they are introspection's), so it meets no field's name.
    static func storageName(_ field: String) -> String { "__" + field + "Storage" }

    /// A `@oneOf` input object: an enum with a case per field, holding the field's value (never
    /// `null`), so that a value sets exactly one field.
    private func writeOneOf(_ name: String, fields: [SchemaModel.InputValue], into w: inout SwiftWriter) {
        let access = context.schemaAccess
        w.block("\(access)enum \(context.types.swiftName(name)): InputObject") { w in
            for field in fields {
                if context.includeDocs { w.doc(field.description) }
                if let reason = field.deprecationReason {
                    w.line("/// - Important: Deprecated: \(reason)")
                }
                // A case that holds this type again (directly or through others) is boxed.
                let indirect = context.inputCycles.isIndirect(name, field.name) ? "indirect " : ""
                w.line("\(indirect)case \(context.types.swiftField(field.name, of: name))(\(context.types.input(.nonNull(field.type.nullable)).type))")
            }
            w.line()
            w.line("/// The one field set.")
            w.block("\(GenerationContext.generatedOnly(access))var __data: InputDict") { w in
                if fields.isEmpty {
                    w.line("InputDict()")
                    return
                }
                w.line("switch self {")
                for field in fields {
                    w.line("case .\(context.types.swiftField(field.name, of: name))(let value): return InputDict([\(SwiftNames.stringLiteral(field.name)): value])")
                }
                w.line("}")
            }
        }
    }
}
