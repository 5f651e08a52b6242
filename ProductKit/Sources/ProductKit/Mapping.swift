import APICore
import Foundation
import SharedKit

// From the generated data (GraphQL and OpenAPI) to the app's values, and the app's search to the
// schema's inputs.

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

extension ProductPage {
    init(_ products: ProductsQuery.Data.Products) {
        self.init(
            products: products.nodes.map { Product($0.fragments.productDetails) }, totalCount: products.totalCount,
            nextCursor: products.pageInfo.hasNextPage ? products.pageInfo.endCursor : nil)
    }
}

extension ProductSearch {
    /// The query's filter.
    var filter: ProductAPI.ProductFilter {
        ProductAPI.ProductFilter(search: GraphQLNullable(text), categoryId: GraphQLNullable(categoryID), maxPrice: GraphQLNullable(maxPrice))
    }

    /// The query's page: its size, from its cursor.
    var page: SharedAPI.PageInput { SharedAPI.PageInput(first: GraphQLNullable(pageSize), after: GraphQLNullable(after)) }
}

// From the REST answers (Components.Schemas, which swift-openapi-generator wrote).

extension Product {
    /// A product from `GET products/{id}`; a price that is not a decimal is a mapping error at `path`.
    init(_ product: Components.Schemas.Product, at path: String) throws(APIError) {
        self.init(
            id: product.id, sku: product.sku, name: product.name, description: product.description,
            category: Category(id: product.category.id, name: product.category.name),
            price: try money(product.price.amount, product.price.currency, at: path), tags: product.tags,
            updatedAt: DateTime(product.updatedAt))
    }
}

extension PricePoint {
    /// A point of `GET products/{id}/price-history`; a price that is not a decimal is a mapping error at `path`.
    init(_ point: Components.Schemas.PricePoint, at path: String) throws(APIError) {
        self.init(since: DateTime(point.since), price: try money(point.amount, point.currency, at: path))
    }
}

/// A price from the REST answer's decimal text; text that is not a decimal is a mapping error
/// at `path`.
private func money(_ amount: String, _ currency: String, at path: String) throws(APIError) -> Money {
    do {
        return Money(amount: try Decimal(jsonValue: .string(amount)), currency: currency)
    } catch {
        throw .mapping("\(path): \(error)")
    }
}
