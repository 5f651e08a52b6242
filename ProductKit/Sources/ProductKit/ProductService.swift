import APICore
import APICoreOpenAPI
import Foundation
import OpenAPIRuntime
import SharedKit

/// A shelf of the catalog.
public struct Category: Sendable, Hashable, Identifiable {
    /// The category's id.
    public var id: String
    /// Its name.
    public var name: String
    /// The category it sits in, if any.
    public var parentID: String?

    /// Creates a category.
    public init(id: String, name: String, parentID: String? = nil) {
        self.id = id
        self.name = name
        self.parentID = parentID
    }
}

/// Something the catalog sells.
public struct Product: Sendable, Hashable, Identifiable {
    /// The product's id.
    public var id: String
    /// The stock-keeping unit.
    public var sku: String
    /// Its name.
    public var name: String
    /// What it is, if the catalog says.
    public var description: String?
    /// Its shelf.
    public var category: Category
    /// What it costs.
    public var price: Money
    /// Words it can be found by.
    public var tags: [String]
    /// When it last changed.
    public var updatedAt: DateTime
}

/// One page of a product list.
public struct ProductPage: Sendable, Hashable {
    /// The products on this page.
    public var products: [Product]
    /// How many products match in all.
    public var totalCount: Int
    /// Where the next page starts, or `nil` on the last page.
    public var nextCursor: String?
}

/// Which products to list.
public struct ProductSearch: Sendable, Hashable {
    /// Words to find in the name, description or tags.
    public var text: String?
    /// Only this category.
    public var categoryID: String?
    /// Only products that cost at most this much.
    public var maxPrice: Decimal?
    /// How many per page.
    public var pageSize: Int?
    /// The cursor of a previous page's `nextCursor`.
    public var after: String?

    /// Describes a query; by default, the first page of everything.
    public init(text: String? = nil, categoryID: String? = nil, maxPrice: Decimal? = nil, pageSize: Int? = nil, after: String? = nil) {
        self.text = text
        self.categoryID = categoryID
        self.maxPrice = maxPrice
        self.pageSize = pageSize
        self.after = after
    }
}

/// How much of a product a household has.
public struct InventoryItem: Sendable, Hashable, Identifiable {
    /// The item's id.
    public var id: String
    /// The household it belongs to.
    public var householdID: String
    /// The product.
    public var product: Product
    /// How many units.
    public var quantity: Int
    /// When the oldest unit expires, if it does.
    public var expiresAt: DateTime?
}

/// A price a product had from a moment on.
public struct PricePoint: Sendable, Hashable {
    /// From when.
    public var since: DateTime
    /// The price.
    public var price: Money
}

/// Where products come from.
public protocol ProductRepository: Sendable {
    /// A page of products.
    func products(_ query: ProductSearch) async throws(APIError) -> ProductPage
    /// Every page of a product list, one after another as the app asks (`loadNext()`), watched:
    /// the list so far (`list()`) comes again when a product in it changes. Pages of
    /// `query.pageSize`, from `query.after`.
    func productPager(_ query: ProductSearch) -> GraphQLPager<Product>
    /// The product with this id, or `nil` when there is none.
    func product(id: String) async throws(APIError) -> Product?
    /// Every category.
    func categories() async throws(APIError) -> [Category]
    /// What a household has.
    func inventory(householdID: String) async throws(APIError) -> [InventoryItem]
    /// Sets how much of a product a household has.
    func setInventory(householdID: String, productID: String, quantity: Int, expiresAt: DateTime?) async throws(APIError) -> InventoryItem
    /// A product's past prices, oldest first (a REST endpoint).
    func priceHistory(productID: String) async throws(APIError) -> [PricePoint]
}

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
        let filter = ProductAPI.ProductFilter(
            search: GraphQLNullable(query.text), categoryId: GraphQLNullable(query.categoryID), maxPrice: GraphQLNullable(query.maxPrice))
        let page = SharedAPI.PageInput(first: GraphQLNullable(query.pageSize), after: GraphQLNullable(query.after))
        return try await client.fetch(GraphQLRequest(ProductsQuery(filter: .some(filter), page: .some(page))) { data in
            ProductPage(
                products: data.products.nodes.map { Product($0.fragments.productDetails) },
                totalCount: data.products.totalCount,
                nextCursor: data.products.pageInfo.hasNextPage ? data.products.pageInfo.endCursor : nil)
        }).value
    }

    /// `query Products`, page after page.
    public func productPager(_ query: ProductSearch) -> GraphQLPager<Product> {
        let filter = ProductAPI.ProductFilter(
            search: GraphQLNullable(query.text), categoryId: GraphQLNullable(query.categoryID), maxPrice: GraphQLNullable(query.maxPrice))
        let size = query.pageSize
        @Sendable func page(after cursor: String?) -> PageRequest<ProductsQuery.Data.Products> {
            let input = SharedAPI.PageInput(first: GraphQLNullable(size), after: GraphQLNullable(cursor))
            return PageRequest(GraphQLRequest(ProductsQuery(filter: .some(filter), page: .some(input))) { $0.products })
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
                let product = try Self.read(answer.body, of: "getProduct") { try $0.json }
                return Product(
                    id: product.id, sku: product.sku, name: product.name, description: product.description,
                    category: Category(id: product.category.id, name: product.category.name),
                    price: try Self.money(product.price.amount, product.price.currency, at: "products/\(id)"), tags: product.tags,
                    updatedAt: DateTime(product.updatedAt))
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

    /// A price from the REST answer's decimal text; text that is not a decimal is a mapping error
    /// at `path`.
    private static func money(_ amount: String, _ currency: String, at path: String) throws(APIError) -> Money {
        do {
            return Money(amount: try Decimal(jsonValue: .string(amount)), currency: currency)
        } catch {
            throw .mapping("\(path): \(error)")
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
            let price = try Self.money(point.amount, point.currency, at: "products/\(productID)/price-history [\(index)]")
            result.append(PricePoint(since: DateTime(point.since), price: price))
        }
        return result.sorted { $0.since < $1.since }
    }
}

extension Product {
    init(_ details: ProductDetails) {
        self.init(
            id: details.id, sku: details.sku, name: details.name, description: details.description,
            category: Category(id: details.category.id, name: details.category.name),
            price: Money(amount: details.price.amount, currency: details.price.currency), tags: details.tags,
            updatedAt: details.updatedAt)
    }
}

extension InventoryItem {
    init(_ details: InventoryItemDetails) {
        self.init(
            id: details.id, householdID: details.householdId, product: Product(details.product.fragments.productDetails),
            quantity: details.quantity, expiresAt: details.expiresAt)
    }
}
