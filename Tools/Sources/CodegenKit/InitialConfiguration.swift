import Foundation

/// The config `apicore-codegen init` writes.
public struct InitialConfiguration: Sendable {
    /// How the schema types are packaged: `embeddedInTarget`, `swiftPackageManager` or `other`.
    public enum ModuleType: String, Sendable, CaseIterable {
        /// Inside an existing target.
        case embeddedInTarget
        /// A Swift package of its own.
        case swiftPackageManager
        /// Placed where the app's build puts it.
        case other
    }

    /// `schemaNamespace`.
    public var namespace: String
    /// The package layout.
    public var moduleType: ModuleType = .embeddedInTarget
    /// The target the code goes in (`embeddedInTarget`).
    public var targetName: String?
    /// `public` or `internal`.
    public var accessModifier = "internal"
    /// Where the generated code goes.
    public var outputPath: String
    /// Globs of the operation files.
    public var operationSearchPaths = ["GraphQL/Operations/**/*.graphql"]
    /// Globs of the schema files.
    public var schemaSearchPaths = ["GraphQL/Schema/*.graphqls"]
    /// A GraphQL endpoint to fetch the schema from with `fetch-schema`, if any.
    public var endpoint: URL?
    /// Where `fetch-schema` writes (with `endpoint`).
    public var schemaOutputPath = "GraphQL/Schema/schema.graphqls"

    /// A config for `namespace`, generating into `outputPath`.
    public init(namespace: String, outputPath: String) {
        self.namespace = namespace
        self.outputPath = outputPath
    }

    /// The file's text, or what is wrong with the settings.
    public func json() throws(CodegenConfigurationError) -> String {
        func fail(_ message: String) -> CodegenConfigurationError { CodegenConfigurationError(file: "init", message: message) }
        guard namespace.first?.isLetter == true, namespace.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw fail("the namespace must be a Swift type name (letters, digits, _), not '\(namespace)'")
        }
        guard ["public", "internal"].contains(accessModifier) else { throw fail("the access modifier must be 'public' or 'internal', not '\(accessModifier)'") }
        var module: [String: Any]
        switch moduleType {
        case .embeddedInTarget:
            guard let targetName, !targetName.isEmpty else { throw fail("--module-type embeddedInTarget needs --target-name") }
            module = ["embeddedInTarget": ["name": targetName, "accessModifier": accessModifier]]
        case .swiftPackageManager: module = ["swiftPackageManager": [String: Any]()]
        case .other: module = ["other": [String: Any]()]
        }
        var config: [String: Any] = [
            "schemaNamespace": namespace,
            "input": ["operationSearchPaths": operationSearchPaths, "schemaSearchPaths": schemaSearchPaths],
            "output": ["schemaTypes": ["path": outputPath, "moduleType": module], "operations": ["inSchemaModule": [String: Any]()]],
            "options": ["deprecatedEnumCases": "include", "schemaDocumentation": "include"],
        ]
        if let endpoint {
            config["schemaDownload"] = [
                "downloadMethod": ["introspection": ["endpointURL": endpoint.absoluteString, "httpMethod": ["POST": [String: Any]()], "outputFormat": "SDL"]],
                "downloadTimeout": 30, "headers": [String: Any](), "outputPath": schemaOutputPath,
            ]
        }
        let data = (try? JSONSerialization.data(withJSONObject: config, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Writes the config to `path`; an existing file is an error unless `force`.
    public func write(to path: String, force: Bool) throws(CodegenConfigurationError) {
        let text = try json()
        if FileManager.default.fileExists(atPath: path) && !force {
            throw CodegenConfigurationError(file: path, message: "the file exists; use --force to replace it")
        }
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw CodegenConfigurationError(file: path, message: "cannot write the config (\(error.localizedDescription))")
        }
    }
}
