import CodegenKit
import Foundation
import GraphQL
import Testing

@Suite("check-schema")
struct SchemaCheckTests {
    static let base = """
        directive @tag(name: String!) repeatable on FIELD_DEFINITION | OBJECT
        interface Node { id: ID! }
        type Household implements Node { id: ID! name: String! size: Int members(first: Int, role: Role = ADULT): [Member!]! }
        type Member { id: ID! role: Role! }
        type Pet { id: ID! }
        union Resident = Member | Pet
        enum Role { OWNER ADULT CHILD }
        input HouseholdInput { name: String! note: String = "none" }
        type Query { household(id: ID!): Household residents: [Resident!]! }
        type Mutation { rename(input: HouseholdInput!): Household }
        type Note { text: String }
        """

    /// `base` with one text replaced.
    static func changed(_ old: String, _ new: String) -> String {
        precondition(base.contains(old), "the table's text must be in the base schema: \(old)")
        return base.replacingOccurrences(of: old, with: new)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var old: String
        var new: String
        var kind: String
        var severity: SchemaChange.Severity
        var coordinate: String
        var testDescription: String { kind }
    }

    static let table: [Case] = [
        Case(old: "\ntype Note { text: String }", new: "", kind: "TYPE_REMOVED", severity: .breaking, coordinate: "Note"),
        Case(old: "type Note {", new: "input Note {", kind: "TYPE_CHANGED_KIND", severity: .breaking, coordinate: "Note"),
        Case(old: "name: String! size", new: "size", kind: "FIELD_REMOVED", severity: .breaking, coordinate: "Household.name"),
        Case(old: "size: Int", new: "size: String", kind: "FIELD_CHANGED_KIND", severity: .breaking, coordinate: "Household.size"),
        Case(old: "name: String! size", new: "name: String size", kind: "FIELD_CHANGED_KIND", severity: .breaking, coordinate: "Household.name"),
        Case(old: "size: Int", new: "size: Int!", kind: "FIELD_TYPE_CHANGED_SAFELY", severity: .safe, coordinate: "Household.size"),
        Case(old: "size: Int", new: "size: Int colour: String", kind: "FIELD_ADDED", severity: .safe, coordinate: "Household.colour"),
        Case(old: "size: Int", new: "size: Int @deprecated", kind: "FIELD_DEPRECATED", severity: .safe, coordinate: "Household.size"),
        Case(old: "household(id: ID!)", new: "household(id: ID!, at: String!)", kind: "REQUIRED_ARG_ADDED", severity: .breaking,
             coordinate: "Query.household(at:)"),
        Case(old: "household(id: ID!)", new: "household(id: ID!, at: String)", kind: "OPTIONAL_ARG_ADDED", severity: .dangerous,
             coordinate: "Query.household(at:)"),
        Case(old: "members(first: Int, role", new: "members(role", kind: "ARG_REMOVED", severity: .breaking, coordinate: "Household.members(first:)"),
        Case(old: "household(id: ID!)", new: "household(id: String!)", kind: "ARG_CHANGED_KIND", severity: .breaking, coordinate: "Query.household(id:)"),
        Case(old: "household(id: ID!)", new: "household(id: ID)", kind: "ARG_TYPE_CHANGED_SAFELY", severity: .safe, coordinate: "Query.household(id:)"),
        Case(old: "role: Role = ADULT", new: "role: Role = OWNER", kind: "ARG_DEFAULT_VALUE_CHANGE", severity: .dangerous,
             coordinate: "Household.members(role:)"),
        Case(old: "input HouseholdInput { name: String! ", new: "input HouseholdInput { name: String! city: String! ", kind: "REQUIRED_INPUT_FIELD_ADDED",
             severity: .breaking, coordinate: "HouseholdInput.city"),
        Case(old: "input HouseholdInput { name: String! ", new: "input HouseholdInput { name: String! city: String ", kind: "OPTIONAL_INPUT_FIELD_ADDED",
             severity: .dangerous, coordinate: "HouseholdInput.city"),
        Case(old: "note: String = \"none\"", new: "note: String = \"\"", kind: "INPUT_FIELD_DEFAULT_VALUE_CHANGE", severity: .dangerous,
             coordinate: "HouseholdInput.note"),
        Case(old: "name: String! note", new: "name: Int! note", kind: "FIELD_CHANGED_KIND", severity: .breaking, coordinate: "HouseholdInput.name"),
        Case(old: "name: String! note", new: "name: String note", kind: "FIELD_TYPE_CHANGED_SAFELY", severity: .safe, coordinate: "HouseholdInput.name"),
        Case(old: "enum Role { OWNER ADULT CHILD }", new: "enum Role { OWNER ADULT }", kind: "VALUE_REMOVED_FROM_ENUM", severity: .breaking,
             coordinate: "Role.CHILD"),
        Case(old: "enum Role { OWNER ADULT CHILD }", new: "enum Role { OWNER ADULT CHILD GUEST }", kind: "VALUE_ADDED_TO_ENUM", severity: .dangerous,
             coordinate: "Role.GUEST"),
        Case(old: "= Member | Pet", new: "= Member", kind: "TYPE_REMOVED_FROM_UNION", severity: .breaking, coordinate: "Resident"),
        Case(old: "type Pet { id: ID! }", new: "type Pet { id: ID! }\ntype Car { id: ID! }", kind: "TYPE_ADDED", severity: .safe, coordinate: "Car"),
        Case(old: "= Member | Pet", new: "= Member | Pet | Household", kind: "TYPE_ADDED_TO_UNION", severity: .dangerous, coordinate: "Resident"),
        Case(old: "type Household implements Node {", new: "type Household {", kind: "IMPLEMENTED_INTERFACE_REMOVED", severity: .breaking,
             coordinate: "Household"),
        Case(old: "type Member {", new: "type Member implements Node {", kind: "IMPLEMENTED_INTERFACE_ADDED", severity: .dangerous, coordinate: "Member"),
        Case(old: "directive @tag(name: String!) repeatable on FIELD_DEFINITION | OBJECT\n", new: "", kind: "DIRECTIVE_REMOVED", severity: .breaking,
             coordinate: "@tag"),
        Case(old: "repeatable on FIELD_DEFINITION | OBJECT", new: "on FIELD_DEFINITION | OBJECT", kind: "DIRECTIVE_REPEATABLE_REMOVED",
             severity: .breaking, coordinate: "@tag"),
        Case(old: "on FIELD_DEFINITION | OBJECT", new: "on FIELD_DEFINITION", kind: "DIRECTIVE_LOCATION_REMOVED", severity: .breaking, coordinate: "@tag"),
        Case(old: "@tag(name: String!)", new: "@tag(name: String!, weight: Int!)", kind: "REQUIRED_DIRECTIVE_ARG_ADDED", severity: .breaking,
             coordinate: "@tag(weight:)"),
        Case(old: "@tag(name: String!)", new: "@tag", kind: "DIRECTIVE_ARG_REMOVED", severity: .breaking, coordinate: "@tag(name:)"),
    ]

