/// A GraphQL enum generated as a Swift enum: `rawValue` is the schema's name of the case.
public protocol EnumType: RawRepresentable, CaseIterable, Sendable, Hashable where RawValue == String {}

/// A value of a GraphQL enum as received: a case this client knows, or a raw value added to the
/// schema after this client was generated. Unknown values are kept, never turned into an error,
/// so an older app keeps working against a newer server.
public enum GraphQLEnum<T: EnumType>: Sendable, Hashable {
    /// A case the generated enum knows.
    case `case`(T)
    /// A value the generated enum does not know, as the server sent it.
    case unknown(String)

    /// Wraps a raw value, known or not.
    public init(rawValue: String) {
        self = T(rawValue: rawValue).map { .case($0) } ?? .unknown(rawValue)
    }

    /// Wraps a known case.
    public init(_ value: T) { self = .case(value) }

    /// The known case, or `nil` for an unknown value.
    public var value: T? {
        if case .case(let value) = self { return value }
        return nil
    }

    /// The raw value as sent by the server.
    public var rawValue: String {
        switch self {
        case .case(let value): return value.rawValue
        case .unknown(let raw): return raw
        }
    }
}

extension GraphQLEnum: ExpressibleByStringLiteral {
    /// A string literal is read as a raw value (grapheme and scalar literals too, through the
    /// standard library's defaults).
    public init(stringLiteral value: String) { self.init(rawValue: value) }
}

/// Compares a received value with a known case: `hero.episode == .jedi`.
public func == <T: EnumType>(lhs: GraphQLEnum<T>, rhs: T) -> Bool { lhs.value == rhs }
/// Compares a received value with a known case.
public func != <T: EnumType>(lhs: GraphQLEnum<T>, rhs: T) -> Bool { lhs.value != rhs }
