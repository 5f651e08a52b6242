import Foundation

/// `check-schema`: the changes between two schemas, and for each kit given, what they break.
public struct SchemaCheck {
    /// The two schemas compared.
    public let comparison: SchemaComparison
    /// Each kit's findings, in the order the configs were given.
    public let kits: [KitImpact]
    let oldPath: String
    let newPath: String

    /// Compares the schema files (SDL, or introspection JSON when the name ends in `.json`) and
    /// checks each kit config's operations; `codeOwners` names the kits' owners. The report names
    /// the old schema `oldName` (`HEAD:schema.graphqls`) when given, else by its path.
    public static func run(
        old oldPath: String, oldName: String? = nil, new newPath: String, configs: [String], codeOwners: URL?
    ) throws(CodegenFailure) -> SchemaCheck {
        var old = try read(oldPath)
        old.path = oldName ?? oldPath
        let comparison = try SchemaComparison(old: old, new: try read(newPath))
        var owners: CodeOwners?
        if let codeOwners {
            do {
                owners = try CodeOwners(contentsOf: codeOwners)
            } catch {
                throw CodegenFailure([Diagnostic(file: codeOwners.path, message: "cannot read the owners file (\(error.localizedDescription))")])
            }
        }
        var kits: [KitImpact] = []
        for config in configs {
            kits.append(try comparison.impact(onKitAt: URL(fileURLWithPath: config), owners: owners))
        }
        return SchemaCheck(comparison: comparison, kits: kits, oldPath: old.path, newPath: newPath)
    }

    private static func read(_ path: String) throws(CodegenFailure) -> (path: String, text: String) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CodegenFailure([Diagnostic(file: path, message: "cannot read the schema")])
        }
        guard path.hasSuffix(".json") else { return (path, text) }
        do {
            return (path, try IntrospectionSDL.sdl(fromIntrospection: Data(text.utf8)))
        } catch let error as IntrospectionSDL.Failure {
            throw CodegenFailure([Diagnostic(file: path, message: error.message)])
        } catch {
            throw CodegenFailure([Diagnostic(file: path, message: "not a valid introspection result: \(error.localizedDescription)")])
        }
    }

    /// Whether the change breaks something: a kit's operations when kits were given, else any
    /// breaking change of the schema (its clients are unknown).
    public var breaks: Bool {
        kits.isEmpty ? comparison.changes.contains { $0.severity == .breaking } : kits.contains { !$0.breaks.isEmpty }
    }

    /// For people: the changes by severity with their places, then each kit's findings.
    public var text: String {
        var lines: [String] = []
        let changes = comparison.changes
        lines.append("Schema changes from \(oldPath) to \(newPath):")
        if changes.isEmpty { lines.append("  none") }
        for change in changes {
            let places = [change.oldPosition.map { "was \($0)" }, change.newPosition.map { "now \($0)" }].compactMap { $0 }.joined(separator: ", ")
            lines.append("  \(change.severity.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(change.kind): \(change.message) (\(places))")
        }
        let counts = SchemaChange.Severity.allCases.map { severity in "\(changes.count { $0.severity == severity }) \(severity.rawValue)" }
        lines.append("  " + counts.joined(separator: ", "))
        for kit in kits {
            let owners = kit.owners.isEmpty ? "no owner in CODEOWNERS" : kit.owners.joined(separator: " ")
            let verdict = kit.breaks.isEmpty ? (kit.warnings.isEmpty ? "not affected" : "may be affected") : "BREAKS"
            lines.append("")
            lines.append("\(kit.kit) (\(owners)): \(verdict)")
            for finding in kit.breaks { lines.append("  \(finding.position): error: \(finding.definition) \(Self.uses(finding)): \(finding.reason)") }
            for finding in kit.warnings { lines.append("  \(finding.position): warning: \(finding.definition) \(Self.uses(finding)): \(finding.reason)") }
        }
        return lines.joined(separator: "\n")
    }

    private static func uses(_ finding: KitImpact.Finding) -> String {
        let reached = finding.operations.isEmpty ? "" : " (spread in \(finding.operations.joined(separator: ", ")))"
        return (finding.coordinate.isEmpty ? "no longer validates" : "uses \(finding.coordinate)") + reached
    }

    /// For CI: `{"breaks", "changes": [...], "kits": [...]}`, keys sorted.
    public var json: String {
        func place(_ position: String?) -> Any { position ?? NSNull() }
        let changes: [[String: Any]] = comparison.changes.map { change in
            [
                "severity": change.severity.rawValue, "kind": change.kind, "coordinate": change.coordinate, "message": change.message,
                "old": place(change.oldPosition), "new": place(change.newPosition),
            ]
        }
        func findings(_ list: [KitImpact.Finding]) -> [[String: Any]] {
            list.map {
                [
                    "definition": $0.definition, "position": $0.position, "coordinate": $0.coordinate, "reason": $0.reason, "kind": $0.kind,
                    "operations": $0.operations,
                ]
            }
        }
        let kits: [[String: Any]] = kits.map { kit in
            ["kit": kit.kit, "config": kit.config, "owners": kit.owners, "breaks": findings(kit.breaks), "warnings": findings(kit.warnings)]
        }
        let object: [String: Any] = ["breaks": breaks, "old": oldPath, "new": newPath, "changes": changes, "kits": kits]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