    @Test("each kind of change is classified as graphql-js does, and is the only change found", arguments: table)
    func classification(_ row: Case) throws {
        let comparison = try SchemaComparison(old: ("old.graphqls", Self.base), new: ("new.graphqls", Self.changed(row.old, row.new)))
        let found = comparison.changes.map { "\($0.kind) \($0.severity) \($0.coordinate)" }
        #expect(found == ["\(row.kind) \(row.severity) \(row.coordinate)"])
    }

    @Test("no change between a schema and itself; extensions count as their type; places in both files")
    func positions() throws {
        #expect(try SchemaComparison(old: ("a", Self.base), new: ("b", Self.base)).changes.isEmpty)
        // The same schema written with an extension is the same schema.
        let extended = Self.changed("size: Int members", "members") + "\nextend type Household { size: Int }"
        #expect(try SchemaComparison(old: ("a", Self.base), new: ("b", extended)).changes.isEmpty)

        let removed = try #require(try SchemaComparison(old: ("old.graphqls", Self.base), new: ("new.graphqls", Self.changed("name: String! size", "size"))).changes.first)
        #expect(removed.oldPosition == "old.graphqls:3:42")  // the field, where it was
        #expect(removed.newPosition == "new.graphqls:3:6")  // its type, where it is now
        #expect(removed.message == "Household.name was removed.")
    }

