import APICore
import APICoreAsyncHTTPClient
import APICoreLive
import APICoreTestServer
import APICoreWebSocket
import Foundation
import StarWarsOperations
import Testing

/// TLS against a loopback server whose certificate authority is made for the test: what the app
/// trusts is reached over HTTPS and WSS; what it does not is refused before anything is sent.
@Suite("TLS: roots, refusals and pins over HTTPS and WSS")
struct TLSTests {
    /// One authority for the suite: the root the app adds.
    static let authority = try! CertificateAuthority()
    static let loopback = ["127.0.0.1", "localhost"]

    /// What the app sends, to check that none of it reaches a server it refused.
    static let credentials = ["Authorization": "Bearer secret-token"]

    /// The certificates a client must refuse, and the words its error must name.
    enum BadCertificate: String, CaseIterable, CustomTestStringConvertible {
        case otherHost = "another host's"
        case expired
        case selfSigned = "self-signed"

        var testDescription: String { rawValue }

        func issued() throws -> CertificateAuthority.Issued {
            switch self {
            case .otherHost: try TLSTests.authority.issue(for: ["api.example.org"])
            case .expired: try TLSTests.authority.issue(for: TLSTests.loopback, notBefore: Date() - 7200, notAfter: Date() - 3600)
            case .selfSigned: try CertificateAuthority.selfSigned(for: TLSTests.loopback)
            }
        }

        /// A word the refusal's reason must carry.
        var reason: String {
            switch self {
            case .otherHost: "not for"
            case .expired: "expired"
            case .selfSigned: "self-signed"
            }
        }
    }

    /// The transport failure `error` is, if it is one.
    static func transportFailure(_ error: APIError?) -> TransportFailure? {
        if case .transport(let failure)? = error { return failure }
        return nil
    }

