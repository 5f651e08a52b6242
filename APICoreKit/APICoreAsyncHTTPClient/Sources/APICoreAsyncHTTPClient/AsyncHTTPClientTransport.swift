@_spi(Engine) import APICore
@_spi(Engine) import APICoreLive
@_spi(Engine) import APICoreWebSocket
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An ``HTTPTransport`` on AsyncHTTPClient: SwiftNIO's connection pool, HTTP/2 by ALPN (many
/// requests on one connection), bodies streamed as they arrive, TLS by NIOSSL trusting what a
/// ``TLSTrust`` names. What a Linux service would choose over FoundationNetworking's URLSession.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport(trust: TLSTrust(roots: [companyCAPEM]))
/// let client = APICoreLive.makeClient(configuration, transport: transport)
/// ```
///
/// Everything above the transport (middleware, retries, token refresh, tracing, batching,
/// redirects by the client's rules, the HTTP cache) runs over it as over URLSession. The transport
/// follows no redirect and retries no connection itself; it asks for `gzip`/`deflate` answers
/// when the request names no `Accept-Encoding`, and decompresses them.
///
/// It owns its `HTTPClient` and shuts it down when released (or at ``shutdown()``), unless the app
/// gives its own (``init(client:trust:)``), which stays the app's to shut down.
public final class AsyncHTTPClientTransport: HTTPTransport {
    private let client: HTTPClient
    private let ownsClient: Bool
    private let trust: TLSTrust
    /// A trust that could not be turned into a TLS configuration: every request fails with it.
    private let refusal: APIError?