    @Test("a schema that is not valid is refused with its place")
    func invalid() {
        do {
            _ = try SchemaComparison(old: ("old.graphqls", Self.base), new: ("new.graphqls", Self.base + "\ntype Broken { a: Missing }"))
            Issue.record("expected a failure")
        } catch {
            #expect(error.description.hasPrefix(#"new.graphqls:12:18: error: Unknown type "Missing"."#), "\(error.description)")
            #expect(error.description.contains("Missing"))
        }
    }

    @Test("a kit's operations that a change reaches are named, with the kit's owner and, for a fragment, the operations that spread it; others are not")
    func kitImpact() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("schema-check-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try "*  @core\n/HomeKit/  @team/home  # the households\n/OtherKit/ @team/other\n".write(
            to: root.appendingPathComponent("CODEOWNERS"), atomically: true, encoding: .utf8)
        let config = """
            {"schemaNamespace": "HomeAPI", "input": {"operationSearchPaths": ["*.graphql"], "schemaSearchPaths": ["../schema.graphqls"]},
             "output": {"schemaTypes": {"path": "Generated", "moduleType": {"embeddedInTarget": {"name": "Home", "accessModifier": "internal"}}},
                        "operations": {"inSchemaModule": {}}}}
            """
        let home = try Project(files: [
            "Home.graphql": """
                query Home($id: ID!) {
                  household(id: $id) { ...HouseholdFields members { role } }
                }
                fragment HouseholdFields on Household { id ...Named }
                mutation Rename($input: HouseholdInput!) { rename(input: $input) { id } }
                fragment Named on Household { name }
                query Again($id: ID!) { household(id: $id) { ...Named } }
                """,
        ], config: config, at: root.appendingPathComponent("HomeKit"))
        let other = try Project(files: ["Other.graphql": "query Residents { residents { __typename ... on Pet { id } } }"], config: config,
                                at: root.appendingPathComponent("OtherKit"))
        let owners = try CodeOwners(contentsOf: root.appendingPathComponent("CODEOWNERS"))

        // Household.name removed, Role.CHILD removed, a required input field and an optional argument added.
        var new = Self.changed("name: String! size", "size")
        new = new.replacingOccurrences(of: "OWNER ADULT CHILD", with: "OWNER ADULT")
        new = new.replacingOccurrences(of: "input HouseholdInput { name: String! ", with: "input HouseholdInput { name: String! city: String! ")
        new = new.replacingOccurrences(of: "members(first: Int,", with: "members(first: Int, sort: String,")
        let comparison = try SchemaComparison(old: ("schema.graphqls", Self.base), new: ("schema.graphqls", new))

