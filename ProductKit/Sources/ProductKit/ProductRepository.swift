import APICore
import SharedKit

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
