import GraphQL

/// A reference to a type as written in a schema or operation: `Episode`, `[Episode!]!`.
package indirect enum TypeRef: Hashable, Sendable, CustomStringConvertible {
    case named(String)
    case list(TypeRef)
    case nonNull(TypeRef)

    package var namedType: String {
        switch self {
        case .named(let name): return name
        case .list(let inner), .nonNull(let inner): return inner.namedType
        }
    }

    var isList: Bool {
        if case .list = self { return true }
        return false
    }

    var isNonNull: Bool {
        if case .nonNull = self { return true }
        return false
    }

    var nullable: TypeRef {
        if case .nonNull(let inner) = self { return inner }
        return self
    }

    /// The type with non-null at the list depths in `levels` as well (0: the value itself, 1: a
    /// list's items, …), for `@semanticNonNull(levels:)`.
    func nonNull(atLevels levels: Set<Int>, depth: Int = 0) -> TypeRef {
        var inner = nullable
        if case .list(let element) = inner { inner = .list(element.nonNull(atLevels: levels, depth: depth + 1)) }
        return isNonNull || levels.contains(depth) ? .nonNull(inner) : inner
    }

    package var description: String {
        switch self {
        case .named(let name): return name
        case .list(let inner): return "[\(inner)]"
        case .nonNull(let inner): return "\(inner)!"
        }
    }

    package init(_ type: any GraphQL.`Type`) {
        switch type {
        case let named as NamedType: self = .named(named.name.value)
        case let list as ListType: self = .list(TypeRef(list.type))
        case let nonNull as NonNullType: self = .nonNull(TypeRef(nonNull.type))
        default: self = .named("?")
        }
    }
}
