import APICore

/// The engine behind `APIClient`: URLSession transport, GraphQL over HTTP and the middleware chain.
///
/// Only an app's composition root imports this module; kits see `APIClient` alone.
public enum APICoreLive {
    /// Makes a client for `configuration`.
    public static func makeClient(_ configuration: APIClientConfiguration) -> any APIClient {
        LiveAPIClient(configuration: configuration, transport: URLSessionTransport())
    }
}
