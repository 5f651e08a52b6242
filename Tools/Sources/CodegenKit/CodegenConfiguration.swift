import Foundation

/// `apollo-codegen-config.json`, read with Apollo iOS 1.x's keys so that a team moving from
/// Apollo keeps its file. Keys this tool does not know are reported as warnings, by name.
public struct CodegenConfiguration: Sendable, Equatable {
    /// Where generated schema types go and how they are packaged.
    public enum ModuleType: Sendable, Equatable {
        /// A Swift package of its own.
        case swiftPackageManager
        /// Inside an existing target, with this access modifier (`public` or `internal`).
        case embeddedInTarget(name: String, accessModifier: AccessModifier)
        /// Packaged by the user's own means.
        case other
    }

    /// Where operation files go.
    public enum OperationsLocation: Sendable, Equatable {
        /// In the schema module.
        case inSchemaModule
        /// Beside each `.graphql` file, optionally in a subfolder, with a file extension.
        case relative(subpath: String?, fileExtension: String)
        /// In one folder, with this access modifier.
        case absolute(path: String, accessModifier: AccessModifier)
    }

    /// Where generated test mocks go (Apollo's `output.testMocks`).
    public enum TestMocks: Sendable, Equatable {
        /// No mocks.
        case none
        /// A target of the generated schema package (moduleType `swiftPackageManager` only), named
        /// `targetName` or `<namespace>TestMocks`, in `<schemaTypes.path>/TestMocks`.
        case swiftPackage(targetName: String?)
        /// In one folder, for a test target to compile, with this access modifier.
        case absolute(path: String, accessModifier: AccessModifier)
    }

    /// Swift access for generated declarations.
    public enum AccessModifier: String, Sendable, Equatable {
        /// `public`.
        case `public`
        /// `internal`.
        case `internal`
    }

    /// `include`, `exclude`.
    public enum Inclusion: String, Sendable, Equatable {
        /// Generated.
        case include
        /// Left out.
        case exclude
    }

    /// The namespace of generated schema types.
    public var schemaNamespace: String
    /// Globs of `.graphql` operation files, relative to the config file; `!` excludes.
    public var operationSearchPaths: [String]
    /// Globs of schema files (SDL or introspection JSON), relative to the config file.
    public var schemaSearchPaths: [String]
    /// Where schema types go.
    public var schemaTypesPath: String
    /// How schema types are packaged.
    public var moduleType: ModuleType
    /// Where operations go.
    public var operations: OperationsLocation
    /// Where test mocks go, if anywhere.
    public var testMocks: TestMocks = .none
    /// Whether deprecated enum cases are generated.
    public var deprecatedEnumCases: Inclusion
    /// Whether schema descriptions become documentation comments.
    public var schemaDocumentation: Inclusion
    /// The folder of the config file; relative paths start there.
    public var baseURL: URL
    /// Keys that were not understood, as dotted paths.
    public var unknownKeys: [String]
    /// Our addition (`apicore.apiCoreKitPath`): where APICoreKit is, relative to the generated
    /// package, for `moduleType: swiftPackageManager`.
    public var apiCoreKitPath: String?
    /// Our addition (`apicore.sharedSchema`): a module whose generated enums, input objects and
    /// custom scalars are imported instead of generated again.
    public var sharedSchema: SharedSchema?
    /// Our addition (`apicore.generateAllSchemaTypes`): generate every enum, input object and custom
    /// scalar of the schema, used or not (for a shared module that has no operations of its own).
    public var generateAllSchemaTypes: Bool
    /// Apollo's `operationManifest`: where to write the persisted-query manifest (id → document),
    /// and in which format (`persistedQueries`, the default, or `legacy`). Operations then carry
    /// their `operationIdentifier`.
    public var operationManifest: OperationManifest?
    /// Our addition (`apicore.operationIdentifiers`): persisted-query ids by operation name, for a
    /// server whose safelist assigns its own; an operation not named here gets the SHA-256 of its
    /// document. Used by the manifest and the operations' `operationIdentifier`.
    public var operationIdentifiers: [String: String] = [:]
    /// Apollo's `schemaDownload`: where `fetch-schema` gets the schema and where it writes it.
    public var schemaDownload: SchemaDownload? = nil
    /// Which selection sets get memberwise initializers (`options.selectionSetInitializers`).
    public var selectionSetInitializers = SelectionSetInitializers()
    /// Swift names for schema types, by GraphQL name (`options.schemaCustomization.customTypeNames`).
    public var customTypeNames: [String: CustomTypeName] = [:]

    /// A schema type's Swift name, and for an enum its cases' or for an input object its fields'
    /// Swift names, by GraphQL name. What is sent and read stays the schema's.
    public struct CustomTypeName: Sendable, Equatable {
        /// The type's Swift name.
        public var name: String
        /// An enum's cases: GraphQL value → Swift case.
        public var enumCases: [String: String] = [:]
        /// An input object's fields: GraphQL name → Swift property (or `@oneOf` case).
        public var inputFields: [String: String] = [:]

        /// A renamed type.
        public init(name: String, enumCases: [String: String] = [:], inputFields: [String: String] = [:]) {
            self.name = name
            self.enumCases = enumCases
            self.inputFields = inputFields
        }
    }

    /// `options.selectionSetInitializers`, as Apollo iOS spells it: memberwise initializers for
    /// the selection sets of all operations, all named fragments, all local cache mutations
    /// (operations and fragments), or of the definitions named. None by default.
    public struct SelectionSetInitializers: Sendable, Equatable {
        /// Every operation's selection sets (local cache mutations aside).
        public var operations = false
        /// Every named fragment's (local cache mutations aside).
        public var namedFragments = false
        /// Every local cache mutation's, operations and fragments.
        public var localCacheMutations = false
        /// The operations and fragments with these names, whatever the flags say.
        public var definitionsNamed: Set<String> = []

        /// None.
        public init() {}

        /// Whether the definition with this name gets initializers.
        func applies(to name: String, isFragment: Bool, isLocalCacheMutation: Bool) -> Bool {
            if definitionsNamed.contains(name) { return true }
            if isLocalCacheMutation { return localCacheMutations }
            return isFragment ? namedFragments : operations
        }
    }

    /// Where the persisted-query manifest goes, and its format.
    public struct OperationManifest: Sendable, Equatable {
        /// The file, relative to the config.
        public var path: String
        /// `persistedQueries` or `legacy`.
        public var version: String
    }

    /// A shared schema module.
    public struct SharedSchema: Sendable, Equatable {
        /// The Swift module to import (`SharedKit`).
        public var module: String
        /// Its schema namespace (`SharedAPI`).
        public var namespace: String
        /// Globs of the shared slice's files; the types they define come from the module.
        public var schemaSearchPaths: [String]
    }
}

/// A config file that could not be read, with the key at fault.
public struct CodegenConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// One-based line, 0 when the error is not about one place in the text.
    public var line: Int
    /// One-based column, 0 when the error is not about one place in the text.
    public var column: Int
    /// What was wrong.
    public var message: String

    /// An error in `file`, at `line` and `column` when known.
    public init(file: String, line: Int = 0, column: Int = 0, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: message`, or `file: message`.
    public var description: String { line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)" }
}
