import Foundation
import GraphQL

/// One problem found in a schema, an operation or a config, with where it is.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible, Comparable {
    /// The file (as given, usually relative to the config).
    public var file: String
    /// One-based line, 0 when unknown.
    public var line: Int
    /// One-based column, 0 when unknown.
    public var column: Int
    /// What is wrong.
    public var message: String

    /// Creates a diagnostic.
    public init(file: String, line: Int = 0, column: Int = 0, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: error: message`, as compilers write it, so editors can jump to it.
    public var description: String {
        line > 0 ? "\(file):\(line):\(column): error: \(message)" : "\(file): error: \(message)"
    }

    /// By file, then position.
    public static func < (lhs: Diagnostic, rhs: Diagnostic) -> Bool {
        (lhs.file, lhs.line, lhs.column, lhs.message) < (rhs.file, rhs.line, rhs.column, rhs.message)
    }
}

/// Every problem found in one run; never just the first.
public struct CodegenFailure: Error, Sendable, CustomStringConvertible {
    /// The problems, sorted by file and position.
    public var diagnostics: [Diagnostic]

    /// Creates a failure from its diagnostics (one of each, however many rules found it).
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = Array(Set(diagnostics)).sorted() }

    /// One line per diagnostic.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

extension Location {
    /// `file:line:column`, as diagnostics name a place.
    var position: String { "\(source.name):\(startToken.line):\(startToken.column)" }
}

extension Diagnostic {
    /// ` (first at file:line:column)`: the other place a message names, or nothing when unknown.
    static func reference(_ label: String, _ location: Location?) -> String {
        location.map { " (\(label) \($0.position))" } ?? ""
    }

    /// A diagnostic at an AST node's position.
    init(at location: Location?, fallbackFile: String, _ message: String) {
        guard let location else {
            self.init(file: fallbackFile, message: message)
            return
        }
        self.init(file: location.source.name, line: location.startToken.line, column: location.startToken.column, message: message)
    }

    /// A diagnostic from a GraphQLSwift error (syntax or validation).
    init(_ error: GraphQLError, fallbackFile: String) {
        let file = error.source?.name ?? fallbackFile
        if let location = error.locations.first {
            self.init(file: file, line: location.line, column: location.column, message: error.message)
        } else {
            self.init(file: file, message: error.message)
        }
    }
}
