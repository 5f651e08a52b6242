import APICore
import APICoreTesting
import Foundation
@testable import ProductKit  // the generated enums the mocks take are internal
import SharedKit
import Testing

/// Service paths answered from the generated test mocks (`Tests/ProductKitTests/Mocks`, from
/// `output.testMocks`) instead of JSON fixtures.
@Suite("ProductService with generated mocks")
struct MockDataTests {
    let updated = try! DateTime(iso8601: "2026-02-03T04:05:06Z")

    func tea(_ id: String, price: String) -> Mock.Product {
        Mock.Product(
            id: id, sku: "TEA-\(id)", name: "Tea \(id)", category: Mock.Category(id: "c-1", name: "Drinks"),
            price: Mock.Price(amount: Decimal(string: price), currency: .init(.eur)), tags: ["hot"], updatedAt: updated)
    }

    @Test("a page of products from mocks: exact prices, and no cursor on the last page")
    func lastPage() async throws {
        let client = MockAPIClient()
        client.stub(operation: "Products", mock: Mock.Query(products: Mock.ProductConnection(
            nodes: [tea("p-1", price: "0.10"), tea("p-2", price: "3.333")],
            pageInfo: Mock.PageInfo(hasNextPage: false, endCursor: "cursor-2"), totalCount: 2)))
        let page = try await ProductService(client: client).products(ProductSearch())
        #expect(page.products.map(\.price.amount) == [Decimal(string: "0.10")!, Decimal(string: "3.333")!])
        #expect(page.products.first?.description == nil)  // nullable and left unset in the mock
        #expect(page.nextCursor == nil)
        #expect(page.totalCount == 2)
    }

    @Test("categories from mocks keep their parent, sorted by name")
    func categories() async throws {
        let client = MockAPIClient()
        let food = Mock.Category(id: "c-0", name: "Food")
        client.stub(operation: "Categories", mock: Mock.Query(categories: [
            Mock.Category(id: "c-2", name: "Tea", parent: Mock.Category(id: "c-1")), Mock.Category(id: "c-1", name: "Drinks", parent: food), food,
        ]))
        let categories = try await ProductService(client: client).categories()
        #expect(categories.map(\.name) == ["Drinks", "Food", "Tea"])
        #expect(categories.map(\.parentID) == ["c-0", nil, "c-1"])
    }
}