    static func configuration(_ server: TestServer, subscriptions trust: TLSTrust? = nil, reconnect: RetryPolicy? = nil) -> APIClientConfiguration {
        APIClientConfiguration(
            restBaseURL: server.baseURL, defaultHeaders: credentials, timeout: .seconds(30),
            retryPolicy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(10)),
            subscriptions: trust.map {
                SubscriptionConfiguration(
                    url: server.webSocketURL, transport: APICoreWebSocket.transport(trusting: $0), ackTimeout: .seconds(30), reconnect: reconnect)
            })
    }

    @Test("with the test CA added as a root, an HTTPS query and a WSS subscription succeed")
    func trustedRoot() async throws {
        let trust = TLSTrust(roots: [Self.authority.certificatePEM])
        try await TestServer.with(security: .init(try Self.authority.issue(for: Self.loopback))) { server in
            let client = TestTransport.asyncHTTPClient.makeClient(Self.configuration(server, subscriptions: trust), trust: trust)
            let hero = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
            #expect(hero.value.hero?.name == "R2-D2")
            var numbers: [Int] = []
            for try await data in client.subscribe(CounterSubscription(to: 3)) { numbers.append(data.counter) }
            #expect(numbers == [1, 2, 3])
            #expect(server.webSocketConnectionCount == 1)
        }
    }

    @Test("a bad certificate is refused over HTTPS: secure connection failed, naming why; no retry; nothing sent", arguments: BadCertificate.allCases)
    func refusedOverHTTPS(_ certificate: BadCertificate) async throws {
        let trust = TLSTrust(roots: [Self.authority.certificatePEM])
        try await TestServer.with(security: .init(try certificate.issued())) { server in
            let client = TestTransport.asyncHTTPClient.makeClient(Self.configuration(server), trust: trust)
            let error = await thrownError { () async throws(APIError) in try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly) }
            let failure = try #require(Self.transportFailure(error), "expected a transport error, got \(String(describing: error))")
            #expect(failure.kind == .secureConnectionFailed)
            #expect(failure.underlying.contains(certificate.reason), "\(failure.underlying)")
            #expect(error?.recovery == .fail)
            #expect(server.requests.isEmpty)
            // One connection for the query (no retry, no second try over plain HTTP), one to read
            // the certificate and say why.
            #expect(server.connectionCount <= 2)
        }
    }

    @Test(
        "a bad certificate is refused over WSS, naming why, before the upgrade request; the default reconnect policy does not try again",
        arguments: BadCertificate.allCases)
    func refusedOverWSS(_ certificate: BadCertificate) async throws {
        let trust = TLSTrust(roots: [Self.authority.certificatePEM])
        try await TestServer.with(security: .init(try certificate.issued())) { server in
            let configuration = Self.configuration(server, subscriptions: trust, reconnect: SubscriptionConfiguration.defaultReconnect)
            let client = TestTransport.asyncHTTPClient.makeClient(configuration, trust: trust)
            let error = await subscriptionError(client.subscribe(CounterSubscription(to: 1)))
            let failure = try #require(Self.transportFailure(error), "expected a transport error, got \(String(describing: error))")
            #expect(failure.kind == .secureConnectionFailed)
            #expect(failure.underlying.contains(certificate.reason), "\(failure.underlying)")
            #expect(error?.recovery == .fail)
            #expect(server.webSocketUpgradeHeaders.isEmpty)
            // One attempt (a connection for the handshake, one to read the certificate and say
            // why), not one per reconnection the policy allows.
            #expect(server.connectionCount <= 2, "\(server.connectionCount) connections")
        }
    }

    @Test("pinning: the server's key or a backup pin beside it is accepted; a key matching no pin is refused before anything is sent")
    func pinning() async throws {
        let issued = try Self.authority.issue(for: Self.loopback)
        let backup = try Self.authority.issue(for: Self.loopback).publicKeyPin
        try await TestServer.with(security: .init(issued)) { server in
            let pinned = TLSTrust(roots: [Self.authority.certificatePEM], pinnedKeys: [backup, issued.publicKeyPin])
            let client = TestTransport.asyncHTTPClient.makeClient(Self.configuration(server, subscriptions: pinned), trust: pinned)
            #expect(try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly).value.hero?.name == "R2-D2")
            for try await _ in client.subscribe(CounterSubscription(to: 1)) {}
            let requestsSoFar = server.requests.count

            let wrong = TLSTrust(roots: [Self.authority.certificatePEM], pinnedKeys: [backup])
            let refused = TestTransport.asyncHTTPClient.makeClient(Self.configuration(server, subscriptions: wrong), trust: wrong)
            let error = await thrownError { () async throws(APIError) in try await refused.fetch(HeroNameQuery(), cachePolicy: .networkOnly) }
            let failure = try #require(Self.transportFailure(error), "expected a transport error, got \(String(describing: error))")
            #expect(failure.kind == .secureConnectionFailed)
            #expect(failure.underlying.contains(issued.publicKeyPin), "\(failure.underlying)")
            #expect(server.requests.count == requestsSoFar)

            let upgrades = server.webSocketUpgradeHeaders.count
            let socketError = await subscriptionError(refused.subscribe(CounterSubscription(to: 1)))
            let socketFailure = try #require(Self.transportFailure(socketError), "expected a transport error, got \(String(describing: socketError))")
            #expect(socketFailure.kind == .secureConnectionFailed)
            #expect(socketFailure.underlying.contains("pin"), "\(socketFailure.underlying)")
            #expect(server.webSocketUpgradeHeaders.count == upgrades)
        }
    }

    @Test("URLSession's transport refuses a trust it cannot honour, saying so, and sends nothing")
    func urlSessionRefusesCustomTrust() async throws {
        let trust = TLSTrust(roots: [Self.authority.certificatePEM])
        try await TestServer.with(security: .init(try Self.authority.issue(for: Self.loopback))) { server in
            let client = TestTransport.urlSession.makeClient(Self.configuration(server), trust: trust)
            let error = await thrownError { () async throws(APIError) in try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly) }
            let failure = try #require(Self.transportFailure(error), "expected a transport error, got \(String(describing: error))")
            #expect(failure.kind == .secureConnectionFailed)
            #expect(failure.underlying.contains("AsyncHTTPClientTransport"))
            #expect(server.connectionCount == 0)
        }
    }

    @Test("a trust that cannot be used (a root that is no certificate, no root at all) fails each request as an invalid request naming it; nothing is sent")
    func unusableTrust() async throws {
        try await TestServer.with(security: .init(try Self.authority.issue(for: Self.loopback))) { server in
            for (trust, words) in [
                (TLSTrust(roots: [Self.authority.certificatePEM, "not a certificate"]), "TLSTrust.roots[1]"),
                (TLSTrust(trustsSystemRoots: false), "trusts no root"),
            ] {
                let client = TestTransport.asyncHTTPClient.makeClient(Self.configuration(server), trust: trust)
                let error = await thrownError { () async throws(APIError) in try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly) }
                guard case .invalidRequest(let message)? = error else {
                    Issue.record("expected an invalid request, got \(String(describing: error))")
                    continue
                }
                #expect(message.contains(words), "\(message)")
            }
            #expect(server.connectionCount == 0)
        }
    }

    @Test("HTTP/2: 100 concurrent queries go over one connection; the WebSocket beside them over HTTP/1.1 on the same port")
    func http2OneConnection() async throws {
        let trust = TLSTrust(roots: [Self.authority.certificatePEM])
        try await TestServer.with(security: .init(try Self.authority.issue(for: Self.loopback), http2: true)) { server in
            var configuration = Self.configuration(server, subscriptions: trust)
            configuration.deduplicatesQueries = false
            let client = TestTransport.asyncHTTPClient.makeClient(configuration, trust: trust)
            let names = try await withThrowingTaskGroup(of: String?.self) { group in
                for episode in 0..<100 {
                    group.addTask {
                        try await client.fetch(HeroNameQuery(episode: .some(GraphQLEnum(episode % 2 == 0 ? .jedi : .empire))), cachePolicy: .networkOnly)
                            .value.hero?.name
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(names.count == 100)
            #expect(names.allSatisfy { $0 != nil })
            #expect(server.requests(to: "graphql").count == 100)
            #expect(server.connectionCount == 1)
            var numbers: [Int] = []
            for try await data in client.subscribe(CounterSubscription(to: 2)) { numbers.append(data.counter) }
            #expect(numbers == [1, 2])
            #expect(server.webSocketConnectionCount == 1)
            #expect(server.connectionCount == 1)
        }
    }
}
