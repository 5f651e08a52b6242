@_spi(Generated) import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import Logging
import StarWarsOperations

/// 100 pages of 50 catalog items from the loopback server: plain `fetch(.networkOnly)` calls one
/// after another, beside a `GraphQLPager` loading the same pages, with the pages cached apart and
/// merged in the cache (a connection field); then, with all 5,000 items loaded, the time from a
/// one-item change in the cache to the pager's list yielding it. Rounds alternate; medians.
enum PaginationBenchmark {
    static let pages = 100
    static let pageSize = 50
    static let rounds = 5

    typealias Page = CatalogPageQuery.Data.CatalogPage

    static func run() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        if ProcessInfo.processInfo.environment["APICOREKIT_PAGINATION_PROFILE"] == "merged" {
            // Only merged pages, for a profiler: 20 lists of 100 pages, nothing printed.
            for _ in 0..<20 {
                let joined = pager(makeClient(server.baseURL), merged: true)
                for _ in 0..<pages { try await joined.pager.loadNext() }
            }
            return
        }
        var plain: [Double] = []
        var separate: [Double] = []
        var merged: [Double] = []
        var separateUpdate: [Double] = []
        var mergedUpdate: [Double] = []
        let clock = ContinuousClock()
        for round in 0..<rounds {
            let client = makeClient(server.baseURL)
            plain.append(seconds(try await clock.measure {
                var cursor: String?
                for _ in 0..<pages {
                    let page = try await client.fetch(CatalogPagePlainQuery(first: pageSize, after: GraphQLNullable(cursor)), cachePolicy: .networkOnly)
                    cursor = page.value.catalogPage.pageInfo.endCursor
                }
            }))

            let apart = pager(makeClient(server.baseURL), merged: false)
            separate.append(seconds(try await clock.measure { for _ in 0..<pages { try await apart.pager.loadNext() } }))
            separateUpdate.append(try await updateMilliseconds(apart, round: round))

            let joined = pager(makeClient(server.baseURL), merged: true)
            merged.append(seconds(try await clock.measure { for _ in 0..<pages { try await joined.pager.loadNext() } }))
            mergedUpdate.append(try await updateMilliseconds(joined, round: round))
        }
        print("pager-ratio: \(String(format: "%.3f", median(separate) / median(plain)))")
        print("pager-merged-ratio: \(String(format: "%.3f", median(merged) / median(plain)))")
        print("plain-page-ms: \(String(format: "%.3f", median(plain) * 1000 / Double(pages)))")
        print("pager-page-ms: \(String(format: "%.3f", median(separate) * 1000 / Double(pages)))")
        print("pager-merged-page-ms: \(String(format: "%.3f", median(merged) * 1000 / Double(pages)))")
        print("list-update-ms: \(String(format: "%.3f", median(separateUpdate)))")
        print("list-update-merged-ms: \(String(format: "%.3f", median(mergedUpdate)))")
    }

    /// A pager over the catalog, and its client.
    static func pager(_ client: any APIClient, merged: Bool) -> (pager: GraphQLPager<String>, client: any APIClient) {
        @Sendable func page(after cursor: String?) -> PageRequest<Page> {
            merged
                ? PageRequest(GraphQLRequest(CatalogPageQuery(first: pageSize, after: GraphQLNullable(cursor))) { $0.catalogPage })
                : PageRequest(GraphQLRequest(CatalogPagePlainQuery(first: pageSize, after: GraphQLNullable(cursor))) { $0.catalogPage })
        }
        let pager = GraphQLPager(
            client: client, first: page(after: nil), next: { $0.pageInfo.hasNextPage ? page(after: $0.pageInfo.endCursor) : nil },
            elements: \.nodes, item: \.name)
        return (pager, client)
    }

    /// With every page loaded: one item renamed in the cache, until the list shows it.
    static func updateMilliseconds(_ subject: (pager: GraphQLPager<String>, client: any APIClient), round: Int) async throws -> Double {
        var lists = subject.pager.list().makeAsyncIterator()
        guard case .success(let loaded)? = await lists.next(), loaded.items.count == pages * pageSize else {
            throw BenchmarkError.incomplete
        }
        let name = "Renamed \(round)"
        let start = ContinuousClock.now
        try await subject.client.cache.updateRecord("CatalogItem:item-2500") { $0["name"] = .string(name) }
        while let next = await lists.next() {
            if case .success(let list) = next, list.items[2500] == name { return seconds(ContinuousClock.now - start) * 1000 }
        }
        throw BenchmarkError.incomplete
    }

    enum BenchmarkError: Error { case incomplete }

    static func makeClient(_ url: URL) -> any APIClient {
        APICoreLive.makeClient(APIClientConfiguration(
            restBaseURL: url, cache: CacheConfiguration(), logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }),
            retryPolicy: nil))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}
