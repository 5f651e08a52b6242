@_spi(Tools) import enum APICore.JSONParser
import Foundation

// Reading apollo-codegen-config.json: JSON text into a `CodegenConfiguration`, each wrong or
// unknown value named by its path in the file.

extension CodegenConfiguration {
    /// Reads the config file at `url`.
    public static func load(from url: URL) throws(CodegenConfigurationError) -> CodegenConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CodegenConfigurationError(file: url.path, message: "cannot read the config file (\(error.localizedDescription))")
        }
        return try parse(data, file: url.path, baseURL: url.deletingLastPathComponent())
    }

    /// Reads a config from its JSON text.
    public static func parse(_ data: Data, file: String, baseURL: URL) throws(CodegenConfigurationError) -> CodegenConfiguration {
        // APICore's parser first: it says where the text stops being JSON.
        do {
            _ = try JSONParser.parse(data)
        } catch {
            throw CodegenConfigurationError(file: file, line: error.line, column: error.column, message: "not valid JSON: \(error.message)")
        }
        let root: [String: Any]
        do {
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw CodegenConfigurationError(file: file, message: "the config must be a JSON object")
            }
            root = object
        } catch let error as CodegenConfigurationError {
            throw error
        } catch {
            throw CodegenConfigurationError(file: file, message: "not valid JSON (\(error.localizedDescription))")
        }
        var reader = Reader(file: file)
        return try reader.read(root, baseURL: baseURL)
    }
}

private struct Reader {
    let file: String
    var unknown: [String] = []

    func fail(_ message: String) -> CodegenConfigurationError {
        CodegenConfigurationError(file: file, message: message)
    }

    mutating func object(_ value: Any?, at path: String, known: Set<String>) throws(CodegenConfigurationError) -> [String: Any] {
        guard let value else { return [:] }
        guard let object = value as? [String: Any] else { throw fail("'\(path)' must be an object") }
        for key in object.keys.sorted() where !known.contains(key) {
            unknown.append(path.isEmpty ? key : "\(path).\(key)")
        }
        return object
    }

    func string(_ value: Any?, at path: String) throws(CodegenConfigurationError) -> String? {
        guard let value else { return nil }
        guard let string = value as? String else { throw fail("'\(path)' must be a string") }
        return string
    }

    /// `customTypeNames`: by GraphQL type name, a Swift name, or `{"enum": {"name": …, "cases":
    /// {…}}}` / `{"inputObject": {"name": …, "fields": {…}}}`; every name a Swift identifier.
    mutating func customTypeNames(_ value: Any?) throws(CodegenConfigurationError) -> [String: CodegenConfiguration.CustomTypeName] {
        let path = "options.schemaCustomization.customTypeNames"
        guard let value else { return [:] }
        guard let entries = value as? [String: Any] else { throw fail("'\(path)' must be an object") }
        var result: [String: CodegenConfiguration.CustomTypeName] = [:]
        func identifier(_ value: Any?, at path: String) throws(CodegenConfigurationError) -> String {
            guard let name = try string(value, at: path) else { throw fail("'\(path)' is required") }
            guard let first = name.unicodeScalars.first, first == "_" || CharacterSet.letters.contains(first),
                name.unicodeScalars.allSatisfy({ $0 == "_" || CharacterSet.alphanumerics.contains($0) })
            else { throw fail("'\(path)' must be a Swift identifier, not '\(name)'") }
            return name
        }
        func names(_ value: Any?, at path: String) throws(CodegenConfigurationError) -> [String: String] {
            guard let value else { return [:] }
            guard let object = value as? [String: Any] else { throw fail("'\(path)' must be an object") }
            var names: [String: String] = [:]
            for (key, name) in object { names[key] = try identifier(name, at: "\(path).\(key)") }
            return names
        }
        for (type, entry) in entries.sorted(by: { $0.key < $1.key }) {
            let at = "\(path).\(type)"
            if entry is String {
                result[type] = CodegenConfiguration.CustomTypeName(name: try identifier(entry, at: at))
                continue
            }
            switch try tagged(entry, at: at, cases: ["enum", "inputObject"]) {
            case ("enum", let payload)?:
                _ = try object(payload, at: "\(at).enum", known: ["name", "cases"])
                result[type] = CodegenConfiguration.CustomTypeName(
                    name: try identifier(payload["name"], at: "\(at).enum.name"), enumCases: try names(payload["cases"], at: "\(at).enum.cases"))
            case (_, let payload)?:
                _ = try object(payload, at: "\(at).inputObject", known: ["name", "fields"])
                result[type] = CodegenConfiguration.CustomTypeName(
                    name: try identifier(payload["name"], at: "\(at).inputObject.name"),
                    inputFields: try names(payload["fields"], at: "\(at).inputObject.fields"))
            case nil:
                break
            }
        }
        return result
    }

