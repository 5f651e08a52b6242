import APICore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends one HTTP request and returns whatever status came back.
protocol HTTPTransport: Sendable {
    /// The whole answer.
    func send(_ request: URLRequest, timeout: Duration) async throws(APIError) -> TransportResponse
    /// The status and headers as soon as they arrive, then the body as it streams in
    /// (incremental delivery, multipart subscriptions). The timeout covers the whole exchange,
    /// or when `openEnded`, only the head: the body then streams for as long as the server
    /// keeps it open, and the reader decides when silence has lasted too long.
    func stream(_ request: URLRequest, timeout: Duration, openEnded: Bool) async throws(APIError) -> StreamedResponse
}

/// An answer whose body arrives in chunks: the head (status, headers, no body), then the chunks.
/// The chunks end after the last one, or with an error (a timeout, a lost connection); the
/// consumer that stops iterating cancels the exchange.
struct StreamedResponse: Sendable {
    var head: TransportResponse
    var chunks: APIStream<Result<Data, APIError>>
}
