import APICore
import APICoreAsyncHTTPClient
import APICoreLive
import Foundation

/// The HTTP transport the engine's tests run over: URLSession's by default, AsyncHTTPClient's
/// when `APICORE_TEST_TRANSPORT=asynchttpclient`. `scripts/test.sh Integration` runs the HTTP and
/// subscription suites both ways: one suite, two transports.
public enum TestTransport: String, Sendable, CaseIterable {
    /// FoundationNetworking's URLSession (the default transport).
    case urlSession = "urlsession"
    /// AsyncHTTPClient (`APICoreAsyncHTTPClient`).
    case asyncHTTPClient = "asynchttpclient"

    /// The one this run of the tests uses.
    public static let current: TestTransport = {
        let name = ProcessInfo.processInfo.environment["APICORE_TEST_TRANSPORT"]?.lowercased() ?? ""
        return TestTransport(rawValue: name) ?? .urlSession
    }()

    /// A client for `configuration` over this transport, trusting `trust` over TLS.
    public func makeClient(_ configuration: APIClientConfiguration, trust: TLSTrust = .system) -> any APIClient {
        switch self {
        case .urlSession: APICoreLive.makeClient(configuration, trust: trust)
        case .asyncHTTPClient:
            APICoreLive.makeClient(configuration, transport: AsyncHTTPClientTransport(trust: trust))
        }
    }
}

/// A client for `configuration` over the transport this run of the tests uses
/// (``TestTransport/current``).
public func makeTestClient(_ configuration: APIClientConfiguration) -> any APIClient {
    TestTransport.current.makeClient(configuration)
}
