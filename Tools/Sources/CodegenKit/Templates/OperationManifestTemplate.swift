@_spi(Tools) import enum APICore.JSONSerializer
import enum APICore.JSONValue

/// The persisted-query manifest: `apollo-persisted-query-manifest` v1, or the legacy id → body
/// map. Local cache mutations are never sent, so they are not in it.
struct OperationManifestTemplate {
    let context: GenerationContext
    let operations: [GQL.Operation]

    func render(_ manifest: CodegenConfiguration.OperationManifest) -> GeneratedFile {
        let entries = operations.filter { !$0.directives.isLocalCacheMutation }.map { operation in
            let body = DocumentPrinter.document(of: operation, fragments: context.fragments, schema: context.schema)
            return (id: context.operationID(operation.name, document: body), body: body, name: operation.name, type: operation.kind.rawValue)
        }
        let json: JSONValue
        if manifest.version == "legacy" {
            json = .object(Dictionary(uniqueKeysWithValues: entries.map { ($0.id, JSONValue.string($0.body)) }))
        } else {
            json = [
                "format": "apollo-persisted-query-manifest", "version": 1,
                "operations": .array(entries.map { ["id": .string($0.id), "body": .string($0.body), "name": .string($0.name), "type": .string($0.type)] }),
            ]
        }
        return GeneratedFile(path: manifest.path, contents: JSONSerializer.string(json) + "\n", overwrite: true)
    }
}
