import APICore
import APICoreLive
import APICoreTestServer
import APICoreWebSocket
import Foundation
import Logging
import StarWarsOperations
import Synchronization
import WSClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One subscription fed by the loopback server as fast as it can write: `CatalogFeed` events of
/// about 200 bytes each, through `APIClient.subscribe` into typed domain values, against a bare
/// `WSClient` that receives the same frames and parses each with `JSONSerialization`, in the same
/// run, rounds interleaved. Then the same events over server-sent events (graphql-sse), one
/// pre-rendered `text/event-stream` body, against a bare URLSession POST that reads the same body
/// and parses each event's data with `JSONSerialization`.
enum SubscriptionBenchmark {
    struct Product: Sendable {
        var id: String
        var name: String
        var price: Double
    }

    static let messagesPerRound = 20_000
    static let rounds = 5

    static func run() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let item = #"{"id":"item-7","name":"Catalog item number 7","description":"A plain description of item 7, long enough to look like real product copy.","price":7.99,"tags":["tag-0","tag-7","tag-7"]}"#
        var behavior = WebSocketBehavior()
        behavior.framesOnSubscribe = [#"{"id":"{{id}}","type":"next","payload":{"data":{"catalogFeed":\#(item)}}}"#]
        behavior.repeatLast = messagesPerRound - 1
        behavior.completesAfterFrames = true
        server.setWebSocketBehavior(behavior)

        func client(cache: CacheConfiguration?) -> any APIClient {
            APICoreLive.makeClient(APIClientConfiguration(
                restBaseURL: server.baseURL, cache: cache,
                subscriptions: SubscriptionConfiguration(url: server.webSocketURL, transport: APICoreWebSocket.transport, keepAlive: nil)))
        }
        let plain = client(cache: nil)
        let caching = client(cache: CacheConfiguration())
        let request = GraphQLRequest(CatalogFeedSubscription()) { data in
            Product(id: data.catalogFeed.id, name: data.catalogFeed.name, price: data.catalogFeed.price)
        }

        func ours(_ client: any APIClient) async throws -> Duration { try await receiveAll(request, on: client, label: "ours") }

        var oursTimes: [Duration] = []
        var cachingTimes: [Duration] = []
        var bareTimes: [Duration] = []
        _ = try await ours(plain)
        _ = try await bare(server.webSocketURL)
        for _ in 0..<rounds {
            oursTimes.append(try await ours(plain))
            bareTimes.append(try await bare(server.webSocketURL))
            cachingTimes.append(try await ours(caching))
        }
        let oursMedian = median(oursTimes)
        let bareMedian = median(bareTimes)
        let cachingMedian = median(cachingTimes)
        func perMessage(_ duration: Duration) -> Double { duration / .microseconds(1) / Double(messagesPerRound) }
        print("subscription-messages: \(messagesPerRound) per round, \(rounds) rounds, median")
        print("subscription-messages-per-second: \(Int(Double(messagesPerRound) / (oursMedian / .seconds(1))))")
        print("subscription-bare-messages-per-second: \(Int(Double(messagesPerRound) / (bareMedian / .seconds(1))))")
        print("subscription-ours-us-per-message: \(format(perMessage(oursMedian)))")
        print("subscription-bare-us-per-message: \(format(perMessage(bareMedian)))")
        print("subscription-ratio: \(format(oursMedian / bareMedian))")
        print("subscription-with-cache-write-ratio: \(format(cachingMedian / bareMedian))")
        try await serverSentEvents(server, item: item, request: request)
    }

