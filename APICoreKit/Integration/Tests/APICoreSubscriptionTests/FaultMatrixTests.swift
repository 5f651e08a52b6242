import APICore
import APICoreLive
import APICoreTestServer
import APICoreWebSocket
import Foundation
import Logging
import StarWarsOperations
import Testing

/// Every failure on every channel over both HTTP transports, one table (``FaultMatrix``): each cell
/// runs against loopback servers (a proxy in front for a reset or a kill), and checks the error's
/// kind, its recovery, how many attempts reached the server, and what the servers saw: nothing
/// at all behind a refused certificate or pin, nothing over plain HTTP after a downgrade, no
/// credential at another origin. The table is printed; the AsyncHTTPClient pass of the test
/// command skips this suite, which runs both transports itself.
@Suite("Fault matrix: both transports × every channel × every failure")
struct FaultMatrixTests {
    typealias Channel = FaultMatrix.Channel
    typealias Fault = FaultMatrix.Fault

    /// What a cell did.
    struct Outcome {
        var result: String
        var recovery: APIError.Recovery?
        var message = ""
        var tries = 0
        /// TCP connections the client opened.
        var connections = 0
        /// What the servers saw, in words, and anything they must not have seen.
        var saw = ""
        var leaks: [String] = []
        /// The waits between attempts, for `Retry-After`.
        var gaps: [Duration] = []
    }

    static let authority = try! CertificateAuthority()
    static let loopback = ["127.0.0.1", "localhost"]

    @Test("each cell fails, heals or resumes as the table says, and prints the table", arguments: TestTransport.allCases)
    func matrix(_ transport: TestTransport) async throws {
        var rows = ["| channel | fault | result | recovery | tries | connections | server saw | as expected |", "|---|---|---|---|---|---|---|---|"]
        for fault in Fault.allCases {
            for channel in Channel.allCases {
                let expected: FaultMatrix.Expected
                switch FaultMatrix.expected(transport, channel, fault) {
                case .failure(let why):
                    rows.append("| \(channel.rawValue) | \(fault.rawValue) | n/a: \(why.reason) | | | | | |")
                    continue
                case .success(let value): expected = value
                }
                let outcome = try await Self.run(transport, channel, fault)
                var problems = outcome.leaks
                if outcome.result != expected.result { problems.append("result \(outcome.result), expected \(expected.result)") }
                if outcome.recovery != expected.recovery { problems.append("recovery \(String(describing: outcome.recovery))") }
                if !expected.tries.contains(outcome.tries) { problems.append("\(outcome.tries) tries, expected \(expected.tries)") }
                if let words = expected.words, !outcome.message.contains(words) { problems.append("message lacks \"\(words)\"") }
                if fault == .status503, channel != .webSocket, let gap = outcome.gaps.min(), gap < .milliseconds(900) {
                    problems.append("waited \(gap) between attempts, not Retry-After's 1 s")
                }
                for problem in problems { Issue.record("\(transport) \(channel.rawValue) \(fault.rawValue): \(problem) — \(outcome.message)") }
                rows.append(
                    "| \(channel.rawValue) | \(fault.rawValue) | \(outcome.result) | \(outcome.recovery.map { "\($0)" } ?? "") | \(outcome.tries) | \(outcome.connections) | "
                        + "\(outcome.saw) | \(problems.isEmpty ? "yes" : "NO: " + problems.joined(separator: "; ")) |")
            }
        }
        print("Fault matrix over \(transport.rawValue):\n" + rows.joined(separator: "\n"))
    }

    // MARK: One cell

    /// One cell against a fresh server (TLS when the fault asks) and another origin, both stopped
    /// after the client, the proxy and any scripted server are gone.
    static func run(_ transport: TestTransport, _ channel: Channel, _ fault: Fault) async throws -> Outcome {
        let server = try await TestServer.start(security: try certificate(for: fault).map { .init($0) })
        let other = try await TestServer.start()
        let outcome: Result<Outcome, any Error>
        do {
            outcome = .success(try await exercise(transport, channel, fault, server: server, other: other))
        } catch {
            outcome = .failure(error)
        }
        await other.stop()
        await server.stop()
        return try outcome.get()
    }

