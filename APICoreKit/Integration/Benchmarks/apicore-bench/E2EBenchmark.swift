@_spi(Engine) @_spi(Tools) import APICore
import APICoreAsyncHTTPClient
import APICoreLive
import APICoreTestServer
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import StarWarsOperations

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A GraphQL query of about 50 KB through `APIClient` (`.noCache`: validated, then mapped to domain
/// values; and `.networkOnly`, which also normalizes it into the memory cache)
/// against a bare `URLSession` POST plus `JSONDecoder` of the same body, in the same run, against
/// the same loopback server. The body is rendered once by the real GraphQL endpoint, then served
/// as bytes, so that the server's own work is the same small constant for both. The same again over
/// AsyncHTTPClient: our client over `AsyncHTTPClientTransport` against a bare AsyncHTTPClient POST
/// plus `JSONDecoder`, and our client over each transport.
enum E2EBenchmark {
    struct Product: Decodable, Sendable {
        var id: String
        var name: String
        var description: String
        var price: Double
        var tags: [String]
    }

    struct Envelope: Decodable {
        struct Payload: Decodable { var catalog: [Product] }
        var data: Payload
    }

    static let itemCount = 262
    static let iterations = 400
    static let concurrentCallers = 32
    static let throughputRequests = 3_000

    static func run() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }

        // Render the response once with the real GraphQL endpoint, then serve it as bytes.
        let renderer = APICoreLive.makeClient(APIClientConfiguration(restBaseURL: server.baseURL))
        _ = try await renderer.fetch(CatalogQuery(count: itemCount))
        let rendered = try await URLSession.shared.data(for: bareRequest(server.graphQLURL, count: itemCount)).0
        server.respond("bench/catalog", status: 200, contentType: "application/graphql-response+json", body: String(decoding: rendered, as: UTF8.self))
        let url = server.baseURL.appendingPathComponent("bench/catalog")

        // De-duplication would let 32 identical concurrent queries share requests; the comparison
        // with a bare URLSession is about doing the same work, so it is off here (and measured apart).
        let client = APICoreLive.makeClient(APIClientConfiguration(restBaseURL: server.baseURL, graphQLURL: url, deduplicatesQueries: false))
        let sharing = APICoreLive.makeClient(APIClientConfiguration(restBaseURL: server.baseURL, graphQLURL: url))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 32
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration)
        let request = GraphQLRequest(CatalogQuery(count: itemCount)) { data in
            data.catalog.map { Product(id: $0.id, name: $0.name, description: $0.description, price: $0.price, tags: $0.tags) }
        }
        let bare = bareRequest(url, count: itemCount)
        let ahcTransport = AsyncHTTPClientTransport()
        let overAHC = APICoreLive.makeClient(
            APIClientConfiguration(restBaseURL: server.baseURL, graphQLURL: url, deduplicatesQueries: false), transport: ahcTransport)
        let ahc = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        defer { _ = ahc.shutdown() }
        var bareAHC = HTTPClientRequest(url: url.absoluteString)
        bareAHC.method = .POST
        for (name, value) in bare.allHTTPHeaderFields ?? [:] { bareAHC.headers.add(name: name, value: value) }
        bareAHC.body = .bytes(ByteBuffer(data: bare.httpBody ?? Data()))
        let bareAHCRequest = bareAHC

        @Sendable func ours() async throws -> Int { try await client.fetch(request, cachePolicy: .noCache).value.count }
        @Sendable func oursOverAHC() async throws -> Int { try await overAHC.fetch(request, cachePolicy: .noCache).value.count }
        @Sendable func baselineAHC() async throws -> Int {
            let response = try await ahc.execute(bareAHCRequest, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 26)
            return try JSONDecoder().decode(Envelope.self, from: body).data.catalog.count
        }
        @Sendable func oursStoring() async throws -> Int { try await client.fetch(request, cachePolicy: .networkOnly).value.count }
        @Sendable func baseline() async throws -> Int {
            let (data, _) = try await session.data(for: bare)
            return try JSONDecoder().decode(Envelope.self, from: data).data.catalog.count
        }

        let counts = [try await ours(), try await baseline(), try await oursOverAHC(), try await baselineAHC()]
        precondition(counts.allSatisfy { $0 == itemCount }, "every path must read every item")
        for _ in 0..<30 {
            _ = try await ours()
            _ = try await baseline()
            _ = try await oursOverAHC()
            _ = try await baselineAHC()
        }

        var oursTimes: [Double] = []
        var bareTimes: [Double] = []
        var storingTimes: [Double] = []
        var oursAHCTimes: [Double] = []
        var bareAHCTimes: [Double] = []
        let clock = ContinuousClock()
        for index in 0..<iterations {
            if index % 2 == 0 {
                oursAHCTimes.append(try await seconds(clock) { _ = try await oursOverAHC() })
                bareAHCTimes.append(try await seconds(clock) { _ = try await baselineAHC() })
            } else {
                bareAHCTimes.append(try await seconds(clock) { _ = try await baselineAHC() })
                oursAHCTimes.append(try await seconds(clock) { _ = try await oursOverAHC() })
            }
            // Alternate which goes first so that neither always runs on a warmer connection.
            if index % 2 == 0 {
                oursTimes.append(try await seconds(clock) { _ = try await ours() })
                bareTimes.append(try await seconds(clock) { _ = try await baseline() })
                storingTimes.append(try await seconds(clock) { _ = try await oursStoring() })
            } else {
                storingTimes.append(try await seconds(clock) { _ = try await oursStoring() })
                bareTimes.append(try await seconds(clock) { _ = try await baseline() })
                oursTimes.append(try await seconds(clock) { _ = try await ours() })
            }
        }
        let oursMedian = median(oursTimes)
        let bareMedian = median(bareTimes)

        // Where the difference comes from: decoding the same bytes, without the network.
        var oursDecode: [Double] = []
        var bareDecode: [Double] = []
        for _ in 0..<iterations {
            oursDecode.append(try await seconds(clock) {
                guard case .object(let envelope) = try JSONParser.parse(rendered), let data = envelope["data"]?.objectValue else {
                    fatalError("the rendered body has no data")
                }
                let typed = try CatalogQuery.Data(validating: data)
                _ = try request.map(typed)
            })
            bareDecode.append(try await seconds(clock) { _ = try JSONDecoder().decode(Envelope.self, from: rendered) })
        }

        let oursRPS = try await throughput(clock) { _ = try await ours() }
        let sharedRPS = try await throughput(clock) { _ = try await sharing.fetch(request, cachePolicy: .noCache) }
        let bareRPS = try await throughput(clock) { _ = try await baseline() }
        let oursAHCRPS = try await throughput(clock) { _ = try await oursOverAHC() }

        print("e2e-response-bytes: \(rendered.count)")
        print("e2e-ours-median-ms: \(format(oursMedian * 1000))")
        print("e2e-bare-median-ms: \(format(bareMedian * 1000))")
        print("e2e-overhead-ratio: \(format(oursMedian / bareMedian))")
        print("e2e-with-cache-write-ratio: \(format(median(storingTimes) / bareMedian))")
        print("e2e-decode-only-ratio: \(format(median(oursDecode) / median(bareDecode)))")
        print("e2e-ahc-ours-median-ms: \(format(median(oursAHCTimes) * 1000))")
        print("e2e-ahc-bare-median-ms: \(format(median(bareAHCTimes) * 1000))")
        print("e2e-ahc-overhead-ratio: \(format(median(oursAHCTimes) / median(bareAHCTimes))) (target <= 1.1)")
        print("ahc-vs-urlsession-ratio: \(format(median(oursAHCTimes) / oursMedian)) (our client over AsyncHTTPClient / over URLSession)")
        print("e2e-requests-per-second: \(format(oursRPS, digits: 0))")
        print("e2e-bare-requests-per-second: \(format(bareRPS, digits: 0))")
        print("e2e-deduplicated-requests-per-second: \(format(sharedRPS, digits: 0))")
        print("e2e-ahc-requests-per-second: \(format(oursAHCRPS, digits: 0))")
        try await ahcTransport.shutdown()
        await server.stop()
    }

    static func bareRequest(_ url: URL, count: Int) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/graphql-response+json, application/json;q=0.9", forHTTPHeaderField: "Accept")
        request.httpBody = JSONSerializer.data([
            "query": .string(CatalogQuery.document), "operationName": "Catalog", "variables": ["count": .int(count)],
        ])
        return request
    }

    static func seconds(_ clock: ContinuousClock, _ body: () async throws -> Void) async throws -> Double {
        let elapsed = try await clock.measure { try await body() }
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Requests per second with `concurrentCallers` tasks sharing `throughputRequests` calls.
    static func throughput(_ clock: ContinuousClock, _ call: @escaping @Sendable () async throws -> Void) async throws -> Double {
        let perCaller = throughputRequests / concurrentCallers
        let elapsed = try await clock.measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<concurrentCallers {
                    group.addTask {
                        for _ in 0..<perCaller { try await call() }
                    }
                }
                try await group.waitForAll()
            }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(perCaller * concurrentCallers) / seconds
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func format(_ value: Double, digits: Int = 3) -> String {
        String(format: "%.\(digits)f", value)
    }
}
