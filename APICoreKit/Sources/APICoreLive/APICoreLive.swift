import APICore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The engine behind `APIClient`: GraphQL over HTTP, the middleware chain and the normalized cache,
/// over URLSession or a transport of the app's own (``HTTPTransport``).
///
/// Only an app's composition root imports this module; kits see `APIClient` alone.
public enum APICoreLive {
    /// Makes a client for `configuration`, over an ephemeral URLSession of its own.
    public static func makeClient(_ configuration: APIClientConfiguration) -> any APIClient {
        makeClient(configuration, trust: .system)
    }

    /// Makes a client for `configuration`, over an ephemeral URLSession of its own, asked to trust
    /// `trust` over TLS: URLSession cannot honour a trust of the app's own (see
    /// ``makeClient(_:sessionConfiguration:trust:)``), so the client then refuses every request.
    public static func makeClient(_ configuration: APIClientConfiguration, trust: TLSTrust) -> any APIClient {
        makeClient(configuration, sessionConfiguration: URLSessionTransport.defaultConfiguration, trust: trust)
    }

    /// Makes a client for `configuration` over a URLSession made from `sessionConfiguration`, the
    /// app's own: its proxies, connection limits, protocol classes and URL cache (which then acts
    /// beneath the client's ``APIClientConfiguration/httpCache``, by the platform's rules) are used
    /// as they are. Request timeouts stay the client's. Leave cookie handling off in it
    /// (`httpShouldSetCookies`) when the client authenticates with ``Authentication/cookies(_:)``,
    /// which sends and stores them itself.
    ///
    /// URLSession cannot honour a ``TLSTrust`` of the app's own (roots, pins): FoundationNetworking
    /// on Linux has no way to add a root or check a key. Given one, the client refuses every
    /// request with `APIError.transport(.secureConnectionFailed)` saying so, rather than connect
    /// with the system's trust; use `AsyncHTTPClientTransport` (module `APICoreAsyncHTTPClient`).
    public static func makeClient(
        _ configuration: APIClientConfiguration, sessionConfiguration: URLSessionConfiguration, trust: TLSTrust = .system
    ) -> any APIClient {
        makeClient(configuration, transport: URLSessionTransport(configuration: sessionConfiguration, trust: trust))
    }

    /// Makes a client for `configuration` over `transport`, the app's own ``HTTPTransport``:
    /// everything above it (middleware, retries, token refresh, tracing, batching, the
    /// configuration's ``APIClientConfiguration/httpCache`` and the normalized cache) runs as it
    /// does over URLSession.
    public static func makeClient(_ configuration: APIClientConfiguration, transport: any HTTPTransport) -> any APIClient {
        var transport = transport
        if let httpCache = configuration.httpCache { transport = CachingTransport(base: transport, cache: httpCache) }
        // Above the cache, so that each hop is a request of its own to it.
        transport = RedirectingTransport(base: transport)
        return LiveAPIClient(configuration: configuration, transport: transport)
    }
}
