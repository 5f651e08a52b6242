import Foundation

extension KitScaffold.Plan {
    /// The kit's files, by path relative to the repository: its package, codegen config, first
    /// operation, model, repository protocol, service, mapping, a test of the mapping on
    /// `MockAPIClient`, README and CHANGELOG. Generated code is not among them: the generator writes it.
    public var files: [String: String] {
        let kit = request.name
        let sources = "\(kit)/Sources/\(kit)"
        return [
            "\(kit)/Package.swift": package,
            "\(kit)/apollo-codegen-config.json": codegenConfig,
            "\(kit)/GraphQL/Operations/\(request.base).graphql": operation,
            "\(sources)/Models.swift": model,
            "\(sources)/\(request.base)Repository.swift": repository,
            "\(sources)/\(request.base)Service.swift": service,
            "\(sources)/Mapping.swift": mapping,
            "\(kit)/Tests/\(kit)Tests/\(request.base)ServiceTests.swift": tests,
            "\(kit)/README.md": readme,
            "\(kit)/CHANGELOG.md": "# \(kit) changelog\n\n## Unreleased\n\n- First version (scripts/new-kit.sh): `query \(query.operationName)` mapped to `\(modelName)` by `\(request.base)Service`.\n",
        ]
    }

    private var modelName: String { query.typeName }
    private var method: String { SwiftNames.identifier(query.field) }
    private var fragmentProperty: String { query.fragmentName.prefix(1).lowercased() + query.fragmentName.dropFirst() }

    private func swiftType(_ type: KitScaffold.Value) -> String { Self.swiftType(type.type) }

    private static func swiftType(_ type: TypeRef) -> String {
        let inner: String
        switch type.nullable {
        case .list(let element): inner = "[" + swiftType(element) + "]"
        default: inner = KitScaffold.builtInSwiftTypes[type.namedType] ?? "String"
        }
        return type.isNonNull ? inner : inner + "?"
    }

    /// What the service returns for the root field: the model, an optional one, or an array (a
    /// missing list is empty, missing items are dropped).
    private var returnType: String {
        query.returns.nullable.isList ? "[\(modelName)]" : query.returns.isNonNull ? modelName : modelName + "?"
    }

    private var parameters: String {
        query.arguments.map { "\($0.name): \(swiftType($0))" }.joined(separator: ", ")
    }

    private var operationCall: String {
        "\(query.operationName)Query(" + query.arguments.map { "\($0.name): \(SwiftNames.identifier($0.name))" }.joined(separator: ", ") + ")"
    }

    /// `data.field` mapped to the service's return type.
    private var mapped: String {
        let value = "data.\(SwiftNames.identifier(query.field))"
        let make = "\(modelName)($0.fragments.\(fragmentProperty))"
        guard query.returns.nullable.isList, let element = query.returns.nullable.listElement else {
            return query.returns.isNonNull ? "\(modelName)(\(value).fragments.\(fragmentProperty))" : "\(value).map { \(make) }"
        }
        let list = query.returns.isNonNull ? value : "(\(value) ?? [])"
        return element.isNonNull ? "\(list).map { \(make) }" : "\(list).compactMap { $0.map { \(make) } }"
    }

    // MARK: Files

    private var package: String {
        """
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(
            name: "\(request.name)",
            platforms: [.macOS(.v14), .iOS(.v17)],
            products: [
                .library(name: "\(request.name)", targets: ["\(request.name)"])
            ],
            dependencies: [
                .package(path: "../APICoreKit"),
                .package(path: "../SharedKit"),
            ],
            targets: [
                .target(
                    name: "\(request.name)",
                    dependencies: [
                        .product(name: "APICore", package: "APICoreKit"),
                        .product(name: "SharedKit", package: "SharedKit"),
                    ]
                ),
                .testTarget(
                    name: "\(request.name)Tests",
                    dependencies: ["\(request.name)", .product(name: "APICoreTesting", package: "APICoreKit")]
                ),
            ]
        )

        """
    }