    /// A transport with a client of its own: HTTP/2 where the server offers it (`http2: false`
    /// keeps to HTTP/1.1), TLS trusting what `trust` names, at most `connectionsPerHost`
    /// HTTP/1.1 connections to a host.
    public init(trust: TLSTrust = .system, http2: Bool = true, connectionsPerHost: Int = 32) {
        var configuration = HTTPClient.Configuration()
        let tls: TLSConfiguration?
        do {
            tls = try NIOConnection.configuration(for: trust)
            refusal = nil
        } catch {
            tls = nil
            refusal = error
        }
        configuration.tlsConfiguration = tls
        configuration.httpVersion = http2 ? .automatic : .http1Only
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerHost
        configuration.decompression = .enabled(limit: .ratio(1_000))
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: Self.engineRules(configuration, trust: trust))
        ownsClient = true
        self.trust = trust
    }

    /// A transport over the app's own `client`, which the app shuts down. Its TLS configuration is
    /// used as it is; `trust` serves to name the reason when a certificate is refused. Build it
    /// with `redirectConfiguration = .disallow` (the client follows redirects itself, by rules
    /// that keep credentials from other origins) and `retryConnectionEstablishment = false` (the
    /// client's retry middleware decides).
    public init(client: HTTPClient, trust: TLSTrust = .system) {
        self.client = client
        ownsClient = false
        self.trust = trust
        refusal = nil
    }

    deinit {
        if ownsClient { client.shutdown { _ in } }
    }

    /// Shuts the transport's own client down (its connections close); later requests fail. Does
    /// nothing to a client the app gave.
    public func shutdown() async throws {
        guard ownsClient else { return }
        try await client.shutdown()
    }

    /// The configuration with what the engine needs: no redirects followed, no connection
    /// retried behind the retry middleware's back, and each new TLS connection checked against
    /// the pins before any request goes over it.
    private static func engineRules(_ configuration: HTTPClient.Configuration, trust: TLSTrust) -> HTTPClient.Configuration {
        var configuration = configuration
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        if !trust.pinnedKeys.isEmpty {
            let check: @Sendable (any Channel) -> EventLoopFuture<Void> = { channel in
                channel.pipeline.handler(type: NIOSSLHandler.self).flatMapThrowing { handler in
                    if let mismatch = NIOConnection.pinRefusal(handler.peerCertificate, trust: trust) {
                        // AsyncHTTPClient drops the connection from its pool, but leaves it open.
                        channel.close(promise: nil)
                        throw mismatch
                    }
                }
            }
            configuration.http1_1ConnectionDebugInitializer = check
            configuration.http2ConnectionDebugInitializer = check
        }
        return configuration
    }

    public func send(_ request: TransportRequest) async throws(APIError) -> StreamedResponse {
        if let refusal { throw refusal }
        if Task.isCancelled { throw .cancelled }
        guard let url = request.urlRequest.url else { throw .invalidRequest("a request without a URL") }
        let outgoing = Self.request(request.urlRequest, url: url)
        // Over the whole exchange, or for an open-ended stream the head alone (its reader watches
        // the body for silence itself).
        let (seconds, attoseconds) = request.timeout.components
        let deadline = NIODeadline.now() + .nanoseconds(seconds >= 1_000_000_000 ? .max / 2 : seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        let response: HTTPClientResponse
        do {
            if request.isOpenEnded {
                response = try await headWithin(deadline, url: url) { try await self.client.execute(outgoing, deadline: .distantFuture) }
            } else {
                response = try await client.execute(outgoing, deadline: deadline)
            }
        } catch {
            throw await failure(error, url: url)
        }
        let head = TransportResponse(statusCode: Int(response.status.code), headers: Self.headers(response.headers), body: Data(), url: url)
        if request.readsWholeBody {
            let limit = request.maxBodySize
            do {
                // Refuses a `Content-Length` over the bound before reading, and stops reading past it.
                var buffer = try await response.body.collect(upTo: limit)
                return StreamedResponse(head: head, body: .complete(buffer.readData(length: buffer.readableBytes) ?? Data()))
            } catch is NIOTooManyBytesError {
                throw ResponseBody.tooLarge(limit, statusCode: head.statusCode)
            } catch {
                throw await failure(error, url: url)
            }
        }
        return StreamedResponse(head: head, body: .chunks(chunks(of: response.body, url: url)))
    }

    /// The body's chunks, read by a task that stops (closing the request) when the reader lets
    /// the stream go.
    private func chunks(of body: HTTPClientResponse.Body, url: URL) -> APIStream<Result<Data, APIError>> {
        APIStream { continuation in
            let reader = Task {
                do {
                    for try await var buffer in body {
                        // A reader that let the stream go stops the request here at once, even before
                        // this task's cancellation reaches AsyncHTTPClient's body.
                        let chunk = buffer.readData(length: buffer.readableBytes) ?? Data()
                        if case .terminated = continuation.yield(.success(chunk)) { break }
                    }
                } catch {
                    if !Task.isCancelled { continuation.yield(.failure(await self.failure(error, url: url))) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in reader.cancel() }
        }
    }

    /// `exchange`'s head, or `.transport(.timedOut)` when it has not come by `deadline`.
    private func headWithin(
        _ deadline: NIODeadline, url: URL, _ exchange: @escaping @Sendable () async throws -> HTTPClientResponse
    ) async throws -> HTTPClientResponse {
        try await withThrowingTaskGroup(of: HTTPClientResponse?.self) { group in
            group.addTask { try await exchange() }
            group.addTask {
                try await Task.sleep(for: .nanoseconds(max(0, (deadline - .now()).nanoseconds)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                throw APIError.transport(TransportFailure(kind: .timedOut, url: url, underlying: "no response head within the request's timeout"))
            }
            return response
        }
    }

    private func failure(_ error: any Error, url: URL) async -> APIError {
        if error is CancellationError || Task.isCancelled { return .cancelled }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout:
                return .transport(TransportFailure(kind: .timedOut, url: url, underlying: "no complete response within the request's timeout"))
            case .cancelled:
                return .cancelled
            case .remoteConnectionClosed:
                return .transport(TransportFailure(kind: .connectionLost, url: url, underlying: "the server closed the connection"))
            default:
                break
            }
        }
        return await NIOConnection.failure(error, url: url, trust: trust)
    }

    /// The engine's request as AsyncHTTPClient's.
    private static func request(_ urlRequest: URLRequest, url: URL) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: urlRequest.httpMethod ?? "GET")
        for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] { request.headers.add(name: name, value: value) }
        if !request.headers.contains(name: "accept-encoding") { request.headers.add(name: "Accept-Encoding", value: "gzip, deflate") }
        if let body = urlRequest.httpBody { request.body = .bytes(ByteBuffer(data: body)) }
        return request
    }

    /// Headers as the engine reads them: one value per name, repeated ones joined by `, `.
    private static func headers(_ headers: HTTPHeaders) -> [String: String] {
        var joined: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            joined[key] = joined[key].map { $0 + ", " + value } ?? value
        }
        return joined
    }

}
