import GraphQL

/// One error of validation as graphql-js reports it: the rule that found it, a message, and the
/// places it names, in graphql-js's order (the first is where a diagnostic points; a duplicate's
/// first place is the first definition, a variable's misuse is at the variable, then its use).
package struct ValidationError: Hashable, Sendable {
    /// A place in a source: its name (the file), one-based line and column.
    package struct Place: Hashable, Sendable, CustomStringConvertible {
        package var file: String
        package var line: Int
        package var column: Int

        package var description: String { "\(file):\(line):\(column)" }
    }

    /// graphql-js's name of the rule (`KnownTypeNamesRule`), or `validateSchema` for the type
    /// system's own checks.
    package var rule: String
    package var message: String
    package var places: [Place]

    package init(rule: String, message: String, places: [Place]) {
        self.rule = rule
        self.message = message
        self.places = places
    }

    /// An error at the start of each node that has a location.
    init(rule: String, _ message: String, at locations: [Location?]) {
        self.init(rule: rule, message: message, places: locations.compactMap { $0.map(Place.init) })
    }

    /// A GraphQLSwift error, attributed to `rule`.
    init(rule: String, _ error: GraphQLError) {
        let file = error.source?.name ?? ""
        self.init(rule: rule, message: error.message, places: error.locations.map { Place(file: file, line: $0.line, column: $0.column) })
    }

    /// As a diagnostic: at the first place, naming the others.
    func diagnostic(fallbackFile: String) -> Diagnostic {
        guard let first = places.first else { return Diagnostic(file: fallbackFile, message: message) }
        let others = places.dropFirst().map { $0.file == first.file ? "\($0.line):\($0.column)" : $0.description }
        let suffix = others.isEmpty ? "" : " (also at \(others.joined(separator: ", ")))"
        return Diagnostic(file: first.file, line: first.line, column: first.column, message: message + suffix)
    }
}

extension ValidationError.Place {
    /// Where a node starts.
    init(_ location: Location) {
        self.init(file: location.source.name, line: location.startToken.line, column: location.startToken.column)
    }
}
