@_spi(Generated) import APICore
@_spi(Engine) import APICoreLive
import APICoreTestServer
import Foundation
import Logging
import StarWarsOperations

/// 100 pages of 50 catalog items from the loopback server: plain `fetch(.networkOnly)` calls one
/// after another, beside a `GraphQLPager` loading the same pages, with the pages cached apart and
/// merged in the cache (a connection field); then, with all 5,000 items loaded, the time from a
/// one-item change in the cache to the pager's list yielding it. Rounds alternate, each
/// starting with another of the three; medians.
enum PaginationBenchmark {
    static let pages = 100
    static let pageSize = 50
    static let rounds = 6

    typealias Page = CatalogPageQuery.Data.CatalogPage

    static func run() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        if let profiled = ProcessInfo.processInfo.environment["APICOREKIT_PAGINATION_PROFILE"] {
            // One kind alone (merged, separate or plain), for a profiler: 20 lists of 100 pages,
            // nothing printed.
            for _ in 0..<20 {
                let client = makeClient(server.baseURL)
                if profiled == "plain" {
                    try await fetchPlainPages(client)
                } else {
                    let subject = pager(client, merged: profiled == "merged")
                    for _ in 0..<pages { try await subject.pager.loadNext() }
                }
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
            // The three take turns at going first, so that what a round's start or end costs (a
            // fresh heap, a collection of the last client's tasks) falls on each alike.
            for phase in (0..<3).map({ ($0 + round) % 3 }) {
                let client = makeClient(server.baseURL)
                switch phase {
                case 0:
                    plain.append(seconds(try await clock.measure { try await fetchPlainPages(client) }))
                case 1:
                    let apart = pager(client, merged: false)
                    separate.append(seconds(try await clock.measure { for _ in 0..<pages { try await apart.pager.loadNext() } }))
                    separateUpdate.append(try await updateMilliseconds(apart, round: round))
                default:
                    let joined = pager(client, merged: true)
                    merged.append(seconds(try await clock.measure { for _ in 0..<pages { try await joined.pager.loadNext() } }))
                    mergedUpdate.append(try await updateMilliseconds(joined, round: round))
                }
                // The pager gone, its watchers stop: not on the next phase's time.
                try await settle(client)
            }
        }
        print("pager-ratio: \(String(format: "%.3f", median(separate) / median(plain)))")
        print("pager-merged-ratio: \(String(format: "%.3f", median(merged) / median(plain)))")
        print("plain-page-ms: \(String(format: "%.3f", median(plain) * 1000 / Double(pages)))")
        print("pager-page-ms: \(String(format: "%.3f", median(separate) * 1000 / Double(pages)))")
        print("pager-merged-page-ms: \(String(format: "%.3f", median(merged) * 1000 / Double(pages)))")
        print("list-update-ms: \(String(format: "%.3f", median(separateUpdate)))")
        print("list-update-merged-ms: \(String(format: "%.3f", median(mergedUpdate)))")
    }

    /// Every page, one plain `fetch(.networkOnly)` after another, each from the last one's cursor.
    static func fetchPlainPages(_ client: any APIClient) async throws {
        var cursor: String?
        for _ in 0..<pages {
            let page = try await client.fetch(CatalogPagePlainQuery(first: pageSize, after: GraphQLNullable(cursor)), cachePolicy: .networkOnly)
            cursor = page.value.catalogPage.pageInfo.endCursor
        }
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

    /// Waits until nothing of the client's runs (a pager's watchers stopping), for at most 30 s.
    static func settle(_ client: any APIClient) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while let activity = await APICoreLive.activity(of: client), activity.watchers > 0 || activity.backgroundTasks > 0 || activity.queriesInFlight > 0 {
            guard ContinuousClock.now < deadline else { throw BenchmarkError.incomplete }
            try await Task.sleep(for: .milliseconds(5))
        }
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
