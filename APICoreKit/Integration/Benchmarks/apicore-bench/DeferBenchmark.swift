@_spi(Tools) import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `@defer`: a catalog of about 50 KB whose answer arrives as one first part and ten increments,
/// against the same data answered in one JSON body, in the same run, from the same loopback
/// server. Both answers are rendered once by the real endpoint, then served as bytes, so that the
/// server's work is the same small constant for both; what differs is the client's.
enum DeferBenchmark {
    static let iterations = 300

    static func run() async throws {
        let server = try await TestServer.start()
        let renderer = APICoreLive.makeClient(APIClientConfiguration(restBaseURL: server.baseURL, cache: nil))
        _ = try await renderer.fetch(CatalogWholeQuery(), cachePolicy: .noCache)
        let whole = try await render(server.graphQLURL, CatalogWholeQuery.document, accept: "application/json")
        let deferred = try await render(server.graphQLURL, CatalogDeferredQuery.document, accept: "multipart/mixed;deferSpec=20220824")
        server.respond("bench/whole", status: 200, contentType: "application/json", body: String(decoding: whole.body, as: UTF8.self))
        server.respond("bench/deferred", status: 200, contentType: deferred.contentType, body: String(decoding: deferred.body, as: UTF8.self))

        let configuration = { (path: String) in
            APIClientConfiguration(restBaseURL: server.baseURL, graphQLURL: server.baseURL.appendingPathComponent(path), retryPolicy: nil)
        }
        let wholeClient = APICoreLive.makeClient(configuration("bench/whole"))
        let deferredClient = APICoreLive.makeClient(configuration("bench/deferred"))
        let expected = CatalogParts.itemsPerPart * (CatalogParts.deferredParts + 1)

        @Sendable func wholeAnswer() async throws -> Int { try await wholeClient.fetch(CatalogWholeQuery(), cachePolicy: .networkOnly).value.items.count }
        @Sendable func deferredAnswer() async throws -> (first: Duration, parts: Int, items: Int) {
            let start = ContinuousClock.now
            var first: Duration?
            var parts = 0
            var items = 0
            for await result in deferredClient.responses(GraphQLRequest(CatalogDeferredQuery()), cachePolicy: .networkOnly) {
                if first == nil { first = ContinuousClock.now - start }
                parts += 1
                items = try result.get().value.items.count
            }
            return (first ?? .zero, parts, items)
        }

        let check = try await deferredAnswer()
        let wholeCount = try await wholeAnswer()
        precondition(check.parts == CatalogParts.deferredParts + 1 && check.items == expected && wholeCount == expected,
                     "the deferred answer must come in \(CatalogParts.deferredParts + 1) results and both must hold every item")
        for _ in 0..<20 {
            _ = try await deferredAnswer()
            _ = try await wholeAnswer()
        }

        let clock = ContinuousClock()
        var wholeTimes: [Double] = []
        var deferredTimes: [Double] = []
        var firstTimes: [Double] = []
        for index in 0..<iterations {
            func measureDeferred() async throws {
                var first = Duration.zero
                deferredTimes.append(try await E2EBenchmark.seconds(clock) { first = try await deferredAnswer().first })
                firstTimes.append(Double(first.components.seconds) + Double(first.components.attoseconds) / 1e18)
            }
            // Alternate which goes first so that neither always runs on a warmer connection.
            if index % 2 == 0 {
                try await measureDeferred()
                wholeTimes.append(try await E2EBenchmark.seconds(clock) { _ = try await wholeAnswer() })
            } else {
                wholeTimes.append(try await E2EBenchmark.seconds(clock) { _ = try await wholeAnswer() })
                try await measureDeferred()
            }
        }
        let wholeMedian = E2EBenchmark.median(wholeTimes)
        print("defer-response-bytes: \(deferred.body.count) (whole: \(whole.body.count))")
        print("defer-parts: \(check.parts)")
        print("defer-whole-json-ms: \(E2EBenchmark.format(wholeMedian * 1000))")
        print("defer-final-result-ms: \(E2EBenchmark.format(E2EBenchmark.median(deferredTimes) * 1000))")
        print("defer-first-result-ms: \(E2EBenchmark.format(E2EBenchmark.median(firstTimes) * 1000))")
        print("defer-ratio: \(E2EBenchmark.format(E2EBenchmark.median(deferredTimes) / wholeMedian))")
        await server.stop()
    }

    /// One answer of the real endpoint, as bytes, with its content type.
    static func render(_ url: URL, _ document: String, accept: String) async throws -> (body: Data, contentType: String) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(accept, forHTTPHeaderField: "Accept")
        request.httpBody = JSONSerializer.data(["query": .string(document)])
        let (body, response) = try await URLSession.shared.data(for: request)
        return (body, (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") ?? "")
    }
}
