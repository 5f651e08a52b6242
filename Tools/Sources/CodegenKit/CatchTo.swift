import GraphQL

/// `@catch(to:)` (the nullability RFC, as Apollo Kotlin spells it): where an error at a field goes.
enum CatchTo: String {
    /// The field holds the error: its accessor is a `Result<Value, GraphQLError>`.
    case result = "RESULT"
    /// The field is `null`: its accessor is optional.
    case null = "NULL"
    /// The error goes on up, to a catching field above or to the operation (which throws).
    case `throw` = "THROW"

    /// The `@catch` among `directives` (`to:` is `RESULT` when not given), `nil` without one.
    static func of(_ directives: [GQL.Directive]) -> CatchTo? {
        guard let directive = directives.first(where: { $0.name == "catch" }) else { return nil }
        guard case .enumValue(let name)? = directive.argument("to") else { return .result }
        return CatchTo(rawValue: name) ?? .result
    }

    /// `@catchByDefault(to:)` among a schema definition's directives.
    static func byDefault(_ directives: [Directive]) -> CatchTo? {
        guard let directive = directives.first(where: { $0.name.value == "catchByDefault" }),
            let value = directive.arguments.first(where: { $0.name.value == "to" })?.value as? EnumValue
        else { return nil }
        return CatchTo(rawValue: value.value)
    }

    /// How the generated metadata names it (`THROW` is not named: the field does not catch).
    var caught: String? {
        switch self {
        case .result: return "result"
        case .null: return "null"
        case .throw: return nil
        }
    }
}
