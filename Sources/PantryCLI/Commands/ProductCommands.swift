import APICore
import ArgumentParser
import Foundation
import ProductKit
import SharedKit

struct ProductsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "products", abstract: "List, search and show products.", subcommands: [List.self, Search.self, Show.self],
        defaultSubcommand: List.self)

    struct Filters: ParsableArguments {
        @Option(help: "Only this category's products (an id, such as cat-2).") var category: String?
        @Option(name: .customLong("max-price"), help: "Only products costing at most this much, such as 3.50.") var maxPrice: String?
        @Option(help: "How many to show.") var limit: Int = 20

        func validate() throws {
            if let maxPrice, Decimal(string: maxPrice) == nil { throw ValidationError("--max-price must be a number, such as 3.50 (got '\(maxPrice)')") }
            guard (1...100).contains(limit) else { throw ValidationError("--limit must be between 1 and 100") }
        }

        func search(_ text: String?) -> ProductSearch {
            ProductSearch(text: text, categoryID: category, maxPrice: maxPrice.flatMap { Decimal(string: $0) }, pageSize: limit)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Products, by name.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var filters: Filters

        func run() async throws {
            try await Session.run(global) { session in
                printPage(try await session.environment.products.products(filters.search(nil)), session)
            }
        }
    }

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Products whose name, description or tags contain a text.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The text to look for.") var text: String
        @OptionGroup var filters: Filters

        func run() async throws {
            try await Session.run(global) { session in
                printPage(try await session.environment.products.products(filters.search(text)), session)
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One product and its price history.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The product's id, such as p-11.") var id: String
        @Flag(help: "Read it over REST (GET products/{id}) instead of GraphQL.") var rest = false

        func run() async throws {
            try await Session.run(global) { session in
                session.productSource.withLock { $0 = rest ? .rest : .graphQL }
                guard let product = try await session.environment.products.product(id: id) else {
                    throw ValidationError("no product '\(id)' (see `pantry products`)")
                }
                let productSources = session.sources()
                let history = try await session.environment.products.priceHistory(productID: id)
                let console = session.console
                if global.json {
                    var object = json(product).objectValue ?? [:]
                    object["priceHistory"] = .array(history.map { ["since": .string($0.since.iso8601), "price": .string($0.price.description)] })
                    return console.printJSON(.object(object))
                }
                console.print("\(console.bold(product.name))  \(product.id)  \(product.sku)  \(product.price)  \(product.category.name) \(productSources)")
                if let description = product.description { console.print(description) }
                console.print("Price history \(session.sources()): " + history.map { "\($0.price) since \($0.since.iso8601)" }.joined(separator: "; "))
            }
        }
    }
}

func json(_ product: Product) -> JSONValue {
    [
        "id": .string(product.id), "sku": .string(product.sku), "name": .string(product.name), "price": .string(product.price.description),
        "category": .string(product.category.name), "tags": .array(product.tags.map { .string($0) }),
    ]
}

func printPage(_ page: ProductPage, _ session: Session) {
    let console = session.console
    if session.options.json {
        return console.printJSON(["products": .array(page.products.map(json)), "totalCount": .int(page.totalCount)])
    }
    console.table(["ID", "NAME", "PRICE", "CATEGORY", "TAGS"], page.products.map {
        [$0.id, $0.name, $0.price.description, $0.category.name, $0.tags.joined(separator: ",")]
    })
    console.print(console.dim("\(page.products.count) of \(page.totalCount) products ") + session.sources())
}
