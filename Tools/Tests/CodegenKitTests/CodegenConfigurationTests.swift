import CodegenKit
import Foundation
import Testing

@Suite("apollo-codegen-config.json")
struct CodegenConfigurationTests {
    let base = URL(fileURLWithPath: "/project")

    func parse(_ json: String) throws(CodegenConfigurationError) -> CodegenConfiguration {
        try CodegenConfiguration.parse(Data(json.utf8), file: "apollo-codegen-config.json", baseURL: base)
    }

    @Test("reads Apollo iOS 1.x keys")
    func apolloKeys() throws {
        let configuration = try parse("""
            {
              "schemaNamespace": "UserAPI",
              "input": { "operationSearchPaths": ["GraphQL/**/*.graphql", "!GraphQL/Old/*.graphql"], "schemaSearchPaths": ["GraphQL/Schema/*.graphqls"] },
              "output": {
                "testMocks": { "none": {} },
                "schemaTypes": { "path": "Sources/UserKit/Generated", "moduleType": { "embeddedInTarget": { "name": "UserKit", "accessModifier": "internal" } } },
                "operations": { "relative": { "subpath": "Generated", "extension": "graphql.swift" } }
              },
              "options": { "deprecatedEnumCases": "exclude", "schemaDocumentation": "include" }
            }
            """)
        #expect(configuration.schemaNamespace == "UserAPI")
        #expect(configuration.operationSearchPaths == ["GraphQL/**/*.graphql", "!GraphQL/Old/*.graphql"])
        #expect(configuration.moduleType == .embeddedInTarget(name: "UserKit", accessModifier: .internal))
        #expect(configuration.operations == .relative(subpath: "Generated", fileExtension: "graphql.swift"))
        #expect(configuration.deprecatedEnumCases == .exclude)
        #expect(configuration.testMocks == .none)
        #expect(configuration.unknownKeys.isEmpty)
    }

    @Test("unknown keys are named, with their path")
    func unknownKeys() throws {
        let configuration = try parse("""
            { "schemaNamespace": "A", "output": { "schemaTypes": { "path": "x", "moduleType": { "other": {} } }, "extra": 1 }, "bogus": true }
            """)
        #expect(configuration.unknownKeys == ["bogus", "output.extra"])
        #expect(configuration.moduleType == .other)
    }

    @Test("errors name the key at fault", arguments: [
        (#"{"output": {"schemaTypes": {"path": "x"}}}"#, "'schemaNamespace' is required"),
        (#"{"schemaNamespace": "A"}"#, "'output.schemaTypes.path' is required"),
        (#"{"schemaNamespace": "A", "output": {"schemaTypes": {"path": "x", "moduleType": {"cocoapods": {}}}}}"#,
         "'output.schemaTypes.moduleType' has unknown kind 'cocoapods'; expected one of: swiftPackageManager, embeddedInTarget, other"),
        (#"{"schemaNamespace": "A", "input": {"operationSearchPaths": "*.graphql"}, "output": {"schemaTypes": {"path": "x"}}}"#,
         "'input.operationSearchPaths' must be an array of strings"),
        ("[1]", "the config must be a JSON object"),
        (#"{"schemaNamespace": "A", "output": {"schemaTypes": {"path": "x", "moduleType": {"other": {}}}, "testMocks": {"swiftPackage": {}}}}"#,
         "'output.testMocks.swiftPackage' needs 'output.schemaTypes.moduleType' swiftPackageManager; use 'absolute' to write mocks into a test target"),
        (#"{"schemaNamespace": "A", "output": {"schemaTypes": {"path": "x"}, "testMocks": {"absolute": {}}}}"#,
         "'output.testMocks.absolute.path' is required"),
    ])
    func errors(json: String, message: String) {
        #expect(throws: CodegenConfigurationError(file: "apollo-codegen-config.json", message: message)) { try parse(json) }
    }

    @Test("a missing file is a clear error")
    func missingFile() {
        #expect(throws: CodegenConfigurationError.self) {
            try CodegenConfiguration.load(from: URL(fileURLWithPath: "/nonexistent/apollo-codegen-config.json"))
        }
    }
}

@Suite("init")
struct InitTests {
    @Test("init writes a config that generate accepts, refuses to replace one without force, and refuses bad settings")
    func writesAConfig() throws {
        let project = try Project(files: [
            "GraphQL/Schema/schema.graphqls": "type Query { hello: String }",
            "GraphQL/Operations/Hello.graphql": "query Hello { hello }",
        ])
        let path = project.configURL.path
        try FileManager.default.removeItem(atPath: path)
        var initial = InitialConfiguration(namespace: "HelloAPI", outputPath: "Sources/Hello/Generated")
        initial.targetName = "Hello"
        initial.endpoint = URL(string: "http://127.0.0.1:8080/graphql")
        try initial.write(to: path, force: false)
        let report = try Codegen.run(configURL: project.configURL)
        #expect(report.changed.contains { $0.hasSuffix("HelloQuery.graphql.swift") })
        let configuration = try CodegenConfiguration.load(from: project.configURL)
        #expect(configuration.unknownKeys.isEmpty)
        #expect(configuration.schemaDownload?.method == .introspection(URL(string: "http://127.0.0.1:8080/graphql")!, .post))
        #expect(configuration.schemaDownload?.outputPath == "GraphQL/Schema/schema.graphqls")

        let written = try project.read("apollo-codegen-config.json")
        initial.namespace = "OtherAPI"
        #expect(throws: CodegenConfigurationError.self) { try initial.write(to: path, force: false) }
        #expect(try project.read("apollo-codegen-config.json") == written)
        try initial.write(to: path, force: true)
        #expect(try project.read("apollo-codegen-config.json").contains("\"OtherAPI\""))

        initial.namespace = "not a name"
        #expect(throws: CodegenConfigurationError.self) { try initial.json() }
        initial.namespace = "HelloAPI"
        initial.targetName = nil
        #expect(throws: CodegenConfigurationError.self) { try initial.json() }
        initial.moduleType = .swiftPackageManager
        #expect(try initial.json().contains("\"swiftPackageManager\""))
    }

