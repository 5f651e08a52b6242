import Foundation
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