        let impact = try comparison.impact(onKitAt: home.configURL, owners: owners)
        #expect(impact.kit == "HomeKit")
        #expect(impact.owners == ["@team/home"])
        let file = home.url.appendingPathComponent("Home.graphql").standardizedFileURL.path
        let breaks = impact.breaks.map { "\($0.position.replacingOccurrences(of: file, with: "Home.graphql")) \($0.definition) \($0.coordinate) \($0.kind)" }
        #expect(breaks == [
            "Home.graphql:2:53 query Home Role VALUE_REMOVED_FROM_ENUM",
            "Home.graphql:5:17 mutation Rename HouseholdInput REQUIRED_INPUT_FIELD_ADDED",
            "Home.graphql:6:31 fragment Named Household.name FIELD_REMOVED",
        ])
        // The fragment's finding names the operations it reaches, also through another fragment.
        #expect(impact.breaks.last?.operations == ["query Again", "query Home"])
        #expect(impact.breaks.first?.operations == [])
        #expect(impact.warnings.map(\.kind) == ["OPTIONAL_ARG_ADDED"])

        let untouched = try comparison.impact(onKitAt: other.configURL, owners: owners)
        #expect(untouched.owners == ["@team/other"])
        #expect(untouched.breaks.isEmpty && untouched.warnings.isEmpty)

        // Pet leaving the union reaches the kit that asks for it.
        let union = try SchemaComparison(old: ("schema.graphqls", Self.base), new: ("schema.graphqls", Self.changed("= Member | Pet", "= Member")))
        let residents = try union.impact(onKitAt: other.configURL, owners: owners)
        #expect(residents.breaks.map(\.kind).contains("TYPE_REMOVED_FROM_UNION"))
        // And the validation against the new schema says the spread can no longer apply.
        #expect(residents.breaks.contains { $0.kind == "INVALID_OPERATION" && $0.definition == "query Residents" })
    }

    @Test("the repository: removing a field HouseholdKit selects breaks HouseholdKit under its owner; adding one breaks nothing")
    func repository() throws {
        let schema = try String(contentsOf: repositoryRoot.appendingPathComponent("schema.graphqls"), encoding: .utf8)
        let household = "type Household implements Node @domain(name: \"household\") {\n  id: ID!\n  name: String!\n"
        try #require(schema.contains(household + "  createdAt: DateTime!\n"))
        let configs = ["SharedKit", "UserKit", "ProductKit", "HouseholdKit"].map { repositoryRoot.appendingPathComponent("\($0)/apollo-codegen-config.json").path }
        let owners = repositoryRoot.appendingPathComponent("CODEOWNERS")

        let removed = try Self.write(schema.replacingOccurrences(of: household + "  createdAt: DateTime!\n", with: household))
        defer { try? FileManager.default.removeItem(atPath: removed) }
        let check = try SchemaCheck.run(
            old: repositoryRoot.appendingPathComponent("schema.graphqls").path, oldName: "HEAD:schema.graphqls", new: removed, configs: configs, codeOwners: owners)
        #expect(check.breaks)
        #expect(check.kits.map(\.kit) == ["SharedKit", "UserKit", "ProductKit", "HouseholdKit"])
        let broken = check.kits.filter { !$0.breaks.isEmpty }
        #expect(broken.map(\.kit) == ["HouseholdKit"])
        #expect(broken.first?.owners == ["@apicorekit/households"])
        let finding = try #require(broken.first?.breaks.first)
        #expect(finding.coordinate == "Household.createdAt" && finding.kind == "FIELD_REMOVED")
        #expect(finding.position.contains("HouseholdKit/GraphQL/Operations/Household.graphql:"))
        #expect(check.text.contains("HouseholdKit (@apicorekit/households): BREAKS"))
        #expect(finding.operations == ["mutation CreateHousehold", "mutation RenameHousehold", "query Household", "subscription HouseholdChanged"])
        #expect(check.text.contains(
            "fragment HouseholdDetails uses Household.createdAt (spread in mutation CreateHousehold, mutation RenameHousehold, query Household, subscription HouseholdChanged): Household.createdAt was removed."))
        #expect(check.text.contains("(was HEAD:schema.graphqls:"))  // the old schema named as asked
        let json = try #require(try JSONSerialization.jsonObject(with: Data(check.json.utf8)) as? [String: Any])
        #expect(json["breaks"] as? Bool == true)

        let added = try Self.write(schema.replacingOccurrences(of: household, with: household + "  nickname: String\n"))
        defer { try? FileManager.default.removeItem(atPath: added) }
        let safe = try SchemaCheck.run(old: repositoryRoot.appendingPathComponent("schema.graphqls").path, new: added, configs: configs, codeOwners: owners)
        #expect(!safe.breaks)
        #expect(safe.comparison.changes.map(\.kind) == ["FIELD_ADDED"])
    }

    static func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString).graphqls").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("Apollo's StarWars schema and operations: each field removed is one breaking change (added back, one safe one), and every operation it breaks is found by its use, none only by validation")
    func starWarsFieldRemovals() throws {
        let folder = repositoryRoot.appendingPathComponent("Fixtures/ThirdParty/apollo-ios-dev/Sources/StarWarsAPI/starwars-graphql")
        let schema = try String(contentsOf: folder.appendingPathComponent("schema.graphqls"), encoding: .utf8)
        var operations: [String: String] = [:]
        for case let url as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) ?? FileManager.DirectoryEnumerator()
        where url.pathExtension == "graphql" {
            operations[url.lastPathComponent] = try String(contentsOf: url, encoding: .utf8)
        }
        try #require(operations.count > 10)
        let kit = try Project(files: operations.merging(["schema.graphqls": schema]) { $1 }, config: """
            {"schemaNamespace": "StarWarsAPI", "input": {"operationSearchPaths": ["*.graphql"], "schemaSearchPaths": ["schema.graphqls"]},
             "output": {"schemaTypes": {"path": "Generated", "moduleType": {"other": {}}}, "operations": {"inSchemaModule": {}}}}
            """)
        let document = try parse(source: Source(body: schema, name: "schema.graphqls"))
        var fields: [(coordinate: String, range: Range<Int>)] = []
        for definition in document.definitions {
            let (type, list): (String, [GraphQL.FieldDefinition])
            switch definition {
            case let object as ObjectTypeDefinition: (type, list) = (object.name.value, object.fields)
            case let interface as InterfaceTypeDefinition: (type, list) = (interface.name.value, interface.fields)
            default: continue
            }
            for field in list where list.count > 1 {
                if let loc = field.loc { fields.append(("\(type).\(field.name.value)", loc.start..<loc.end)) }
            }
        }
        var checked = 0
        var breaking = 0
        let utf8 = Array(schema.utf8)
        for (coordinate, range) in fields {
            let removed = String(decoding: utf8[..<range.lowerBound] + utf8[range.upperBound...], as: UTF8.self)
            // Removing a field an interface requires makes a schema that is not valid: refused, with its place.
            guard let comparison = try? SchemaComparison(old: ("old.graphqls", schema), new: ("new.graphqls", removed)) else { continue }
            checked += 1
            #expect(comparison.changes.map { "\($0.kind) \($0.coordinate)" } == ["FIELD_REMOVED \(coordinate)"])
            let back = try SchemaComparison(old: ("new.graphqls", removed), new: ("old.graphqls", schema))
            #expect(back.changes.map { "\($0.kind) \($0.severity) \($0.coordinate)" } == ["FIELD_ADDED safe \(coordinate)"])
            let impact = try comparison.impact(onKitAt: kit.configURL, owners: nil)
            #expect(impact.breaks.filter { $0.kind == "INVALID_OPERATION" }.isEmpty, "\(coordinate): \(impact.breaks)")
            #expect(impact.breaks.allSatisfy { $0.coordinate == coordinate })
            if !impact.breaks.isEmpty { breaking += 1 }
        }
        #expect(checked > 25 && breaking > 10, "\(checked) removals checked, \(breaking) broke an operation")
    }

    @Test("an introspection result and the SDL of the same schema have no differences")
    func introspectionAgainstSDL() throws {
        let folder = repositoryRoot.appendingPathComponent("Fixtures/ThirdParty/apollo-ios-dev/Sources/StarWarsAPI/starwars-graphql")
        let check = try SchemaCheck.run(
            old: folder.appendingPathComponent("schema.graphqls").path, new: folder.appendingPathComponent("schema.json").path, configs: [], codeOwners: nil)
        #expect(check.comparison.changes.map(\.message) == [])
        #expect(!check.breaks)
    }

    @Test("CODEOWNERS: the last matching rule wins; anchored folders, any-depth names, extensions")
    func codeOwners() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("owners-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for folder in ["Kits/HomeKit", "HomeKit", "docs"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try "# owners\n* @all\n/HomeKit/ @home\nKits/ @kits\n*.md @writers\n".write(to: root.appendingPathComponent("CODEOWNERS"), atomically: true, encoding: .utf8)
        let owners = try CodeOwners(contentsOf: root.appendingPathComponent("CODEOWNERS"))
        #expect(owners.owners(of: root.appendingPathComponent("HomeKit")) == ["@home"])
        #expect(owners.owners(of: root.appendingPathComponent("Kits/HomeKit")) == ["@kits"])
        #expect(owners.owners(of: root.appendingPathComponent("docs")) == ["@all"])
        #expect(owners.owners(of: root.appendingPathComponent("docs/README.md")) == ["@writers"])
        #expect(owners.owners(of: URL(fileURLWithPath: "/elsewhere")) == [])
    }
}
