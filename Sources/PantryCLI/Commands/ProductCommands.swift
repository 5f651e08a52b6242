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
        @Option(help: "How many to show (one page).") var limit: Int = 20
        @Option(name: .customLong("page-size"), help: "Load the list a page of this many at a time, each page printed as it loads, with a progress line on standard error.")
        var pageSize: Int?
        @Flag(help: "Load every page (pages of --page-size, else 20).") var all = false

        func validate() throws {
            if let maxPrice, Decimal(string: maxPrice) == nil { throw ValidationError("--max-price must be a number, such as 3.50 (got '\(maxPrice)')") }
            guard (1...100).contains(limit) else { throw ValidationError("--limit must be between 1 and 100") }
            if let pageSize, !(1...100).contains(pageSize) { throw ValidationError("--page-size must be between 1 and 100") }
        }

        /// Whether the list is loaded page by page.
        var paged: Bool { pageSize != nil || all }

        func search(_ text: String?) -> ProductSearch {
            ProductSearch(text: text, categoryID: category, maxPrice: maxPrice.flatMap { Decimal(string: $0) }, pageSize: paged ? pageSize ?? 20 : limit)
        }

        /// Lists the products: one page, or page by page.
        func run(_ text: String?, _ session: Session) async throws {
            guard paged else { return printPage(try await session.environment.products.products(search(text)), session) }
            let pager = session.environment.products.productPager(search(text))
            let console = session.console
            var shown = 0
            while true {
                try await pager.loadNext()
                guard let list = await pager.current, list.items.count > shown || shown == 0 else { break }
                let page = Array(list.items[shown...])
                shown = list.items.count
                if !session.options.json { printRows(page, console) }
                console.note("page \(list.pageCount): \(shown) products so far" + (list.hasNext ? "" : ", the last page"))
                guard all, list.hasNext else { break }
            }
            if session.options.json, let list = await pager.current { console.printJSON(.array(list.items.map(json))) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Products, by name.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var filters: Filters

        func run() async throws {
            try await Session.run(global) { session in try await filters.run(nil, session) }
        }
    }

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Products whose name, description or tags contain a text.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The text to look for.") var text: String
        @OptionGroup var filters: Filters

        func run() async throws {
            try await Session.run(global) { session in try await filters.run(text, session) }
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
    printRows(page.products, console)
    console.print(console.dim("\(page.products.count) of \(page.totalCount) products ") + session.sources())
}

func printRows(_ products: [Product], _ console: Console) {
    console.table(["ID", "NAME", "PRICE", "CATEGORY", "TAGS"], products.map {
        [$0.id, $0.name, $0.price.description, $0.category.name, $0.tags.joined(separator: ",")]
    })
}
