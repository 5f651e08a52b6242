import APICore
import APICoreAsyncHTTPClient
import APICoreLive
import Foundation
import Logging
import StarWarsOperations
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Answers that never end, against the client's memory: a GraphQL answer (whole body, 8 MiB
/// bound), a graphql-sse event and a multipart part (subscriptions, 4 MiB bound), each over
/// URLSession and over AsyncHTTPClient, from the loopback server in a child process. Each run is a
/// process of its own (`flood-client`), so its high-water resident size is that one answer's: the
/// figure is how far it rose above the size before the request, beside the bound.
/// `APICOREKIT_FLOOD_ROUNDS` runs of each (20), with every core kept busy unless
/// `APICOREKIT_FLOOD_LOAD=0`.
enum FloodBenchmark {
    /// One endless answer and the bound that should stop it.
    struct Kind: Sendable {
        let name: String
        let bound: Int
    }

    static let kinds = [Kind(name: "json", bound: 8 << 20), Kind(name: "sse", bound: 4 << 20), Kind(name: "multipart", bound: 4 << 20)]
    static let transports = ["urlsession", "asynchttpclient"]

    static func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let rounds = environment["APICOREKIT_FLOOD_ROUNDS"].flatMap(Int.init) ?? 20
        let server = try ServerProcess.start()
        defer { server.stop() }
        let hog = environment["APICOREKIT_FLOOD_LOAD"] == "0" ? nil : CPUHog(threads: ProcessInfo.processInfo.activeProcessorCount)
        defer { hog?.stop() }
        print("flood-rounds: \(rounds)")
        print("flood-load: \(hog == nil ? "none" : "every core busy")")
        for transport in transports {
            for kind in kinds {
                var worst = 0
                for _ in 0..<rounds {
                    worst = max(worst, try runClient(server: server.baseURL, transport: transport, kind: kind))
                }
                let name = "flood-\(transport)-\(kind.name)"
                print("\(name)-bound-mb: \(kind.bound >> 20)")
                print("\(name)-worst-growth-mb: \(String(format: "%.1f", Double(worst) / Double(1 << 20)))")
            }
        }
    }

    /// Runs one answer in a child process; its resident growth in bytes.
    static func runClient(server: URL, transport: String, kind: Kind) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["flood-client"]
        var environment = ProcessInfo.processInfo.environment
        environment["APICOREKIT_FLOOD_CLIENT"] = "\(server.absoluteString) \(transport) \(kind.name) \(kind.bound)"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("growth-bytes: ") }),
            let growth = Int(line.dropFirst("growth-bytes: ".count))
        else { throw FloodError.client(transport: transport, kind: kind.name, output: text) }
        return growth
    }

    /// The child's side: one endless answer, cut at the bound; prints `growth-bytes: N`.
    static func client() async throws {
        let fields = (ProcessInfo.processInfo.environment["APICOREKIT_FLOOD_CLIENT"] ?? "").split(separator: " ").map(String.init)
        guard fields.count == 4, let base = URL(string: fields[0]), let bound = Int(fields[3]) else {
            throw FloodError.usage
        }
        let (transportName, kind) = (fields[1], fields[2])
        var flood = URLComponents(url: base.appendingPathComponent("flood"), resolvingAgainstBaseURL: false)!
        flood.queryItems = [URLQueryItem(name: "kind", value: kind)]
        var subscriptions =
            kind == "sse"
            ? SubscriptionConfiguration.serverSentEvents(url: flood.url!, ackTimeout: .seconds(30), keepAlive: nil, reconnect: nil)
            : .multipartHTTP(url: flood.url!, ackTimeout: .seconds(30), keepAlive: nil, reconnect: nil)
        subscriptions.maxMessageSize = bound
        let configuration = APIClientConfiguration(
            restBaseURL: base, graphQLURL: flood.url!, timeout: .seconds(120), logger: Logger(label: "flood") { _ in SwiftLogNoOpLogHandler() },
            retryPolicy: nil, subscriptions: subscriptions,
            maxResponseSize: bound)
        let client =
            transportName == "asynchttpclient"
            ? APICoreLive.makeClient(configuration, transport: AsyncHTTPClientTransport()) : APICoreLive.makeClient(configuration)
        let before = Memory.resetHighWater()
        var failure: (any Error)?
        do {
            if kind == "json" {
                _ = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
            } else {
                for try await _ in client.subscribe(CounterSubscription(to: 5)) {}
            }
        } catch {
            failure = error
        }
        guard case .invalidResponse(let invalid)? = failure as? APIError, case .tooLarge = invalid.kind else {
            throw FloodError.notCut(String(describing: failure))
        }
        print("growth-bytes: \(Memory.highWater() - before)")
    }
}

/// The process's resident size, from `/proc/self/status` (Linux).
enum Memory {
    /// Resets the high-water mark to the present size (`clear_refs` 5), and returns that size.
    static func resetHighWater() -> Int {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return field("VmRSS")
    }

    /// The most the process has been resident since the last reset.
    static func highWater() -> Int { field("VmHWM") }

    private static func field(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes << 10
    }
}

/// Threads that spin until stopped: the load the flood runs under.
final class CPUHog: Sendable {
    private let running = Atomic(true)
    private let stopped = DispatchGroup()

    init(threads: Int) {
        for _ in 0..<threads {
            stopped.enter()
            let thread = Thread { [self] in
                var spins = 0
                while running.load(ordering: .relaxed) { spins &+= 1 }
                stopped.leave()
            }
            thread.start()
        }
    }

    func stop() {
        running.store(false, ordering: .relaxed)
        stopped.wait()
    }
}

enum FloodError: Error, CustomStringConvertible {
    case usage
    case notCut(String)
    case client(transport: String, kind: String, output: String)

    var description: String {
        switch self {
        case .usage: return "flood-client needs APICOREKIT_FLOOD_CLIENT=\"<base URL> <urlsession|asynchttpclient> <json|sse|multipart> <bound>\""
        case .notCut(let outcome): return "the endless answer did not end as too large: \(outcome)"
        case .client(let transport, let kind, let output): return "the \(kind) flood over \(transport) failed: \(output)"
        }
    }
}
