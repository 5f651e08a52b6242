import APICore
import Foundation

/// A point in time as the backend's `DateTime` scalar writes it: ISO 8601 / RFC 3339 with a time
/// zone, with or without fractional seconds (`2026-11-22T03:00:00Z`, `2026-11-22T03:00:00.123+01:00`).
///
/// Anything else (a date without a time, a missing zone, a Unix timestamp) is rejected with an
/// error that quotes the text, rather than guessed at.
public struct DateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The instant.
    public let date: Date

    /// Wraps an instant.
    public init(_ date: Date) { self.date = date }

    /// Parses ISO 8601 text, with or without fractional seconds.
    public init(iso8601 text: String) throws(DateTimeError) {
        guard let date = Self.parse(text) else { throw DateTimeError(text: text) }
        self.date = date
    }

    /// UTC, with milliseconds only when the instant has them: `2026-11-22T03:00:00Z`.
    public var iso8601: String {
        let whole = date.timeIntervalSince1970.rounded(.down)
        return date.formatted(date.timeIntervalSince1970 == whole ? Self.plain : Self.fractional)
    }

    /// The ISO 8601 text.
    public var description: String { iso8601 }

    /// Earlier instants come first.
    public static func < (lhs: DateTime, rhs: DateTime) -> Bool { lhs.date < rhs.date }

    private static let plain = Date.ISO8601FormatStyle()
    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    private static func parse(_ text: String) -> Date? {
        // Both styles require a full date, a time and a zone designator.
        if let date = try? Date(text, strategy: plain) { return date }
        return try? Date(text, strategy: fractional)
    }
}

/// Text that is not an ISO 8601 date-time with a time zone.
public struct DateTimeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The rejected text.
    public let text: String

    /// An error for `text`.
    public init(text: String) { self.text = text }

    /// Quotes the text and the accepted forms.
    public var description: String {
        "'\(text)' is not an ISO 8601 date-time with a time zone (expected e.g. 2026-11-22T03:00:00Z or 2026-11-22T03:00:00.123+01:00)"
    }
}

extension DateTime: CustomScalarType {
    /// Reads the scalar from a JSON string.
    public init(jsonValue value: JSONValue) throws {
        guard case .string(let text) = value else {
            throw DateTimeError(text: value.description)
        }
        try self.init(iso8601: text)
    }

    /// The scalar as a JSON string.
    public var jsonValue: JSONValue { .string(iso8601) }
}
