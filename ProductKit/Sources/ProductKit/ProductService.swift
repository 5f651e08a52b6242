import APICore
import APICoreOpenAPI
import Foundation
import OpenAPIRuntime
import SharedKit

/// Where `product(id:)` is answered from while the endpoint moves from REST to GraphQL.
public enum ProductSource: Sendable, Hashable {
    /// `query ProductByID`.
    case graphQL
    /// `GET products/{id}`, the older endpoint.
    case rest
}

/// The `ProductRepository` backed by an `APIClient`: GraphQL for the catalog and inventory, REST
/// for price history, through the same client and middleware.
public struct ProductService: ProductRepository {
    private let client: any APIClient
    private let productSource: @Sendable () -> ProductSource
    /// The REST endpoints, through a client swift-openapi-generator wrote from OpenAPI/openapi.yaml,
    /// on `client`'s middleware chain.
    private let rest: Client

    /// A service that talks through `client`. `productSource` is asked on every `product(id:)`
    /// call (a feature toggle), so an endpoint can move from REST to GraphQL, and back, without
    /// a release; both answer the same `Product`. See MIGRATION.md.
    public init(client: any APIClient, productSource: @escaping @Sendable () -> ProductSource = { .graphQL }) {
        self.client = client
        self.productSource = productSource
        self.rest = Client(serverURL: URL.defaultOpenAPIServerURL, transport: APIClientTransport(client: client))
    }

    /// `query Products`.
    public func products(_ query: ProductSearch) async throws(APIError) -> ProductPage {
        try await client.fetch(GraphQLRequest(ProductsQuery(filter: .some(query.filter), page: .some(query.page))) { data in
            ProductPage(data.products)
        }).value
    }

    /// `query Products`, page after page.
    public func productPager(_ query: ProductSearch) -> GraphQLPager<Product> {
        @Sendable func page(after cursor: String?) -> PageRequest<ProductsQuery.Data.Products> {
            var query = query
            query.after = cursor
            return PageRequest(GraphQLRequest(ProductsQuery(filter: .some(query.filter), page: .some(query.page))) { $0.products })
        }
        return GraphQLPager(
            client: client, first: page(after: query.after),
            next: { loaded in loaded.pageInfo.hasNextPage ? page(after: loaded.pageInfo.endCursor) : nil }, elements: \.nodes
        ) { Product($0.fragments.productDetails) }
    }

    /// `query ProductByID`, or `GET products/{id}` when the toggle says REST.
    public func product(id: String) async throws(APIError) -> Product? {
        switch productSource() {
        case .graphQL:
            return try await client.fetch(GraphQLRequest(ProductByIDQuery(id: id)) { data in data.product.map { Product($0.fragments.productDetails) } })
                .value
        case .rest:
            let output: Operations.getProduct.Output
            do {
                output = try await rest.getProduct(path: .init(id: id))
            } catch {
                throw await APIError(openAPI: error)
            }
            switch output {
            case .ok(let answer):
                return try Product(try Self.read(answer.body, of: "getProduct") { try $0.json }, at: "products/\(id)")
            case .notFound:
                return nil
            case .undocumented(let status, let payload):
                throw await APIError(status: status, headers: payload.headerFields, body: payload.body)
            }
        }
    }

    /// An answer's body as the case the document gives it (`json`), or the error that says why not.
    private static func read<Body, Value>(_ body: Body, of operation: String, _ read: (Body) throws -> Value) throws(APIError) -> Value {
        do {
            return try read(body)
        } catch {
            throw .mapping("\(operation): \(error)")
        }
    }

    /// `query Categories`, by name.
    public func categories() async throws(APIError) -> [Category] {
        try await client.fetch(GraphQLRequest(CategoriesQuery()) { data in
            data.categories.map { Category(id: $0.id, name: $0.name, parentID: $0.parent?.id) }.sorted { $0.name < $1.name }
        }).value
    }

    /// `query Inventory`.
    public func inventory(householdID: String) async throws(APIError) -> [InventoryItem] {
        try await client.fetch(GraphQLRequest(InventoryQuery(householdId: householdID)) { data in
            data.inventory.map { InventoryItem($0.fragments.inventoryItemDetails) }
        }).value
    }

    /// `mutation SetInventory`.
    public func setInventory(householdID: String, productID: String, quantity: Int, expiresAt: DateTime?) async throws(APIError)
        -> InventoryItem
    {
        let input = ProductAPI.SetInventoryInput(
            householdId: householdID, productId: productID, quantity: quantity, expiresAt: GraphQLNullable(orNull: expiresAt))
        return try await client.perform(GraphQLRequest(SetInventoryMutation(input: input)) { data in
            InventoryItem(data.setInventory.fragments.inventoryItemDetails)
        }).value
    }

    /// `GET products/{id}/price-history` (REST), oldest first.
    public func priceHistory(productID: String) async throws(APIError) -> [PricePoint] {
        let output: Operations.getPriceHistory.Output
        do {
            output = try await rest.getPriceHistory(path: .init(id: productID))
        } catch {
            throw await APIError(openAPI: error)
        }
        let points: [Components.Schemas.PricePoint]
        switch output {
        case .ok(let answer): points = try Self.read(answer.body, of: "getPriceHistory") { try $0.json }
        case .notFound(let answer): throw await APIError(status: 404, body: try? answer.body.plainText)
        case .undocumented(let status, let payload): throw await APIError(status: status, headers: payload.headerFields, body: payload.body)
        }
        var result: [PricePoint] = []
        for (index, point) in points.enumerated() {
            result.append(try PricePoint(point, at: "products/\(productID)/price-history [\(index)]"))
        }
        return result.sorted { $0.since < $1.since }
    }
}
