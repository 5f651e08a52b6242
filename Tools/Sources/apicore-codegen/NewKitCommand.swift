import ArgumentParser
import CodegenKit
import Foundation

/// `apicore-codegen new-kit --name <Kit> --domain <domain> --owner <@team> [--types A,B]`.
struct NewKit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new-kit",
        abstract: "Create a feature kit's package for a domain of the schema (scripts/new-kit.sh runs it, then registers and generates the kit).",
        discussion: """
            Marks the --types with @domain(name: <domain>) in the schema, checks that the domain then has a slice \
            of its own, and writes <output>/<Kit>/: Package.swift (APICoreKit and SharedKit only), \
            apollo-codegen-config.json, a first query over the domain's types with a fragment of their built-in \
            scalar fields, the model, repository protocol, service and mapping, a test of the mapping on \
            MockAPIClient, README.md and CHANGELOG.md. When <Kit> is not the folder split-schema gives the domain \
            (<Domain>Kit), the split config maps it. Writes nothing when anything is refused.
            """
    )

    @Option(name: .long, help: "The kit's package, target and folder name: a Swift identifier (RecipeKit).")
    var name: String

    @Option(name: .long, help: "The domain its types carry in @domain(name:) (recipe).")
    var domain: String

    @Option(name: .long, help: "Who owns it: @org/team, @user or an e-mail address.")
    var owner: String

    @Option(name: .long, parsing: .upToNextOption, help: "Types to mark with the domain first (comma-separated or repeated).")
    var types: [String] = []

    @Option(name: .long, help: "The whole schema (SDL), rewritten when --types marks a type.")
    var schema: String = "schema.graphqls"

    @Option(name: .long, help: "The repository folder the kits are in.")
    var output: String = "."

    @Option(name: .long, help: "The split config (created when the kit needs an entry in it).")
    var splitConfig: String = "schema-split.json"

    func run() throws {
        let request = KitScaffold.Request(
            name: name, domain: domain, owner: owner,
            types: types.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty })
        let root = URL(fileURLWithPath: output)
        do {
            try request.validate()
            // split-schema may have written the domain's slice already (GraphQL/Schema/): anything else is a kit.
            let folder = root.appendingPathComponent(name)
            let existing = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? [])
            let slice: Set<String> = ["GraphQL", "GraphQL/Schema"]
            if existing.contains(where: { !slice.contains($0) && !$0.hasPrefix("GraphQL/Schema/") }) {
                throw CodegenFailure([Diagnostic(file: name, message: "'\(name)' already exists; a new kit needs a name of its own")])
            }
            let splitURL = URL(fileURLWithPath: splitConfig)
            let hasSplitConfig = FileManager.default.fileExists(atPath: splitURL.path)
            var split = hasSplitConfig ? try SchemaSplitter.Configuration.load(from: splitURL) : SchemaSplitter.Configuration()
            guard let text = try? String(contentsOfFile: schema, encoding: .utf8) else {
                throw CodegenFailure([Diagnostic(file: schema, message: "cannot read the schema")])
            }
            let plan = try KitScaffold.plan(request, schema: text, schemaName: schema, split: split)

            try write(plan.files, under: root)
            if plan.schema != text { try write([schema: plan.schema], under: URL(fileURLWithPath: ".")) }
            for type in plan.marked { print("marked: type \(type) @domain(name: \"\(domain)\") in \(schema)") }
            if split.kit(for: domain) != name {
                split.kits[domain] = name
                try write([splitConfig: split.json], under: URL(fileURLWithPath: "."))
                print("wrote: \(splitConfig) (the domain '\(domain)' is the kit \(name))")
            }
            print("created: \(name)/ (slice \(plan.slicePath))")
        } catch let failure as CodegenFailure {
            printError(failure.description)
            throw ExitCode(2)
        }
    }

    private func write(_ files: [String: String], under root: URL) throws(CodegenFailure) {
        for (path, contents) in files.sorted(by: { $0.key < $1.key }) {
            let url = root.appendingPathComponent(path)
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try contents.write(to: url, atomically: true, encoding: .utf8)
            } catch {
                throw CodegenFailure([Diagnostic(file: url.path, message: "cannot write (\(error.localizedDescription))")])
            }
        }
    }
}
