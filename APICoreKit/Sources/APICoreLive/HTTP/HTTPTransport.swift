@_spi(Engine) import APICore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How the engine reaches an HTTP server: one request in, one response out whose body may stream.
///
/// URLSession's transport is the default (``APICoreLive/makeClient(_:)``); an app gives its own to
/// ``APICoreLive/makeClient(_:transport:)``, and everything above it (middleware, retries, token
/// refresh, tracing, batching, the HTTP cache, the normalized cache) runs unchanged over it. A
/// test can run the real engine over a transport that answers from memory.
public protocol HTTPTransport: Sendable {
    /// Sends `request.urlRequest` and answers as soon as the status and headers have arrived; the
    /// body follows in ``StreamedResponse/body``. Honour `request.timeout` (see
    /// ``TransportRequest``); a failure to connect or a cut connection is
    /// ``APIError/transport(_:)``, a deadline passed `.transport(.timedOut)`; cancelling the
    /// calling task, or dropping a streamed body, ends the exchange. Answer a redirect (`3xx`) as it
    /// came, without following it: the client follows redirects itself, by rules that keep the
    /// app's credentials from other origins.
    func send(_ request: TransportRequest) async throws(APIError) -> StreamedResponse
}

/// One request for an ``HTTPTransport``.
public struct TransportRequest: Sendable {
    /// The request, as the middleware chain made it.
    public var urlRequest: URLRequest
    /// The deadline: for the whole exchange, or with ``isOpenEnded`` for the head alone.
    public var timeout: Duration
    /// Whether the body may stream for as long as the server keeps it open (a subscription): the
    /// timeout covers only the head, and the engine watches the body for silence itself.
    public var isOpenEnded: Bool
    /// Whether the engine reads the body whole before it looks at it: a transport may then answer
    /// it in one piece (``ResponseBody/complete(_:)``). Otherwise (`multipart/mixed`,
    /// `text/event-stream`) the engine reads the parts as they arrive, and chunks should come as
    /// they do.
    public var readsWholeBody: Bool
    /// With ``readsWholeBody``, the most bytes the engine reads of the body
    /// (`APIClientConfiguration.maxResponseSize`): past them it stops reading, dropping the body
    /// (which ends the exchange), and fails the request. A transport that reads a body whole itself
    /// should stop there too, so that no server can make it hold more.
    public var maxBodySize: Int

    /// A request for a transport.
    public init(urlRequest: URLRequest, timeout: Duration, isOpenEnded: Bool = false, readsWholeBody: Bool = true, maxBodySize: Int = .max) {
        self.urlRequest = urlRequest
        self.timeout = timeout
        self.isOpenEnded = isOpenEnded
        self.readsWholeBody = readsWholeBody
        self.maxBodySize = maxBodySize
    }
}

/// A transport's answer: its head (status, headers; ``TransportResponse/body`` empty), then its body.
public struct StreamedResponse: Sendable {
    /// The status and headers.
    public var head: TransportResponse
    /// The body.
    public var body: ResponseBody

    /// An answer.
    public init(head: TransportResponse, body: ResponseBody) {
        self.head = head
        self.body = body
    }
}

/// The body of a transport's answer.
public enum ResponseBody: Sendable {
    /// All of it, at once.
    case complete(Data)
    /// Its chunks as they arrive, ending after the last or with the error that cut them off;
    /// stopping the iteration ends the exchange.
    case chunks(APIStream<Result<Data, APIError>>)

    /// The whole body, up to `limit` bytes: a longer one is
    /// `APIError.invalidResponse` of kind `.tooLarge`, read no further (its chunks are dropped,
    /// which ends the exchange).
    public func collect(limit: Int = .max) async throws(APIError) -> Data {
        switch self {
        case .complete(let data):
            guard data.count <= limit else { throw Self.tooLarge(limit) }
            return data
        case .chunks(let chunks):
            var body = Data()
            for await chunk in chunks {
                let bytes = try chunk.get()
                guard bytes.count <= limit - body.count else { throw Self.tooLarge(limit) }
                body.append(bytes)
            }
            if Task.isCancelled { throw .cancelled }
            return body
        }
    }

    /// A body over `limit` bytes.
    @_spi(Engine) public static func tooLarge(_ limit: Int, what: String = "", request: String? = nil, statusCode: Int? = nil) -> APIError {
        .invalidResponse(InvalidResponse(kind: .tooLarge(limit: limit), statusCode: statusCode, request: request, bodyExcerpt: what))
    }

    /// The body's chunks (a complete body is one chunk).
    var chunks: APIStream<Result<Data, APIError>> {
        switch self {
        case .chunks(let chunks):
            return chunks
        case .complete(let data):
            return APIStream { continuation in
                continuation.yield(.success(data))
                continuation.finish()
            }
        }
    }
}

extension StreamedResponse {
    /// A whole answer as a transport gives it: the head, and the body complete.
    init(whole response: TransportResponse) {
        var head = response
        head.body = Data()
        self.init(head: head, body: .complete(response.body))
    }
}

extension HTTPTransport {
    /// The whole answer, its body read up to `limit` bytes.
    func whole(_ request: URLRequest, timeout: Duration, limit: Int = .max) async throws(APIError) -> TransportResponse {
        let answer = try await send(TransportRequest(urlRequest: request, timeout: timeout, maxBodySize: limit))
        var response = answer.head
        response.body = try await answer.body.collect(limit: limit)
        return response
    }

    /// The head as soon as it arrives, and the body's chunks as they do.
    func streamed(_ request: URLRequest, timeout: Duration, openEnded: Bool) async throws(APIError)
        -> (head: TransportResponse, chunks: APIStream<Result<Data, APIError>>)
    {
        let answer = try await send(TransportRequest(urlRequest: request, timeout: timeout, isOpenEnded: openEnded, readsWholeBody: false))
        return (answer.head, answer.body.chunks)
    }
}
