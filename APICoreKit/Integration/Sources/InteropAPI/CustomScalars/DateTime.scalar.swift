// Written once by apicore-codegen and never overwritten: replace the typealias with your own
// type (conforming to APICore's CustomScalarType) to read DateTime as something richer than text.
// The extension is `nonisolated` so that the type is usable from any isolation.

import APICore
import Foundation

nonisolated extension InteropAPI {
    /// Strawberry's `DateTime`: Python's `isoformat()` of an aware date-time
    /// (`1965-08-01T00:00:00+00:00`), read as an instant; what is sent is ISO 8601 in UTC.
    public struct DateTime: CustomScalarType, Sendable, Hashable {
        /// The instant.
        public let date: Date

        /// Wraps an instant.
        public init(_ date: Date) { self.date = date }

        /// Reads ISO 8601 text with a time zone, with or without fractional seconds.
        public init(jsonValue value: JSONValue) throws {
            guard let text = value.stringValue else { throw GraphQLDecodingError(message: "DateTime is not a string: \(value)") }
            guard let date = (try? Date(text, strategy: .iso8601)) ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            else { throw GraphQLDecodingError(message: "'\(text)' is not an ISO 8601 date-time with a time zone") }
            self.date = date
        }

        /// ISO 8601 in UTC.
        public var jsonValue: JSONValue { .string(date.formatted(.iso8601)) }
    }
}
