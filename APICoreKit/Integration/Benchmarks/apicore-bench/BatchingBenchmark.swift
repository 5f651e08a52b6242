import APICore
import APICoreAsyncHTTPClient
import APICoreLive
import APICoreTestServer
import Foundation
import Logging
import StarWarsOperations

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTP batching: 20 small queries issued together against the loopback server with 20 ms added
/// to every GraphQL answer (a round trip of a mobile network), batched (HTTPBatching's defaults:
/// a 10 ms window, 10 operations a batch) and unbatched, in alternating rounds; medians.
///
/// Batching saves round trips where requests queue for connections: the figure that counts is
/// with URLSession's default of 6 HTTP/1.1 connections per host (Apple platforms); beside it, the
/// same with 32 connections (the client's own session), where unbatched requests do not queue;
/// and over HTTP/2 (AsyncHTTPClient, TLS), where every request shares one connection.
enum BatchingBenchmark {
    static let queries = 20
    static let rounds = 9
    static let latency = Duration.milliseconds(Int(ProcessInfo.processInfo.environment["APICOREKIT_BATCH_LATENCY_MS"] ?? "") ?? 20)

    static func run() async throws {
        let server = try await TestServer.start()
        server.addLatency(latency)
        for connections in [6, 32] {
            let session = URLSessionConfiguration.ephemeral
            session.httpMaximumConnectionsPerHost = connections
            session.urlCache = nil
            session.requestCachePolicy = .reloadIgnoringLocalCacheData
            let plain = makeClient(server.baseURL, session: session, batching: nil)
            let batched = makeClient(server.baseURL, session: session, batching: HTTPBatching())
            try await report(plain: plain, batched: batched, suffix: connections == 6 ? "" : "-\(connections)-connections")
        }
        let sizes = server.batchSizes
        print("batching-batches-per-round: \(sizes.count / ((rounds + 1) * 2))")
        await server.stop()
        try await overHTTP2()
    }

    /// The same rounds over HTTP/2: a TLS server offering `h2`, AsyncHTTPClient's transport.
    static func overHTTP2() async throws {
        let authority = try CertificateAuthority()
        let server = try await TestServer.start(security: .init(try authority.issue(for: ["127.0.0.1"]), http2: true))
        server.addLatency(latency)
        let trust = TLSTrust(roots: [authority.certificatePEM])
        let plainTransport = AsyncHTTPClientTransport(trust: trust)
        let batchedTransport = AsyncHTTPClientTransport(trust: trust)
        let plain = makeClient(server.baseURL, transport: plainTransport, batching: nil)
        let batched = makeClient(server.baseURL, transport: batchedTransport, batching: HTTPBatching())
        try await report(plain: plain, batched: batched, suffix: "-http2")
        print("batching-http2-connections: \(server.connectionCount) (two clients)")
        try await plainTransport.shutdown()
        try await batchedTransport.shutdown()
        await server.stop()
    }

    /// Alternating rounds of `plain` and `batched` (round 0, which opens the connections, not
    /// counted), then their medians and ratio, each name ending in `suffix`.
    static func report(plain: any APIClient, batched: any APIClient, suffix: String) async throws {
        var plainTimes: [Double] = []
        var batchedTimes: [Double] = []
        for round in 0...rounds {
            let plainTime = try await time(plain)
            let batchedTime = try await time(batched)
            if round > 0 {
                plainTimes.append(plainTime)
                batchedTimes.append(batchedTime)
            }
        }
        let plainMedian = median(plainTimes)
        let batchedMedian = median(batchedTimes)
        print("batching-unbatched-ms\(suffix): \(String(format: "%.1f", plainMedian * 1000))")
        print("batching-batched-ms\(suffix): \(String(format: "%.1f", batchedMedian * 1000))")
        print("batching-ratio\(suffix): \(String(format: "%.2f", batchedMedian / plainMedian))")
    }

    /// Seconds until all 20 queries are answered.
    static func time(_ client: any APIClient) async throws -> Double {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<queries {
                group.addTask {
                    let id = ["1000", "1001", "1002", "1003", "1004"][index % 5]
                    guard try await client.fetch(HumanQuery(id: id), cachePolicy: .networkOnly).value.human?.id == id else {
                        throw BatchingBenchmarkError.wrongAnswer
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func makeClient(_ url: URL, session: URLSessionConfiguration, batching: HTTPBatching?) -> any APIClient {
        APICoreLive.makeClient(configuration(url, batching: batching), sessionConfiguration: session)
    }

    static func makeClient(_ url: URL, transport: any HTTPTransport, batching: HTTPBatching?) -> any APIClient {
        APICoreLive.makeClient(configuration(url, batching: batching), transport: transport)
    }

    static func configuration(_ url: URL, batching: HTTPBatching?) -> APIClientConfiguration {
        APIClientConfiguration(
            restBaseURL: url, cache: nil, logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }), retryPolicy: nil,
            deduplicatesQueries: false, batching: batching)
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}

enum BatchingBenchmarkError: Error {
    case wrongAnswer
}
