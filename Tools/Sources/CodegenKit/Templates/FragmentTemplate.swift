/// A named fragment's file: its selection set as a `Fragment`, with the definition that travels
/// with every operation that spreads it.
struct FragmentTemplate {
    let context: GenerationContext
    let selectionSets: SelectionSetTemplate

    func render(_ fragment: GQL.Fragment, ir: SelectionSetIR) -> GeneratedFile {
        let source = context.sourceFiles["fragment " + fragment.name]
        var writer = context.newFile(source: source, extraImports: fragment.directives.importedModules)
        let spi = GenerationContext.generatedOnly(context.operationAccess)
        let isLocal = fragment.directives.isLocalCacheMutation
        let initializers = context.configuration.selectionSetInitializers.applies(to: fragment.name, isFragment: true, isLocalCacheMutation: isLocal)
        writer.doc(fragment.description)
        selectionSets.write(ir, role: .fragment, mutable: isLocal, initializers: initializers, into: &writer) { w in
            w.line("\(spi)static var fragmentDefinition: String { \(SwiftNames.stringLiteral(DocumentPrinter.print(fragment, schema: context.schema))) }")
        }
        let path = context.layout.operationFile(named: fragment.name, folder: "Fragments", source: source)
        return GeneratedFile(path: path, contents: writer.text, overwrite: true)
    }
}
