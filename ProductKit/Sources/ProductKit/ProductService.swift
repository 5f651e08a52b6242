import APICore
import Foundation
import SharedKit

/// An amount of money in a currency, exact to the minor unit.
public struct Price: Sendable, Hashable, CustomStringConvertible {
    /// The amount, as a decimal.
    public var amount: Decimal
    /// The ISO 4217 code, such as `EUR`.
    public var currency: String

    /// Creates a price.
    public init(amount: Decimal, currency: String) {
        self.amount = amount
        self.currency = currency
    }

    /// `3.50 EUR`.
    public var description: String { "\(amount) \(currency)" }
}

/// Something the catalog sells.
public struct Product: Sendable, Hashable, Identifiable {
    /// The product's id.
    public var id: String
    /// Its name.
    public var name: String
    /// What it costs.
    public var price: Price

    /// Creates a product.
    public init(id: String, name: String, price: Price) {
        self.id = id
        self.name = name
        self.price = price
    }
}

/// Where products come from.
public protocol ProductRepository: Sendable {
    /// The product with this id.
    func product(id: String) async throws(APIError) -> Product
}

/// The `ProductRepository` backed by an `APIClient`.
public struct ProductService: ProductRepository {
    private let client: any APIClient

    /// A service that talks through `client`.
    public init(client: any APIClient) { self.client = client }

    struct ProductDTO: Decodable, Sendable {
        struct PriceDTO: Decodable, Sendable {
            var amount: String
            var currency: String
        }
        var id: String
        var name: String
        var price: PriceDTO
    }

    /// `GET products/{id}`. The amount travels as a decimal string so no cent is lost to `Double`.
    public func product(id: String) async throws(APIError) -> Product {
        let dto = try await client.send(RESTRequest<ProductDTO>.get("products/\(id)")).value
        guard let amount = Decimal(string: dto.price.amount, locale: Locale(identifier: "en_US_POSIX")) else {
            throw .mapping("products/\(id) price.amount: '\(dto.price.amount)' is not a decimal number")
        }
        return Product(id: dto.id, name: dto.name, price: Price(amount: amount, currency: dto.price.currency))
    }
}
