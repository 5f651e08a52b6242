import APICore
import APICoreTesting
import Foundation
import ProductKit
import SharedKit
import Testing

@Suite("ProductService")
struct ProductServiceTests {
    func fixture(_ name: String) throws -> URL {
        try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
    }

    @Test("a page of products: exact prices, unknown currencies kept, the next cursor, the filter sent")
    func products() async throws {
        let client = MockAPIClient()
        try client.stub(operation: "Products", fixture: fixture("products"))
        let page = try await ProductService(client: client).products(ProductSearch(text: "tea", maxPrice: Decimal(string: "20.5"), pageSize: 2))
        #expect(page.products.map(\.sku) == ["TEA-001", "RICE-5"])
        #expect(page.products[0].price == Money(amount: Decimal(string: "0.10")!, currency: "EUR"))
        #expect(page.products[0].price.amount * 3 == Decimal(string: "0.3")!)
        #expect(page.products[1].price.currency == "NOK")
        #expect(page.nextCursor == "cursor-2")
        #expect(page.totalCount == 3)
        #expect(client.sent("Products").first?.payload == [
            "filter": ["search": "tea", "maxPrice": "20.5"], "page": ["first": 2],
        ])
    }

    @Test("the product pager loads page after page, each from the last one's cursor, and stops after the last")
    func pager() async throws {
        let client = MockAPIClient()
        let first = try JSONValue(parsing: Data(contentsOf: fixture("products")))
        var last = try #require(first.objectValue)
        var products = try #require(last["data"]?["products"]?.objectValue)
        products["pageInfo"] = ["__typename": "PageInfo", "hasNextPage": false, "endCursor": nil]
        products["nodes"] = .array(Array(products["nodes"]?.arrayValue?.prefix(1) ?? []))
        last["data"] = ["products": .object(products)]
        client.stub(operation: "Products", response: first)
        client.stub(operation: "Products", response: .object(last))

        let pager = ProductService(client: client).productPager(ProductSearch(text: "tea", pageSize: 2))
        try await pager.loadNext()
        try await pager.loadNext()
        try await pager.loadNext()  // there is no third page: nothing is sent
        let list = try #require(await pager.current)
        #expect(list.items.map(\.sku) == ["TEA-001", "RICE-5", "TEA-001"])
        #expect(!list.hasNext && list.pageCount == 2)
        #expect(client.sent("Products").map(\.payload) == [
            ["filter": ["search": "tea"], "page": ["first": 2]], ["filter": ["search": "tea"], "page": ["first": 2, "after": "cursor-2"]],
        ])
    }

    @Test("REST beside GraphQL: price history through the same client, oldest first")
    func priceHistory() async throws {
        let client = MockAPIClient()
        try client.stub(.get, "products/p-1/price-history", fixture: fixture("price-history"))
        let history = try await ProductService(client: client).priceHistory(productID: "p-1")
        #expect(history.map(\.price.amount) == [Decimal(string: "0.10")!, Decimal(string: "0.12")!])
        #expect(history.first?.since == (try DateTime(iso8601: "2026-01-01T00:00:00Z")))
    }

    @Test("a price-history entry with a bad amount is a mapping error naming the entry")
    func badPriceHistory() async throws {
        let client = MockAPIClient()
        client.stub(.get, "products/p-1/price-history", json: [["since": "2026-01-01T00:00:00Z", "amount": "1,5", "currency": "EUR"]])
        await #expect {
            try await ProductService(client: client).priceHistory(productID: "p-1")
        } throws: { error in
            guard case APIError.mapping(let reason) = error else { return false }
            return reason.contains("price-history [0]") && reason.contains("1,5")
        }
    }

    @Test("setting inventory sends expiresAt as null to clear it")
    func setInventory() async throws {
        let client = MockAPIClient()
        let products = try JSONValue(parsing: Data(contentsOf: fixture("products")))
        let product = try #require(products["data"]?["products"]?["nodes"]?.arrayValue?.first)
        client.stub(operation: "SetInventory", data: ["setInventory": [
            "__typename": "InventoryItem", "id": "inv-1", "householdId": "hh-1", "quantity": 3, "expiresAt": nil, "product": product,
        ]])
        let item = try await ProductService(client: client).setInventory(householdID: "hh-1", productID: "p-1", quantity: 3, expiresAt: nil)
        #expect(item.quantity == 3)
        #expect(item.product.name == "Green tea")
        #expect(client.sent("SetInventory").first?.payload == ["input": ["householdId": "hh-1", "productId": "p-1", "quantity": 3, "expiresAt": nil]])
    }

    @Test("the same product from GraphQL and from REST, switched per request by the toggle")
    func sourceToggle() async throws {
        let client = MockAPIClient()
        let products = try JSONValue(parsing: Data(contentsOf: fixture("products")))
        let node = try #require(products["data"]?["products"]?["nodes"]?.arrayValue?.first)
        client.stub(operation: "ProductByID", data: ["product": node])
        client.stub(.get, "products/p-1", json: [
            "id": "p-1", "sku": "TEA-001", "name": "Green tea", "description": nil, "tags": ["drink"], "updatedAt": "2026-02-01T08:00:00Z",
            "category": ["id": "c-1", "name": "Drinks"], "price": ["amount": "0.10", "currency": "EUR"],
        ])
        client.stub(.get, "products/gone", error: .httpStatus(HTTPFailure(statusCode: 404, headers: [:], body: Data(), url: nil)))
        let toggle = Toggle()
        let service = ProductService(client: client, productSource: { toggle.source })
        let fromGraphQL = try await service.product(id: "p-1")
        toggle.source = .rest
        let fromREST = try await service.product(id: "p-1")
        #expect(fromGraphQL != nil)
        #expect(fromGraphQL == fromREST)
        #expect(client.sent.map(\.name) == ["ProductByID", "GET products/p-1"])
        #expect(try await service.product(id: "gone") == nil)
    }

    @Test("REST through the generated OpenAPI client: an undocumented status and an unreadable answer are APIErrors naming what failed")
    func restFailures() async throws {
        let client = MockAPIClient()
        let service = ProductService(client: client, productSource: { .rest })
        client.stub(.get, "products/p-1", error: .httpStatus(HTTPFailure(statusCode: 503, headers: ["retry-after": "5"], body: Data("busy".utf8), url: nil)))
        let unavailable = await #expect(throws: APIError.self) { try await service.product(id: "p-1") }
        guard case .httpStatus(let failure) = unavailable else { Issue.record("expected httpStatus, got \(String(describing: unavailable))"); return }
        #expect(failure.statusCode == 503 && failure.bodyExcerpt == "busy" && failure.headers["retry-after"] == "5")

        client.stub(.get, "products/p-2", json: ["id": "p-2", "name": "no sku, no price"])
        let unreadable = await #expect(throws: APIError.self) { try await service.product(id: "p-2") }
        guard case .invalidResponse(let invalid) = unreadable else { Issue.record("expected invalidResponse, got \(String(describing: unreadable))"); return }
        #expect(invalid.request == "getProduct" && "\(invalid)".contains("sku"), "\(invalid)")

        client.stub(.get, "products/p-3/price-history", error: .httpStatus(HTTPFailure(statusCode: 404, headers: [:], body: Data("no product p-3".utf8), url: nil)))
        let missing = await #expect(throws: APIError.self) { try await service.priceHistory(productID: "p-3") }
        #expect(missing?.statusCode == 404)
    }

    @Test("a missing product is nil; a transport failure passes through")
    func missingAndFailing() async throws {
        let client = MockAPIClient()
        client.stub(operation: "ProductByID", data: ["product": nil])
        #expect(try await ProductService(client: client).product(id: "nope") == nil)
        client.stub(operation: "Categories", error: .transport(TransportFailure(kind: .notConnected, url: nil, underlying: "offline")))
        await #expect(throws: APIError.self) { try await ProductService(client: client).categories() }
    }
}

/// A feature toggle the tests flip.
final class Toggle: @unchecked Sendable {
    private let lock = NSLock()
    private var value = ProductSource.graphQL
    var source: ProductSource {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
