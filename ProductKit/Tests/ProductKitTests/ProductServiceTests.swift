import APICore
import APICoreTesting
import Foundation
import ProductKit
import Testing

@Suite("ProductService")
struct ProductServiceTests {
    @Test("maps a product with an exact decimal price")
    func product() async throws {
        let client = MockAPIClient()
        client.stub(.get, "products/p1", json: ["id": "p1", "name": "Tea", "price": ["amount": "0.10", "currency": "EUR"]])
        let product = try await ProductService(client: client).product(id: "p1")
        #expect(product.price == Price(amount: Decimal(string: "0.10")!, currency: "EUR"))
        #expect(product.price.amount * 3 == Decimal(string: "0.3")!)
        #expect(client.sent("GET products/p1").count == 1)
    }

    @Test("an amount that is not a number is a mapping error naming the field")
    func badAmount() async {
        let client = MockAPIClient()
        client.stub(.get, "products/p1", json: ["id": "p1", "name": "Tea", "price": ["amount": "ten", "currency": "EUR"]])
        await #expect {
            try await ProductService(client: client).product(id: "p1")
        } throws: { error in
            guard case APIError.mapping(let reason) = error else { return false }
            return reason.contains("price.amount") && reason.contains("'ten'")
        }
    }
}
