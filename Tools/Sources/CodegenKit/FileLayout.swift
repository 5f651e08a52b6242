/// Where each generated file goes, relative to the config's folder, as the config's `output` says.
struct FileLayout {
    let configuration: CodegenConfiguration

    /// The folder of the schema types: `Sources/<Namespace>` inside a generated package.
    var schemaDirectory: String {
        let path = configuration.schemaTypesPath
        if case .swiftPackageManager = configuration.moduleType { return Self.join(path, "Sources/\(configuration.schemaNamespace)") }
        return path
    }

    static func join(_ a: String, _ b: String) -> String {
        let left = a.hasSuffix("/") ? String(a.dropLast()) : a
        if left.isEmpty || left == "." { return b }
        return left + "/" + b
    }

    /// A schema type's file (`Enums/Episode.graphql.swift`), below the schema folder.
    func schemaFile(_ relative: String) -> String { Self.join(schemaDirectory, relative) }

    /// The generated package's manifest (moduleType `swiftPackageManager`).
    var packageManifest: String { Self.join(configuration.schemaTypesPath, "Package.swift") }

    /// The folder of an operation kind: `Queries`, `Mutations`, `Subscriptions`, `Fragments`.
    static func folder(of kind: GQL.OperationKind) -> String {
        switch kind {
        case .query: return "Queries"
        case .mutation: return "Mutations"
        case .subscription: return "Subscriptions"
        }
    }

    /// An operation's or fragment's file: in the schema module, in one folder, or beside the
    /// `.graphql` file it came from.
    func operationFile(named fileName: String, folder: String, source: String?) -> String {
        switch configuration.operations {
        case .inSchemaModule:
            return Self.join(schemaDirectory, "Operations/\(folder)/\(fileName).graphql.swift")
        case .absolute(let path, _):
            return Self.join(path, "\(folder)/\(fileName).graphql.swift")
        case .relative(let subpath, let fileExtension):
            var directory = (source ?? "").split(separator: "/").dropLast().joined(separator: "/")
            if let subpath, !subpath.isEmpty { directory = Self.join(directory, subpath) }
            return Self.join(directory, "\(fileName).\(fileExtension)")
        }
    }

    /// The mocks target of the generated schema package (`output.testMocks.swiftPackage`).
    var mocksTargetName: String? {
        guard case .swiftPackage(let name) = configuration.testMocks else { return nil }
        return name ?? configuration.schemaNamespace + "TestMocks"
    }

    /// A test-mock file (`Droid+Mock.graphql.swift`), or `nil` when no mocks are generated.
    func mockFile(_ fileName: String) -> String? {
        switch configuration.testMocks {
        case .none: return nil
        case .swiftPackage: return Self.join(configuration.schemaTypesPath, "TestMocks/\(fileName)")
        case .absolute(let path, _): return Self.join(path, fileName)
        }
    }
}
