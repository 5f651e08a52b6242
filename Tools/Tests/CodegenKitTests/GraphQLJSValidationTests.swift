@testable import CodegenKit
import Foundation
import GraphQL
import Testing

/// graphql-js's own validation tests, ported as data (`Fixtures/ThirdParty/graphql-js/validation.json`,
/// written by `scripts/port-graphql-js-tests.mjs` from graphql-js's test files): every rule's
/// tests in `src/validation/__tests__` and the schema validation tests of
/// `src/type/__tests__/validation-test.ts` that build their schema from SDL. Each case must get
/// graphql-js's verdict, and each error the places graphql-js reports, in its order (messages are
/// ours). A case left out is in `leftOut`, with the reason.
@Suite("graphql-js's validation suite")
struct GraphQLJSValidationTests {
    struct Suite: Decodable {
        let commit: String
        let schemas: [String: String]
        let cases: [Case]
    }

    struct Case: Decodable, CustomTestStringConvertible {
        struct SchemaReference: Decodable {
            let name: String?
            let sdl: [String]?
            let base: String?
        }

        struct Expected: Decodable {
            struct Location: Decodable, Equatable {
                let line: Int
                let column: Int
            }

            let message: String
            let locations: [Location]?
        }

        let file: String
        let test: String
        let kind: String?
        let rule: String?
        let schema: SchemaReference?
        let document: String?
        let errors: [Expected]?
        let skipped: String?

        var testDescription: String { "\(rule ?? "?"): \(test)" }
    }

    static let suite: Suite = {
        let url = repositoryRoot.appendingPathComponent("Fixtures/ThirdParty/graphql-js/validation.json")
        do {
            return try JSONDecoder().decode(Suite.self, from: Data(contentsOf: url))
        } catch {
            fatalError("cannot read \(url.path): \(error)")
        }
    }()

    /// The cases of one rule, ported (the ones the port skipped have no rule).
    static func cases(of rule: String) -> [Case] { suite.cases.filter { $0.rule == rule && $0.skipped == nil } }

    static let rules: [String] = Array(Set(suite.cases.compactMap(\.rule))).sorted()

    /// Cases whose verdict or places differ from graphql-js's on purpose, by the start of their
    /// test title, with why.
    static let leftOut: [String: String] = [
        // NoSchemaIntrospectionCustomRule is an optional rule (graphql-js does not run it by
        // default, nor does the generator); its cases use a schema whose own field returns an
        // introspection type (`introspectionField: __EnumValue`), which the generator refuses:
        // it generates only the types of the schema's files.
        "Validate: Prohibit introspection queries": "a schema field returning an introspection type is refused by the generator",
    ]

    static func isLeftOut(_ testCase: Case) -> Bool { leftOut.keys.contains { testCase.test.hasPrefix($0) } }

    /// What our validation says of a case: its errors' places, or why it could not run.
    static func outcome(_ testCase: Case) -> Result<[[Case.Expected.Location]], CaseFailure> {
        guard let rule = testCase.rule, let text = testCase.document ?? (testCase.kind == "schema" ? "" : nil) else {
            return .failure(CaseFailure(reason: "no document"))
        }
        let sdl: [String]
        switch (testCase.schema?.name, testCase.schema?.base) {
        case (let name?, _), (nil, let name?): sdl = [suite.schemas[name]!] + (testCase.schema?.sdl ?? [])
        default: sdl = testCase.schema?.sdl ?? []
        }
        let errors: [ValidationError]
        switch testCase.kind {
        case "document":
            let schema: Compilation.Schema
            do {
                schema = try Compilation.schema(from: sdl.enumerated().map { ("schema\($0.offset).graphqls", $0.element) })
            } catch {
                return .failure(CaseFailure(reason: "the schema is refused: \(error)"))
            }
            let document: Document
            do {
                document = try parse(source: Source(body: text, name: "document.graphql"))
            } catch {
                return .failure(CaseFailure(reason: "the document does not parse: \(error)"))
            }
            errors = rule == "all" ? DocumentRules.validate(document, schema: schema) : DocumentRules.validate(document, schema: schema, rules: [rule])
        case "sdl":
            do {
                let base = try sdl.enumerated().map { try parse(source: Source(body: $0.element, name: "schema\($0.offset).graphqls")) }
                let document = try parse(source: Source(body: text, name: "document.graphqls"))
                errors = SDLRules.validate(document, extending: testCase.schema == nil ? nil : SDLIndex(base), rules: [rule])
            } catch {
                return .failure(CaseFailure(reason: "the document does not parse: \(error)"))
            }
        case "schema":
            let checked = Compilation.validatedSchema(from: sdl.enumerated().map { ("schema\($0.offset).graphqls", $0.element) })
            if !checked.diagnostics.isEmpty { return .failure(CaseFailure(reason: "the schema is refused: \(checked.diagnostics)")) }
            errors = checked.errors
        default:
            return .failure(CaseFailure(reason: "\(testCase.kind ?? "?") cases are not run yet"))
        }
        return .success(errors.map { $0.places.map { Case.Expected.Location(line: $0.line, column: $0.column) } })
    }

    struct CaseFailure: Error {
        let reason: String
    }

    /// Whether `outcome` is graphql-js's: the same number of errors, each at the same places
    /// (when graphql-js's test names them).
    static func matches(_ testCase: Case, _ places: [[Case.Expected.Location]]) -> Bool {
        let expected = testCase.errors ?? []
        guard places.count == expected.count else { return false }
        if expected.contains(where: { $0.locations == nil }) { return true }
        func key(_ list: [Case.Expected.Location]) -> String { list.map { "\($0.line):\($0.column)" }.joined(separator: ",") }
        return places.map(key).sorted() == expected.map { key($0.locations ?? []) }.sorted()
    }

    @Test("every case of the rule gets graphql-js's verdict and places", arguments: rules)
    func rule(_ rule: String) {
        var passed = 0
        let cases = Self.cases(of: rule)
        for testCase in cases {
            let outcome = Self.outcome(testCase)
            let ok: Bool
            let detail: String
            switch outcome {
            case .success(let places):
                ok = Self.matches(testCase, places)
                func render(_ list: [[Case.Expected.Location]]) -> String {
                    list.map { $0.map { "\($0.line):\($0.column)" }.joined(separator: " ") }.joined(separator: " | ")
                }
                detail = "got [\(render(places))], graphql-js [\(render((testCase.errors ?? []).map { $0.locations ?? [] }))]: \((testCase.errors ?? []).map(\.message))"
            case .failure(let failure):
                ok = false
                detail = failure.reason
            }
            if ok { passed += 1 }
            if Self.isLeftOut(testCase) { continue }
            if !ok { Issue.record("CASE \(testCase.test): \(detail)\n\(testCase.document ?? "")") }
        }
        print("graphql-js \(rule): \(passed) of \(cases.count) cases pass")
    }
}