    private var codegenConfig: String {
        let slice = slicePath.split(separator: "/").dropFirst().joined(separator: "/")
        return """
            {
              "schemaNamespace": "\(request.base)API",
              "input": {
                "operationSearchPaths": ["GraphQL/Operations/**/*.graphql"],
                "schemaSearchPaths": ["\(slice)", "../SharedKit/GraphQL/Schema/shared-schema.graphqls"]
              },
              "output": {
                "testMocks": { "absolute": { "path": "Tests/\(request.name)Tests/Mocks", "accessModifier": "internal" } },
                "schemaTypes": {
                  "path": "Sources/\(request.name)/Generated",
                  "moduleType": { "embeddedInTarget": { "name": "\(request.name)", "accessModifier": "internal" } }
                },
                "operations": { "inSchemaModule": {} }
              },
              "options": { "deprecatedEnumCases": "include", "schemaDocumentation": "include" },
              "apicore": {
                "sharedSchema": {
                  "module": "SharedKit",
                  "namespace": "SharedAPI",
                  "schemaSearchPaths": ["../SharedKit/GraphQL/Schema/shared-schema.graphqls"]
                }
              }
            }

            """
    }

    private var operation: String {
        let variables = query.arguments.isEmpty ? "" : "(" + query.arguments.map { "$\($0.name): \($0.type)" }.joined(separator: ", ") + ")"
        let arguments = query.arguments.isEmpty ? "" : "(" + query.arguments.map { "\($0.name): $\($0.name)" }.joined(separator: ", ") + ")"
        return """
            fragment \(query.fragmentName) on \(query.typeName) {
            \(query.fields.map { "  \($0.name)\n" }.joined())}

            query \(query.operationName)\(variables) {
              \(query.field)\(arguments) {
                ...\(query.fragmentName)
              }
            }

            """
    }

    private var model: String {
        let properties = query.fields.map { "    /// `\(query.typeName).\($0.name)`.\n    public var \(SwiftNames.identifier($0.name)): \(swiftType($0))\n" }.joined()
        let parameters = query.fields.map { "\($0.name): \(swiftType($0))" }.joined(separator: ", ")
        let assignments = query.fields.map { "        self.\(SwiftNames.identifier($0.name)) = \(SwiftNames.identifier($0.name))\n" }.joined()
        return """
            /// A \(query.typeName) of the \(request.domain) domain, as the kit's callers see it.
            public struct \(modelName): Sendable, Hashable {
            \(properties)
                /// Creates a \(query.typeName).
                public init(\(parameters)) {
            \(assignments)    }
            }

            """
    }

    private var repository: String {
        """
        import APICore

        /// Where the \(request.domain) domain's data comes from: ``\(request.base)Service`` over an `APIClient`,
        /// or a stand-in in an app's previews and tests.
        public protocol \(request.base)Repository: Sendable {
            /// `query \(query.operationName)`.
            func \(method)(\(parameters)) async throws(APIError) -> \(returnType)
        }

        """
    }

    private var service: String {
        """
        import APICore

        /// The ``\(request.base)Repository`` backed by an `APIClient`.
        public struct \(request.base)Service: \(request.base)Repository {
            private let client: any APIClient

            /// A service that talks through `client`.
            public init(client: any APIClient) { self.client = client }

            /// `query \(query.operationName)`.
            public func \(method)(\(parameters)) async throws(APIError) -> \(returnType) {
                try await client.fetch(GraphQLRequest(\(operationCall)) { data in \(mapped) }).value
            }
        }

        """
    }

    private var mapping: String {
        let arguments = query.fields.map { "\($0.name): details.\(SwiftNames.identifier($0.name))" }.joined(separator: ", ")
        return """
            extension \(modelName) {
                /// The model of what `fragment \(query.fragmentName)` selects.
                init(_ details: \(query.fragmentName)) {
                    self.init(\(arguments))
                }
            }

            """
    }

    /// A sample value of a built-in scalar type, written the same in JSON and in Swift.
    private static func sample(_ type: TypeRef, field: String) -> String {
        switch type.nullable {
        case .list(let element): return "[" + sample(element, field: field) + "]"
        default: break
        }
        switch type.namedType {
        case "ID": return "\"\(field)-1\""
        case "Int": return "7"
        case "Float": return "2.5"
        case "Boolean": return "true"
        default: return "\"sample \(field)\""
        }
    }

