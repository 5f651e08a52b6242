import APICore
import Foundation

/// The backend's `Decimal` scalar is text (`"12.50"`) so that no cent is lost on the way;
/// `Foundation.Decimal` reads it exactly. Integers are accepted too; anything else is an error
/// quoting the value.
extension Foundation.Decimal: @retroactive CustomScalarType {
    /// Reads `"12.50"` (or an integer).
    public init(jsonValue value: JSONValue) throws {
        switch value {
        case .string(let text):
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
                text.range(of: #"^-?[0-9]+(\.[0-9]+)?$"#, options: .regularExpression) != nil
            else { throw DecimalScalarError(value: value) }
            self = decimal
        case .int(let int):
            self = Decimal(int)
        default:
            throw DecimalScalarError(value: value)
        }
    }

    /// Written as text, in plain notation: `"12.5"`.
    public var jsonValue: JSONValue {
        var value = self
        return .string(NSDecimalString(&value, Locale(identifier: "en_US_POSIX")))
    }
}

/// A value that is not a decimal number written as text.
public struct DecimalScalarError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value received.
    public let value: JSONValue

    /// Quotes the value.
    public var description: String { "\(value) is not a decimal number written as text (expected e.g. \"12.50\")" }
}