    func bool(_ value: Any?, at path: String) throws(CodegenConfigurationError) -> Bool? {
        guard let value else { return nil }
        guard let bool = value as? Bool else { throw fail("'\(path)' must be true or false") }
        return bool
    }

    func strings(_ value: Any?, at path: String) throws(CodegenConfigurationError) -> [String]? {
        guard let value else { return nil }
        guard let strings = value as? [String] else { throw fail("'\(path)' must be an array of strings") }
        return strings
    }

    /// An Apollo "tagged" value: an object with exactly one key naming the case.
    func tagged(_ value: Any?, at path: String, cases: [String]) throws(CodegenConfigurationError) -> (String, [String: Any])? {
        guard let value else { return nil }
        guard let object = value as? [String: Any], object.count == 1, let (tag, payload) = object.first else {
            throw fail("'\(path)' must be an object with one of: \(cases.joined(separator: ", "))")
        }
        guard cases.contains(tag) else { throw fail("'\(path)' has unknown kind '\(tag)'; expected one of: \(cases.joined(separator: ", "))") }
        return (tag, payload as? [String: Any] ?? [:])
    }

    func access(_ value: Any?, at path: String, default fallback: CodegenConfiguration.AccessModifier)
        throws(CodegenConfigurationError) -> CodegenConfiguration.AccessModifier
    {
        guard let raw = try string(value, at: path) else { return fallback }
        guard let modifier = CodegenConfiguration.AccessModifier(rawValue: raw) else {
            throw fail("'\(path)' must be 'public' or 'internal', not '\(raw)'")
        }
        return modifier
    }

    func inclusion(_ value: Any?, at path: String) throws(CodegenConfigurationError) -> CodegenConfiguration.Inclusion {
        guard let raw = try string(value, at: path) else { return .include }
        guard let inclusion = CodegenConfiguration.Inclusion(rawValue: raw) else {
            throw fail("'\(path)' must be 'include' or 'exclude', not '\(raw)'")
        }
        return inclusion
    }

