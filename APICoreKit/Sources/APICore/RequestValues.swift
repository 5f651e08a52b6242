/// A key for an app-defined value that a request carries to the middleware chain, as
/// `ServiceContext` or `@TaskLocal` keys do: a type per value, so that two apps' keys never clash.
///
/// ```swift
/// enum TraceParent: RequestValueKey { typealias Value = String }
/// var request = GraphQLRequest(HouseholdQuery(id: "hh-1"))
/// request.values[TraceParent.self] = "00-4bf9…-01"
/// // in a middleware: context.values[TraceParent.self]
/// ```
public protocol RequestValueKey {
    /// The type of the value.
    associatedtype Value: Sendable
}

/// App-defined values a request carries, by typed key (``RequestValueKey``); middleware reads them
/// from `RequestContext/values`.
public struct RequestValues: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// No values.
    public init() {}

    /// The value for a key, or `nil` when the request has none; setting `nil` removes it.
    public subscript<Key: RequestValueKey>(_ key: Key.Type) -> Key.Value? {
        get { values[ObjectIdentifier(key)] as? Key.Value }
        set { values[ObjectIdentifier(key)] = newValue }
    }

    /// Whether the request carries no value.
    public var isEmpty: Bool { values.isEmpty }
}
