/// A nullable GraphQL input: absent, explicitly `null`, or a value.
///
/// GraphQL tells "not given" (the server keeps its default or leaves a field alone) apart from
/// "given as null" (the server clears it). `Optional` cannot say both, so nullable variables and
/// input-object fields use this type. `nil` literals mean `.none` (absent).
public enum GraphQLNullable<Wrapped: Sendable>: Sendable {
    /// Not sent at all.
    case none
    /// Sent as `null`.
    case null
    /// Sent as this value.
    case some(Wrapped)

    /// The value, or `nil` for `.none` and `.null`.
    public var unwrapped: Wrapped? {
        if case .some(let value) = self { return value }
        return nil
    }
}

extension GraphQLNullable: Equatable where Wrapped: Equatable {}
extension GraphQLNullable: Hashable where Wrapped: Hashable {}

extension GraphQLNullable: ExpressibleByNilLiteral {
    /// `nil` is `.none`: absent, not `null`.
    public init(nilLiteral: ()) { self = .none }
}

extension GraphQLNullable {
    /// `.some(value)` when there is one, else `.none` (absent).
    public init(_ optional: Wrapped?) {
        self = optional.map { .some($0) } ?? .none
    }

    /// `.some(value)` when there is one, else `.null` (sent as null).
    public init(orNull optional: Wrapped?) {
        self = optional.map { .some($0) } ?? .null
    }
}

extension GraphQLNullable: ExpressibleByStringLiteral, ExpressibleByExtendedGraphemeClusterLiteral,
    ExpressibleByUnicodeScalarLiteral
where Wrapped: ExpressibleByStringLiteral {
    /// A string literal is `.some` (grapheme and scalar literals too, through the standard
    /// library's defaults).
    public init(stringLiteral value: Wrapped.StringLiteralType) { self = .some(Wrapped(stringLiteral: value)) }
}

extension GraphQLNullable: ExpressibleByIntegerLiteral where Wrapped: ExpressibleByIntegerLiteral {
    /// An integer literal is `.some`.
    public init(integerLiteral value: Wrapped.IntegerLiteralType) { self = .some(Wrapped(integerLiteral: value)) }
}

extension GraphQLNullable: ExpressibleByFloatLiteral where Wrapped: ExpressibleByFloatLiteral {
    /// A float literal is `.some`.
    public init(floatLiteral value: Wrapped.FloatLiteralType) { self = .some(Wrapped(floatLiteral: value)) }
}

extension GraphQLNullable: ExpressibleByBooleanLiteral where Wrapped: ExpressibleByBooleanLiteral {
    /// A Boolean literal is `.some`.
    public init(booleanLiteral value: Wrapped.BooleanLiteralType) { self = .some(Wrapped(booleanLiteral: value)) }
}
