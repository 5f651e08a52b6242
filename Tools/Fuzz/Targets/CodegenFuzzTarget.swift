import CodegenKit
import Foundation

/// The code generator's readers under a fuzzer: whatever the bytes, each reader returns a result
/// or diagnostics that name a file, and never crashes or hangs. The first byte chooses the reader
/// (`Mode`), the rest is its input.
package enum CodegenFuzzTarget {
    package enum Mode: UInt8, CaseIterable, Sendable {
        /// Operations and fragments, validated against Apollo's StarWars schema.
        case operations
        /// A schema and operations, separated by the first NUL byte.
        case schemaAndOperations
        /// An introspection result, turned into SDL and then read as a schema.
        case introspection
        /// An `apollo-codegen-config.json`.
        case configuration
        /// A whole schema, split into kit slices, and compared with itself.
        case split
    }

    package static func run(_ input: Data) {
        guard let first = input.first else { return }
        let payload = input.dropFirst()
        let text = String(decoding: payload, as: UTF8.self)
        switch Mode(rawValue: first % UInt8(Mode.allCases.count))! {
        case .operations:
            do {
                generate(try Compilation.compile(schema: starWarsSchema, operationFiles: [("operations.graphql", text)]))
            } catch {
                checkDiagnostics(error)
            }
        case .schemaAndOperations:
            let parts = text.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
            compile(schema: String(parts[0]), operations: parts.count > 1 ? String(parts[1]) : nil)
        case .introspection:
            do {
                compile(schema: try IntrospectionSDL.sdl(fromIntrospection: Data(payload)), operations: nil)
            } catch let failure as IntrospectionSDL.Failure {
                check(!failure.message.isEmpty, "an introspection failure without a message")
            } catch {}
        case .configuration:
            do {
                _ = try CodegenConfiguration.parse(Data(payload), file: "fuzz.json", baseURL: URL(fileURLWithPath: "/nonexistent"))
            } catch {
                check(error.file == "fuzz.json" && !error.message.isEmpty, "a configuration error that names no file: \(error)")
            }
        case .split:
            do {
                _ = try SchemaSplitter().split(text)
            } catch {
                checkDiagnostics(error)
            }
            compare(text)
        }
    }

    /// A schema compared with itself has no changes. (Not with another schema: GraphQLSwift leaks
    /// every parse, and a second schema per run would be parsed again each time.)
    private static func compare(_ text: String) {
        let schema = ("fuzz.graphqls", text)
        do {
            let changes = try SchemaComparison(old: schema, new: schema).changes
            check(changes.isEmpty, "a schema differs from itself: \(changes.map(\.message))")
        } catch {
            checkDiagnostics(error)
        }
    }

    private static func compile(schema: String, operations: String?) {
        do {
            generate(try Compilation.compile(
                schemaFiles: [("schema.graphqls", schema)], operationFiles: operations.map { [("operations.graphql", $0)] } ?? []))
        } catch {
            checkDiagnostics(error)
        }
    }

    /// What passed validation is generated too: the type-condition tree, names and templates must
    /// finish on any valid document (libFuzzer's -timeout and -rss_limit_mb catch one that does not).
    private static func generate(_ compilation: Compilation) {
        let files = Codegen.generate(compilation, configuration: configuration)
        check(files.allSatisfy { !$0.path.isEmpty }, "a generated file without a path")
    }

    /// Schema types and operations in one module, as a kit's configuration puts them, with test
    /// mocks, a manifest and selection-set initializers: every output is generated.
    static let configuration: CodegenConfiguration = {
        let json = """
            {
              "schemaNamespace": "FuzzAPI",
              "input": { "operationSearchPaths": ["*.graphql"], "schemaSearchPaths": ["*.graphqls"] },
              "output": {
                "schemaTypes": { "path": "Generated", "moduleType": { "embeddedInTarget": { "name": "App" } } },
                "operations": { "inSchemaModule": {} },
                "testMocks": { "absolute": { "path": "Mocks" } }
              },
              "operationManifest": { "path": "manifest.json" },
              "options": { "selectionSetInitializers": { "operations": true, "namedFragments": true, "localCacheMutations": true } }
            }
            """
        guard let configuration = try? CodegenConfiguration.parse(Data(json.utf8), file: "fuzz.json", baseURL: URL(fileURLWithPath: "/nonexistent"))
        else { fatalError("codegen fuzz: the built-in configuration does not parse") }
        return configuration
    }()

    private static func checkDiagnostics(_ failure: CodegenFailure) {
        check(!failure.diagnostics.isEmpty, "a failure without diagnostics")
        for diagnostic in failure.diagnostics {
            check(!diagnostic.file.isEmpty && !diagnostic.message.isEmpty, "a diagnostic without a file or message: \(diagnostic)")
        }
    }

    /// The repository, from this file's place in it.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Apollo's StarWars schema and operations, vendored in `Fixtures/ThirdParty` (see its `SOURCES.md`).
    static let starWarsFolder = repositoryRoot.appendingPathComponent("Fixtures/ThirdParty/apollo-ios-dev/Sources/StarWarsAPI/starwars-graphql")

    /// Compiled once: operations are what this mode fuzzes, and GraphQLSwift leaks every parse.
    /// Never changed after it is built, and fuzzing runs on one thread.
    nonisolated(unsafe) static let starWarsSchema: Compilation.Schema = {
        guard let text = try? String(contentsOf: starWarsFolder.appendingPathComponent("schema.graphqls"), encoding: .utf8),
            let schema = try? Compilation.schema(from: [("schema.graphqls", text)])
        else {
            fatalError("codegen fuzz: Apollo's StarWars schema is missing or invalid at \(starWarsFolder.path)")
        }
        return schema
    }()

    /// The StarWars operations, a small schema with its own operations, the StarWars introspection
    /// result, the repository's codegen configurations and its whole schema.
    package static var seeds: [Data] {
        func seed(_ mode: Mode, _ text: String) -> Data { Data([mode.rawValue]) + Data(text.utf8) }
        func file(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        let root = repositoryRoot
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: starWarsFolder.path)) ?? []).sorted()
        var seeds = names.filter { $0.hasSuffix(".graphql") }.map { seed(.operations, file(starWarsFolder.appendingPathComponent($0))) }
        seeds.append(seed(.schemaAndOperations, """
            interface A { a: Int } interface B { b: String }
            type X implements A & B { a: Int b: String } type Y implements A { a: Int } type Z { z: ID! }
            union Thing = X | Y | Z
            type Query { things(first: Int = 10): [Thing!]! thing(id: ID!): Thing }
            \u{0}query Things($n: Int) { things(first: $n) { __typename ... on A { a } ... on B { b } ... on Z { z } } }
            """))
        // The newer directives: a random sample (`@oneOf` input, `@semanticNonNull`, key and field
        // policies, `@catch` on an operation and its fields), and `@catchByDefault` with levels.
        let sample = RandomGraphQL.sample(seed: 1)
        seeds.append(seed(.schemaAndOperations, sample.schema + "\u{0}" + sample.operations))
        seeds.append(seed(.schemaAndOperations, """
            extend schema @catchByDefault(to: NULL)
            input Key @oneOf { id: ID name: String }
            type User @typePolicy(keyFields: "id") { id: ID! name: String @semanticNonNull tags: [String] @semanticNonNull(levels: [1]) }
            type Query @fieldPolicy(forField: "user", keyArgs: "id") { user(id: ID!): User find(key: Key!): [User!] }
            \u{0}query Q($key: Key!) @catch(to: RESULT) { user(id: "1") { name @catch(to: THROW) tags @catch(to: NULL) } find(key: $key) { id } }
            """))
        seeds.append(seed(.introspection, file(starWarsFolder.appendingPathComponent("schema.json"))))
        for kit in ["SharedKit", "UserKit", "ProductKit", "HouseholdKit"] {
            seeds.append(seed(.configuration, file(root.appendingPathComponent("\(kit)/apollo-codegen-config.json"))))
        }
        seeds.append(seed(.split, file(root.appendingPathComponent("schema.graphqls"))))
        return seeds.filter { $0.count > 1 }
    }
}

/// Stops the process with `message` when `condition` is false, in every build configuration.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz invariant broken: \(message())") }
}