    static func exercise(_ transport: TestTransport, _ channel: Channel, _ fault: Fault, server: TestServer, other: TestServer) async throws -> Outcome {
        // What the app sends with each request (the server's own token: it streams subscriptions
        // only to a caller that has it).
        let credentials = ["Authorization": "Bearer \(server.currentTokens.access)", "Cookie": "session=secret"]
        let scripted = try arrange(server, for: channel, fault, other: other)
        defer { scripted?.stop() }
        // Every connection goes through a proxy that counts it (a refused handshake reaches no
        // route), cuts it for a reset, and dies and comes back for a restart.
        let proxy = try LoopbackProxy(to: scripted?.port ?? server.port, cutAfter: fault == .reset ? 32 << 10 : nil)
        defer { proxy.stop() }
        var trust = TLSTrust(roots: [authority.certificatePEM])
        if fault == .pinMismatch { trust.pinnedKeys = [try authority.issue(for: loopback).publicKeyPin] }

        // Where the client goes: through the proxy to the server, to an answer that floods, or to
        // one the test decides.
        let base = URL(string: "\(fault.isSecure ? "https" : "http")://127.0.0.1:\(proxy.port)/")!
        let path =
            switch fault {
            case .endlessBody, .reset: "flood?kind=\(channel.floodKind)"
            case .overBound: "flood?kind=\(channel.floodKind)&bytes=\(2 * FaultMatrix.bound)"
            default: "graphql"
            }
        let url = URL(string: path, relativeTo: base)!.absoluteURL
        var socketURL = URLComponents(url: base.appendingPathComponent("graphql"), resolvingAgainstBaseURL: false)!
        socketURL.scheme = base.scheme == "https" ? "wss" : "ws"
        // A restart is waited for (on the subscription's state, not a clock): attempts enough for it.
        let reconnect = fault == .restarted ? FaultMatrix.patient : FaultMatrix.policy
        var subscriptions: SubscriptionConfiguration? =
            switch channel {
            case .webSocket:
                SubscriptionConfiguration(
                    url: socketURL.url!, transport: APICoreWebSocket.transport(trusting: trust), ackTimeout: .seconds(30), keepAlive: nil,
                    reconnect: reconnect, maxMessageSize: FaultMatrix.bound)
            case .serverSentEvents: .serverSentEvents(url: url, ackTimeout: .seconds(30), keepAlive: nil, reconnect: reconnect)
            case .multipart: .multipartHTTP(url: url, ackTimeout: .seconds(30), keepAlive: nil, reconnect: reconnect)
            case .query, .mutation: nil
            }
        subscriptions?.maxMessageSize = FaultMatrix.bound
        subscriptions?.headers = credentials
        let configuration = APIClientConfiguration(
            restBaseURL: base, graphQLURL: url, defaultHeaders: credentials, timeout: .seconds(30), cache: nil,
            logger: Logger(label: "fault-matrix", factory: { _ in SwiftLogNoOpLogHandler() }), retryPolicy: FaultMatrix.policy,
            subscriptions: subscriptions, maxResponseSize: FaultMatrix.bound)
        // URLSession on Linux is given no root it cannot honour: its refusals are libcurl's own.
        let client = transport.makeClient(configuration, trust: transport == .urlSession && fault != .pinMismatch ? .system : trust)

        var outcome: Outcome
        if fault == .restarted {
            outcome = try await killAndRestart(channel, client, server: server, proxy: proxy)
        } else {
            let error = await perform(channel, on: client)
            outcome = Outcome(result: error.map(FaultMatrix.name) ?? "ok", recovery: error?.recovery, message: error?.description ?? "")
            see(&outcome, fault, server: server, scripted: scripted, other: other, proxy: proxy)
        }
        outcome.connections = proxy.connectionCount
        return outcome
    }

    /// The certificate the server presents for `fault` (`nil`: plain HTTP).
    static func certificate(for fault: Fault) throws -> CertificateAuthority.Issued? {
        switch fault {
        case .wrongHost: try authority.issue(for: ["api.example.org"])
        case .expired: try authority.issue(for: loopback, notBefore: Date() - 7200, notAfter: Date() - 3600)
        case .selfSigned: try CertificateAuthority.selfSigned(for: loopback)
        case .unknownCA: try CertificateAuthority().issue(for: loopback)
        case .pinMismatch, .downgrade: try authority.issue(for: loopback)
        default: nil
        }
    }

    /// Makes `server` answer as `fault` asks: a status or redirect on the GraphQL path, a flood on
    /// the socket. A WebSocket upgrade answered with a status comes from a scripted server instead
    /// (Hummingbird answers a refused upgrade 400 whatever the routes say), which is returned.
    static func arrange(_ server: TestServer, for channel: Channel, _ fault: Fault, other: TestServer) throws -> ScriptedHTTPServer? {
        let status = fault == .status500 ? 500 : fault == .status503 ? 503 : 307
        let headers = fault == .status503 ? ["Retry-After": "1"] : fault == .status500 ? [:] : ["Location": other.graphQLURL.absoluteString]
        if channel == .webSocket, [.crossOrigin, .status500, .status503].contains(fault) {
            let line = [307: "307 Temporary Redirect", 500: "500 Internal Server Error", 503: "503 Service Unavailable"][status]!
            return try ScriptedHTTPServer(answer: ScriptedHTTPServer.response(status: line, headers: headers, body: "answered \(status)"))
        }
        switch fault {
        case .downgrade, .crossOrigin, .status500, .status503:
            server.respond("graphql", with: [.init(status: status, contentType: "text/plain", body: "answered \(status)", headers: headers)])
        case .endlessBody, .overBound, .reset:
            var behavior = WebSocketBehavior()
            behavior.floodsOnSubscribe = fault == .overBound ? 2 * FaultMatrix.bound : .max
            server.setWebSocketBehavior(behavior)
        default: break
        }
        return nil
    }

