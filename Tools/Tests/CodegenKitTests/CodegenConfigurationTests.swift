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