    mutating func read(_ root: [String: Any], baseURL: URL) throws(CodegenConfigurationError) -> CodegenConfiguration {
        let top = try object(root, at: "", known: ["schemaNamespace", "input", "output", "options", "experimentalFeatures", "schemaDownload", "operationManifest", "apicore"])
        let apicore = try object(top["apicore"], at: "apicore", known: ["apiCoreKitPath", "sharedSchema", "generateAllSchemaTypes", "operationIdentifiers"])
        var sharedSchema: CodegenConfiguration.SharedSchema?
        if apicore["sharedSchema"] != nil {
            let shared = try object(apicore["sharedSchema"], at: "apicore.sharedSchema", known: ["module", "namespace", "schemaSearchPaths"])
            guard let module = try string(shared["module"], at: "apicore.sharedSchema.module"),
                let namespace = try string(shared["namespace"], at: "apicore.sharedSchema.namespace"),
                let paths = try strings(shared["schemaSearchPaths"], at: "apicore.sharedSchema.schemaSearchPaths")
            else { throw fail("'apicore.sharedSchema' needs 'module', 'namespace' and 'schemaSearchPaths'") }
            sharedSchema = CodegenConfiguration.SharedSchema(module: module, namespace: namespace, schemaSearchPaths: paths)
        }
        if let value = apicore["generateAllSchemaTypes"], !(value is Bool) {
            throw fail("'apicore.generateAllSchemaTypes' must be true or false")
        }
        guard let namespace = try string(top["schemaNamespace"], at: "schemaNamespace"), !namespace.isEmpty else {
            throw fail("'schemaNamespace' is required")
        }
        let input = try object(top["input"], at: "input", known: ["operationSearchPaths", "schemaSearchPaths"])
        let output = try object(top["output"], at: "output", known: ["schemaTypes", "operations", "testMocks", "operationIdentifiersPath"])
        let schemaTypes = try object(output["schemaTypes"], at: "output.schemaTypes", known: ["path", "moduleType"])
        guard let schemaPath = try string(schemaTypes["path"], at: "output.schemaTypes.path") else {
            throw fail("'output.schemaTypes.path' is required")
        }
        let moduleType: CodegenConfiguration.ModuleType
        switch try tagged(schemaTypes["moduleType"], at: "output.schemaTypes.moduleType", cases: ["swiftPackageManager", "embeddedInTarget", "other"]) {
        case ("embeddedInTarget", let payload)?:
            guard let name = try string(payload["name"], at: "output.schemaTypes.moduleType.embeddedInTarget.name") else {
                throw fail("'output.schemaTypes.moduleType.embeddedInTarget.name' is required")
            }
            moduleType = .embeddedInTarget(
                name: name, accessModifier: try access(payload["accessModifier"], at: "output.schemaTypes.moduleType.embeddedInTarget.accessModifier", default: .internal))
        case ("other", _)?: moduleType = .other
        default: moduleType = .swiftPackageManager
        }
        let operations: CodegenConfiguration.OperationsLocation
        switch try tagged(output["operations"], at: "output.operations", cases: ["inSchemaModule", "relative", "absolute"]) {
        case ("relative", let payload)?:
            operations = .relative(
                subpath: try string(payload["subpath"], at: "output.operations.relative.subpath"),
                fileExtension: try string(payload["extension"], at: "output.operations.relative.extension") ?? "graphql.swift")
        case ("absolute", let payload)?:
            guard let path = try string(payload["path"], at: "output.operations.absolute.path") else {
                throw fail("'output.operations.absolute.path' is required")
            }
            operations = .absolute(path: path, accessModifier: try access(payload["accessModifier"], at: "output.operations.absolute.accessModifier", default: .internal))
        default: operations = .inSchemaModule
        }
        let testMocks: CodegenConfiguration.TestMocks
        switch try tagged(output["testMocks"], at: "output.testMocks", cases: ["none", "swiftPackage", "absolute"]) {
        case ("swiftPackage", let payload)?:
            guard moduleType == .swiftPackageManager else {
                throw fail("'output.testMocks.swiftPackage' needs 'output.schemaTypes.moduleType' swiftPackageManager; use 'absolute' to write mocks into a test target")
            }
            testMocks = .swiftPackage(targetName: try string(payload["targetName"], at: "output.testMocks.swiftPackage.targetName"))
        case ("absolute", let payload)?:
            guard let path = try string(payload["path"], at: "output.testMocks.absolute.path") else {
                throw fail("'output.testMocks.absolute.path' is required")
            }
            testMocks = .absolute(path: path, accessModifier: try access(payload["accessModifier"], at: "output.testMocks.absolute.accessModifier", default: .internal))
        default: testMocks = .none
        }
        let options = try object(top["options"], at: "options", known: ["deprecatedEnumCases", "schemaDocumentation", "selectionSetInitializers", "schemaCustomization"])
        var initializers = CodegenConfiguration.SelectionSetInitializers()
        if options["selectionSetInitializers"] != nil {
            let path = "options.selectionSetInitializers"
            let object = try object(options["selectionSetInitializers"], at: path, known: ["operations", "namedFragments", "localCacheMutations", "definitionsNamed"])
            initializers.operations = try bool(object["operations"], at: "\(path).operations") ?? false
            initializers.namedFragments = try bool(object["namedFragments"], at: "\(path).namedFragments") ?? false
            initializers.localCacheMutations = try bool(object["localCacheMutations"], at: "\(path).localCacheMutations") ?? false
            initializers.definitionsNamed = Set(try strings(object["definitionsNamed"], at: "\(path).definitionsNamed") ?? [])
        }
        let customization = try object(options["schemaCustomization"], at: "options.schemaCustomization", known: ["customTypeNames"])
        let customTypeNames = try self.customTypeNames(customization["customTypeNames"])
        var manifest: CodegenConfiguration.OperationManifest?
        if top["operationManifest"] != nil {
            let object = try object(top["operationManifest"], at: "operationManifest", known: ["path", "version", "generateManifestOnCodeGeneration"])
            guard let path = try string(object["path"], at: "operationManifest.path") else { throw fail("'operationManifest.path' is required") }
            let version = try string(object["version"], at: "operationManifest.version") ?? "persistedQueries"
            guard ["persistedQueries", "legacy"].contains(version) else {
                throw fail("'operationManifest.version' must be 'persistedQueries' or 'legacy', not '\(version)'")
            }
            manifest = CodegenConfiguration.OperationManifest(path: path, version: version)
        }
        var configuration = CodegenConfiguration(
            schemaNamespace: namespace,
            operationSearchPaths: try strings(input["operationSearchPaths"], at: "input.operationSearchPaths") ?? ["**/*.graphql"],
            schemaSearchPaths: try strings(input["schemaSearchPaths"], at: "input.schemaSearchPaths") ?? ["**/*.graphqls"],
            schemaTypesPath: schemaPath,
            moduleType: moduleType,
            operations: operations,
            testMocks: testMocks,
            deprecatedEnumCases: try inclusion(options["deprecatedEnumCases"], at: "options.deprecatedEnumCases"),
            schemaDocumentation: try inclusion(options["schemaDocumentation"], at: "options.schemaDocumentation"),
            baseURL: baseURL,
            unknownKeys: unknown,
            apiCoreKitPath: try string(apicore["apiCoreKitPath"], at: "apicore.apiCoreKitPath"),
            sharedSchema: sharedSchema,
            generateAllSchemaTypes: apicore["generateAllSchemaTypes"] as? Bool ?? false,
            operationManifest: manifest
        )
        if let identifiers = apicore["operationIdentifiers"] {
            guard let identifiers = identifiers as? [String: Any], let ids = identifiers as? [String: String], !ids.values.contains("") else {
                throw fail("'apicore.operationIdentifiers' must map operation names to non-empty id strings")
            }
            guard manifest != nil else { throw fail("'apicore.operationIdentifiers' needs 'operationManifest', which sends the ids") }
            configuration.operationIdentifiers = ids
        }
        configuration.schemaDownload = try schemaDownload(top["schemaDownload"], baseURL: baseURL)
        configuration.selectionSetInitializers = initializers
        configuration.customTypeNames = customTypeNames
        return configuration
    }