    /// Runs the channel's operation to its end; its error, if any.
    static func perform(_ channel: Channel, on client: any APIClient) async -> APIError? {
        do throws(APIError) {
            switch channel {
            case .query: _ = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
            case .mutation: _ = try await client.perform(CreateReviewMutation(episode: .some(.init(.jedi)), review: ReviewInput(stars: 4)))
            case .webSocket, .serverSentEvents, .multipart: for try await _ in client.subscribe(CounterSubscription(to: 2)) {}
            }
            return nil
        } catch {
            return error
        }
    }

    /// The server dies under a running operation and comes back on its port: a request fails
    /// while nothing listens and succeeds after; a subscription reconnects and resumes.
    static func killAndRestart(_ channel: Channel, _ client: any APIClient, server: TestServer, proxy: LoopbackProxy) async throws -> Outcome {
        guard channel.isSubscription else {
            proxy.kill()
            let refused = await perform(channel, on: client)
            try proxy.restart()
            let after = await perform(channel, on: client)
            let result = (refused.map(FaultMatrix.name) ?? "ok") + ", then " + (after.map(FaultMatrix.name) ?? "ok")
            var outcome = Outcome(result: result, recovery: refused?.recovery, message: refused?.description ?? "")
            outcome.tries = server.requests.count
            outcome.saw = "\(outcome.tries) requests, after the restart"
            return outcome
        }
        let request = GraphQLRequest(ReviewAddedSubscription(episode: .some(.init(.jedi)))) { $0.reviewAdded?.stars }
        let reviews = SubscriptionRecorder(client.subscribe(request))
        defer { reviews.stop() }
        guard await eventually({ server.subscriberCount("reviewAdded") == 1 }) else { return Outcome(result: "never subscribed") }
        let before = server.requests.count + server.webSocketConnectionCount
        proxy.kill()
        guard await reviews.waitForState({ $0.isReconnecting }) else {
            return Outcome(result: "no reconnection", message: reviews.error?.description ?? "")
        }
        try proxy.restart()
        guard await eventually({ server.subscriberCount("reviewAdded") == 1 && reviews.states.last == .active }) else {
            return Outcome(result: "not resumed", message: reviews.error?.description ?? "")
        }
        _ = try await client.perform(CreateReviewMutation(episode: .some(.init(.jedi)), review: ReviewInput(stars: 5)))
        guard await reviews.waitFor(1), reviews.values == [5] else { return Outcome(result: "no event after resuming") }
        var outcome = Outcome(result: "resumed", recovery: nil)
        // What reached the server after the kill, the mutation that made the event aside.
        outcome.tries = server.requests.count + server.webSocketConnectionCount - before - 1
        outcome.saw = "\(outcome.tries) \(channel == .webSocket ? "upgrade" : "request") after the restart, then the event"
        return outcome
    }

    /// Fills in what the servers saw: attempts, and what must not have reached them.
    static func see(_ outcome: inout Outcome, _ fault: Fault, server: TestServer, scripted: ScriptedHTTPServer?, other: TestServer, proxy: LoopbackProxy) {
        let requests = server.requests
        let upgrades = server.webSocketUpgradeHeaders.count
        if let scripted {
            outcome.tries = scripted.requests.count
            outcome.saw = "\(scripted.requests.count) upgrade requests" + (fault == .crossOrigin ? ", \(other.requests.count) at the other origin" : "")
            if !other.requests.isEmpty { outcome.leaks.append("the WebSocket followed a redirect") }
            return
        }
        if fault.isRefusal {
            outcome.tries = proxy.connectionCount
            outcome.saw = requests.isEmpty && upgrades == 0 ? "no request" : "\(requests.count) requests, \(upgrades) upgrades"
            if !requests.isEmpty || upgrades > 0 { outcome.leaks.append("the refused server saw \(outcome.saw)") }
            return
        }
        outcome.tries = fault == .reset ? proxy.connectionCount : requests.count + upgrades
        outcome.gaps = zip(requests, requests.dropFirst()).map { $1.receivedAt - $0.receivedAt }
        switch fault {
        case .downgrade:
            outcome.saw = other.requests.isEmpty ? "nothing over http" : "\(other.requests.count) over http"
            if !other.requests.isEmpty { outcome.leaks.append("a request went over plain http") }
        case .crossOrigin:
            let carried = other.requests.filter { $0.headers["authorization"] != nil || $0.headers["cookie"] != nil }
            outcome.saw = "\(other.requests.count) at the other origin, \(carried.count) with credentials"
            if !carried.isEmpty { outcome.leaks.append("credentials went to another origin") }
        default:
            outcome.saw = "\(requests.count) requests, \(upgrades) upgrades"
        }
    }
}