    private var tests: String {
        let object = "[\"__typename\": \"\(query.concreteType)\", " + query.fields.map { "\"\($0.name)\": \(Self.sample($0.type, field: $0.name))" }.joined(separator: ", ") + "]"
        let expected = "\(modelName)(" + query.fields.map { "\($0.name): \(Self.sample($0.type, field: $0.name))" }.joined(separator: ", ") + ")"
        let isList = query.returns.nullable.isList
        let answer = isList ? "[\(object)]" : object
        let call = "\(query.operationName.prefix(1).lowercased() + query.operationName.dropFirst())"
        let arguments = query.arguments.map { "\($0.name): \(Self.sample($0.type, field: $0.name))" }.joined(separator: ", ")
        let variables = query.arguments.isEmpty ? "[:]" : "[" + query.arguments.map { "\"\($0.name)\": \(Self.sample($0.type, field: $0.name))" }.joined(separator: ", ") + "]"
        let service = "\(request.base)Service(client: client).\(method)(\(arguments))"
        let missing: String
        if query.returns.isNonNull {
            missing = """
                    @Test("an answer without `\(query.field)` is an invalid response, not a value")
                    func \(call)Missing() async throws {
                        let client = MockAPIClient()
                        client.stub(operation: "\(query.operationName)", data: ["\(query.field)": nil])
                        do {
                            _ = try await \(service)
                            Issue.record("expected an invalid response")
                        } catch {
                            guard case .invalidResponse = error else {
                                Issue.record("expected an invalid response, got \\(error)")
                                return
                            }
                        }
                    }
                """
        } else {
            missing = """
                    @Test("no `\(query.field)` in the answer is \(isList ? "an empty list" : "nil"), not an error")
                    func \(call)Missing() async throws {
                        let client = MockAPIClient()
                        client.stub(operation: "\(query.operationName)", data: ["\(query.field)": nil])
                        #expect(try await \(service)\(isList ? ".isEmpty" : " == nil"))
                    }
                """
        }
        return """
            import APICore
            import APICoreTesting
            import \(request.name)
            import Testing

            @Suite("\(request.base)Service")
            struct \(request.base)ServiceTests {
                @Test("maps `query \(query.operationName)` to \(returnType), sending its variables")
                func \(call)() async throws {
                    let client = MockAPIClient()
                    client.stub(operation: "\(query.operationName)", data: ["\(query.field)": \(answer)])
                    let value = try await \(service)
                    #expect(value == \(isList ? "[\(expected)]" : expected))
                    #expect(client.sent("\(query.operationName)").map(\\.payload) == [\(variables)])
                }

            \(missing)
            }

            """
    }

    private var readme: String {
        """
        # \(request.name)

        The \(request.domain) domain: `\(modelName)`, the `\(request.base)Repository` protocol and `\(request.base)Service`, which
        implements it over `APIClient` with the generated operations in `GraphQL/Operations/` (`\(query.operationName)`).

        Owner: \(request.owner) (see `CODEOWNERS`).

        It depends on `APICoreKit`'s `APICore` only and `SharedKit`; no GraphQL type is part of its public API. Its tests use
        `APICoreTesting`'s `MockAPIClient`.

        Made with `scripts/new-kit.sh`: its types carry `@domain(name: "\(request.domain)")` in the root `schema.graphqls`.

        ## How it is built

        1. `Models.swift`: the app's values (`\(modelName)`); no generated type is part of them.
        2. `\(request.base)Repository.swift`: the protocol the app and its tests program against.
        3. `\(request.base)Service.swift`: the repository over `APIClient`, one method per operation.
        4. `Mapping.swift`: from the generated data to the models.
        5. `Sources/\(request.name)/Generated/`: written by the generator from `GraphQL/`; never edited.

        ## Regenerate

        `GraphQL/Schema/` is written from the root `schema.graphqls`; `Sources/\(request.name)/Generated/` from
        `GraphQL/Operations/` and `apollo-codegen-config.json`. Never edit either by hand:

        ```sh
        scripts/generate.sh \(request.name)          # from the repository root
        scripts/check-generated.sh        # fails if committed code drifted
        ```

        ## Test

        ```sh
        cd \(request.name) && swift test             # or, from the root: scripts/test.sh \(request.name)
        ```

        """
    }
}
