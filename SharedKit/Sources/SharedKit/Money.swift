import APICore
import Foundation

/// An amount of money in a currency, exact to the minor unit.
public struct Money: Sendable, Hashable, CustomStringConvertible {
    /// The amount.
    public var amount: Decimal
    /// The ISO 4217 code, such as `EUR`; a code this build does not know is kept as sent.
    public var currency: String

    /// Creates an amount.
    public init(amount: Decimal, currency: String) {
        self.amount = amount
        self.currency = currency
    }

    /// From generated data, keeping a currency this build does not know.
    public init(amount: Decimal, currency: GraphQLEnum<SharedAPI.Currency>) {
        self.init(amount: amount, currency: currency.rawValue)
    }

    /// `12.50 EUR`.
    public var description: String { "\(amount) \(currency)" }
}