    /// The same events over graphql-sse: ours against a bare client reading the same body.
    static func serverSentEvents(_ server: TestServer, item: String, request: GraphQLRequest<CatalogFeedSubscription, Product>) async throws {
        let event = "event: next\ndata: {\"data\":{\"catalogFeed\":\(item)}}\n\n"
        server.respond("sse-feed", status: 200, contentType: "text/event-stream",
                       body: String(repeating: event, count: messagesPerRound) + "event: complete\ndata:\n\n")
        let url = server.baseURL.appendingPathComponent("sse-feed")
        let client = APICoreLive.makeClient(APIClientConfiguration(
            restBaseURL: server.baseURL, cache: nil, subscriptions: .serverSentEvents(url: url, keepAlive: nil, reconnect: nil)))
        func ours() async throws -> Duration { try await receiveAll(request, on: client, label: "ours (SSE)") }
        var oursTimes: [Duration] = []
        var bareTimes: [Duration] = []
        _ = try await ours()
        _ = try await bareEventStream(url)
        for _ in 0..<rounds {
            oursTimes.append(try await ours())
            bareTimes.append(try await bareEventStream(url))
        }
        print("sse-ours-us-per-message: \(format(median(oursTimes) / .microseconds(1) / Double(messagesPerRound)))")
        print("sse-bare-us-per-message: \(format(median(bareTimes) / .microseconds(1) / Double(messagesPerRound)))")
        print("sse-ratio: \(format(median(oursTimes) / median(bareTimes)))")
    }

    /// The time `client` takes to deliver every event of one round as domain values.
    static func receiveAll(_ request: GraphQLRequest<CatalogFeedSubscription, Product>, on client: any APIClient, label: String)
        async throws -> Duration
    {
        let start = ContinuousClock.now
        var count = 0
        for try await product in client.subscribe(request) where !product.id.isEmpty { count += 1 }
        precondition(count == messagesPerRound, "\(label) received \(count) of \(messagesPerRound)")
        return ContinuousClock.now - start
    }

    /// A bare graphql-sse client: one POST, the body read whole, each event's `data:` line parsed
    /// with `JSONSerialization`.
    static func bareEventStream(_ url: URL) async throws -> Duration {
        let start = ContinuousClock.now
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"query":"subscription CatalogFeed { catalogFeed { id name description price tags } }"}"#.utf8)
        let (body, _) = try await URLSession.shared.data(for: request)
        var count = 0
        // Line by line: each `data: ` line is one event's JSON.
        let bytes = [UInt8](body)
        let prefix = Array("data: ".utf8)
        var lineStart = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            defer { lineStart = index + 1 }
            guard index - lineStart > prefix.count, bytes[lineStart..<(lineStart + prefix.count)].elementsEqual(prefix),
                let object = try JSONSerialization.jsonObject(with: Data(bytes[(lineStart + prefix.count)..<index])) as? [String: Any],
                let data = object["data"] as? [String: Any]
            else { continue }
            if (data["catalogFeed"] as? [String: Any])?["id"] is String { count += 1 }
        }
        precondition(count == messagesPerRound, "bare (SSE) received \(count) of \(messagesPerRound)")
        return ContinuousClock.now - start
    }

    /// The same subscription on a bare `WSClient`: each frame parsed with `JSONSerialization`.
    static func bare(_ url: URL) async throws -> Duration {
        var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20)
        configuration.additionalHeaders[.secWebSocketProtocol] = "graphql-transport-ws"
        let outcome = Mutex<(elapsed: Duration, count: Int)>((.zero, 0))
        try await WebSocketClient.connect(url: url.absoluteString, configuration: configuration, logger: Logger(label: "bare")) {
            inbound, outbound, _ in
            var start = ContinuousClock.now
            var count = 0
            try await outbound.write(.text(#"{"type":"connection_init"}"#))
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message,
                    let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                    let type = object["type"] as? String
                else { continue }
                switch type {
                case "connection_ack":
                    start = .now
                    try await outbound.write(.text(#"{"id":"1","type":"subscribe","payload":{"query":"subscription CatalogFeed { catalogFeed { id name description price tags } }"}}"#))
                case "next":
                    let payload = object["payload"] as? [String: Any]
                    let data = payload?["data"] as? [String: Any]
                    if (data?["catalogFeed"] as? [String: Any])?["id"] is String { count += 1 }
                case "complete":
                    let elapsed = ContinuousClock.now - start
                    outcome.withLock { $0 = (elapsed, count) }
                    return
                default:
                    continue
                }
            }
        }
        let (elapsed, count) = outcome.withLock { $0 }
        precondition(count == messagesPerRound, "bare received \(count) of \(messagesPerRound)")
        return elapsed
    }

    static func median(_ values: [Duration]) -> Duration { values.sorted()[values.count / 2] }
    static func format(_ value: Double) -> String { String(format: "%.3f", value) }
}