    /// `schemaDownload` as Apollo iOS spells it: `downloadMethod` (`introspection` with
    /// `endpointURL`, `httpMethod` `{"POST": {}}` or `{"GET": {"queryParameterName": …}}`,
    /// `outputFormat` `SDL` or `JSON`, `includeDeprecatedInputValues`; or our `url`, a registry
    /// address that serves SDL), `downloadTimeout` in seconds, `headers` (an object, or Apollo's
    /// `[{"key", "value"}]`), `outputPath`.
    mutating func schemaDownload(_ value: Any?, baseURL: URL) throws(CodegenConfigurationError) -> SchemaDownload? {
        guard value != nil else { return nil }
        let section = try object(value, at: "schemaDownload", known: ["downloadMethod", "downloadTimeout", "headers", "outputPath"])
        guard let outputPath = try string(section["outputPath"], at: "schemaDownload.outputPath"), !outputPath.isEmpty else {
            throw fail("'schemaDownload.outputPath' is required")
        }
        var download = SchemaDownload(method: .sdl(URL(fileURLWithPath: "/")), outputPath: outputPath, baseURL: baseURL)
        func address(_ value: Any?, at path: String) throws(CodegenConfigurationError) -> URL {
            guard let text = try string(value, at: path), let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw fail("'\(path)' must be an http or https URL")
            }
            return url
        }
        switch try tagged(section["downloadMethod"], at: "schemaDownload.downloadMethod", cases: ["introspection", "url", "apolloRegistry"]) {
        case ("introspection", let payload)?:
            let path = "schemaDownload.downloadMethod.introspection"
            let options = try object(payload, at: path, known: ["endpointURL", "httpMethod", "outputFormat", "includeDeprecatedInputValues"])
            var httpMethod = SchemaDownload.HTTPMethod.post
            if let (tag, get) = try tagged(options["httpMethod"], at: "\(path).httpMethod", cases: ["POST", "GET"]), tag == "GET" {
                httpMethod = .get(queryParameterName: try string(get["queryParameterName"], at: "\(path).httpMethod.GET.queryParameterName") ?? "query")
            }
            download.method = .introspection(try address(options["endpointURL"], at: "\(path).endpointURL"), httpMethod)
            if let format = try string(options["outputFormat"], at: "\(path).outputFormat") {
                guard let parsed = SchemaDownload.OutputFormat(rawValue: format) else { throw fail("'\(path).outputFormat' must be 'SDL' or 'JSON', not '\(format)'") }
                download.outputFormat = parsed
            }
            if let value = options["includeDeprecatedInputValues"] {
                guard let flag = value as? Bool else { throw fail("'\(path).includeDeprecatedInputValues' must be true or false") }
                download.includeDeprecatedInputValues = flag
            }
        case ("url", let payload)?:
            let options = try object(payload, at: "schemaDownload.downloadMethod.url", known: ["url", "outputFormat"])
            download.method = .sdl(try address(options["url"], at: "schemaDownload.downloadMethod.url.url"))
            if let format = try string(options["outputFormat"], at: "schemaDownload.downloadMethod.url.outputFormat") {
                guard let parsed = SchemaDownload.OutputFormat(rawValue: format) else { throw fail("'schemaDownload.downloadMethod.url.outputFormat' must be 'SDL' or 'JSON'") }
                download.outputFormat = parsed
            }
        case ("apolloRegistry", _)?:
            throw fail("'schemaDownload.downloadMethod.apolloRegistry' (Apollo's hosted registry) is not supported: use 'introspection', or 'url' for a registry that serves SDL")
        default:
            throw fail("'schemaDownload.downloadMethod' is required")
        }
        if let timeout = section["downloadTimeout"] {
            guard let seconds = (timeout as? NSNumber)?.doubleValue, !(timeout is Bool), seconds > 0 else { throw fail("'schemaDownload.downloadTimeout' must be a number of seconds above 0") }
            download.timeout = seconds
        }
        switch section["headers"] {
        case nil: break
        case let headers as [String: Any]:
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
                guard let text = value as? String else { throw fail("'schemaDownload.headers.\(name)' must be a string") }
                download.headers.append(SchemaDownload.Header(name: name, value: text))
            }
        case let headers as [Any]:
            for (index, entry) in headers.enumerated() {
                guard let pair = entry as? [String: Any], let name = pair["key"] as? String, let text = pair["value"] as? String else {
                    throw fail("'schemaDownload.headers[\(index)]' must be {\"key\": …, \"value\": …}")
                }
                download.headers.append(SchemaDownload.Header(name: name, value: text))
            }
        default:
            throw fail("'schemaDownload.headers' must be an object of names to values, or an array of {\"key\", \"value\"}")
        }
        return download
    }
}