    @Test("schemaDownload as Apollo spells it: both header shapes, GET, JSON; mistakes name the key")
    func schemaDownloadSection() throws {
        func load(_ section: String) throws(CodegenConfigurationError) -> SchemaDownload? {
            let text = #"{"schemaNamespace": "A", "output": {"schemaTypes": {"path": "G", "moduleType": {"other": {}}}}, "schemaDownload": "# + section + "}"
            return try CodegenConfiguration.parse(Data(text.utf8), file: "c.json", baseURL: URL(fileURLWithPath: "/tmp")).schemaDownload
        }
        let get = try load(#"{"downloadMethod": {"introspection": {"endpointURL": "https://api.example.com/graphql", "httpMethod": {"GET": {"queryParameterName": "q"}}, "outputFormat": "JSON"}}, "downloadTimeout": 5, "headers": [{"key": "Authorization", "value": "Bearer ${T}"}], "outputPath": "s.json"}"#)
        #expect(get?.method == .introspection(URL(string: "https://api.example.com/graphql")!, .get(queryParameterName: "q")))
        #expect(get?.outputFormat == .json && get?.timeout == 5)
        #expect(get?.headers == [SchemaDownload.Header(name: "Authorization", value: "Bearer ${T}")])
        let registry = try load(#"{"downloadMethod": {"url": {"url": "https://registry.example.com/schema.graphqls"}}, "headers": {"X-Key": "k"}, "outputPath": "s.graphqls"}"#)
        #expect(registry?.method == .sdl(URL(string: "https://registry.example.com/schema.graphqls")!))
        #expect(registry?.headers == [SchemaDownload.Header(name: "X-Key", value: "k")])
        for (section, key) in [
            (#"{"downloadMethod": {"introspection": {"endpointURL": "ftp://x"}}, "outputPath": "s"}"#, "endpointURL"),
            (#"{"downloadMethod": {"introspection": {"endpointURL": "http://x"}}}"#, "outputPath"),
            (#"{"downloadMethod": {"apolloRegistry": {}}, "outputPath": "s"}"#, "apolloRegistry"),
            (#"{"downloadMethod": {"introspection": {"endpointURL": "http://x", "outputFormat": "XML"}}, "outputPath": "s"}"#, "outputFormat"),
            (#"{"downloadMethod": {"url": {"url": "http://x"}}, "downloadTimeout": 0, "outputPath": "s"}"#, "downloadTimeout"),
            (#"{"downloadMethod": {"url": {"url": "http://x"}}, "headers": [1], "outputPath": "s"}"#, "headers"),
        ] {
            do {
                _ = try load(section)
                Issue.record("expected an error for \(section)")
            } catch {
                #expect(error.message.contains(key), "\(error.message)")
            }
        }
    }

    @Test("a header naming an unset variable fails before anything is sent")
    func missingVariable() async throws {
        var download = SchemaDownload(method: .introspection(URL(string: "http://127.0.0.1:9/graphql")!, .post), outputPath: "s", baseURL: URL(fileURLWithPath: "/tmp"))
        download.headers = [SchemaDownload.Header(name: "Authorization", value: "Bearer ${SCHEMA_TOKEN}")]
        do {
            _ = try await download.run(environment: [:])
            Issue.record("expected a failure")
        } catch {
            #expect(error.message == "header 'Authorization' uses ${SCHEMA_TOKEN}, but the environment variable SCHEMA_TOKEN is not set")
        }
    }
}
