@_spi(Engine) import APICore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The URLSession transport (FoundationNetworking on Linux).
///
/// It follows no redirect: a `3xx` is answered as it came, and the client follows it itself
/// (`RedirectingTransport`), because URLSession would send the request's `Authorization` and
/// `Cookie` on to whatever origin the redirect names.
///
/// The timeout is our own deadline for the whole exchange, accurate to a few milliseconds on every
/// platform, not URLSession's idle interval: a server that trickles bytes forever still times out. Cancelling the calling task cancels the
/// `URLSessionTask` at once.
final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    /// Hands each answer's head and chunks on as they arrive.
    private let delegate = StreamingDelegate()
    /// Why every request is refused: a trust this transport cannot honour.
    private let refusal: String?

    init(configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration, trust: TLSTrust = .system) {
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: StreamingDelegate.queue())
        refusal =
            trust.isSystem
            ? nil
            : "URLSession's transport cannot honour a TLSTrust of the app's own (roots or pinned keys): FoundationNetworking "
                + "has no way to add a root or check a key, so nothing is sent. Use AsyncHTTPClientTransport (APICoreAsyncHTTPClient)."
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// The session's configuration: ephemeral, without a URL cache (the client's HTTP cache is
    /// `CachingTransport`, the same on every platform).
    static var defaultConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpMaximumConnectionsPerHost = 32
        // Cookies are the cookie-session middleware's business, not URLSession's.
        configuration.httpShouldSetCookies = false
        configuration.httpCookieStorage = nil
        return configuration
    }

    /// The head as soon as it arrives, the body as it streams in, through the delegate: read whole
    /// or not, every answer comes this way, so that a body is counted as it arrives and stopped
    /// past the request's ``TransportRequest/maxBodySize`` (a completion handler would hold all of
    /// an endless one), and held to what the reader keeps up with (``BodyBuffer``).
    func send(_ transportRequest: TransportRequest) async throws(APIError) -> StreamedResponse {
        if Task.isCancelled { throw .cancelled }
        if let refusal {
            throw .transport(TransportFailure(kind: .secureConnectionFailed, url: transportRequest.urlRequest.url, underlying: refusal))
        }
        var request = transportRequest.urlRequest
        let openEnded = transportRequest.isOpenEnded
        let seconds = Self.deadline(transportRequest.timeout, for: &request)
        // URLSession's interval is an idle timeout: out of the way of a stream that may be quiet
        // for long (its reader watches for silence).
        if openEnded { request.timeoutInterval = 7 * 24 * 3600 }
        let whole = transportRequest.readsWholeBody
        let task = session.dataTask(with: request)
        let exchange = StreamingDelegate.Exchange(url: request.url, maxBodySize: whole ? transportRequest.maxBodySize : .max)
        delegate.register(exchange, for: task)
        exchange.start(task, deadline: seconds, headOnly: openEnded)
        let head = await withTaskCancellationHandler {
            await exchange.head()
        } onCancel: {
            exchange.cancel()
        }
        return StreamedResponse(head: try head.get(), body: .chunks(exchange.body.chunks(onStop: { exchange.cancel() })))
    }

    /// The timeout in seconds, which our own deadline enforces. URLSession's interval only has to
    /// stay out of its way: on Linux it is cut to whole seconds (0.9 s fires at once, 1.5 s after 1 s).
    private static func deadline(_ timeout: Duration, for request: inout URLRequest) -> Double {
        let seconds = timeout.seconds
        request.timeoutInterval = seconds.rounded(.up) + 1
        return seconds
    }

    /// A response's status, headers and URL, with `body`.
    static func response(_ http: HTTPURLResponse, body: Data, url: URL?) -> TransportResponse {
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            headers[String(describing: key)] = String(describing: value)
        }
        return TransportResponse(statusCode: http.statusCode, headers: headers, body: body, url: http.url ?? url)
    }

    /// One wording for a timeout, whether our deadline or URLSession's fired first.
    static let timedOutText = "no complete response within the request's timeout"

    static func map(_ error: any Error, url: URL?) -> APIError {
        guard let urlError = error as? URLError else {
            return .transport(TransportFailure(kind: .other, url: url, underlying: String(describing: error)))
        }
        let kind: TransportFailure.Kind
        switch urlError.code {
        case .cancelled: return .cancelled
        case .cannotConnectToHost: kind = .connectionRefused
        case .cannotFindHost, .dnsLookupFailed: kind = .cannotFindHost
        case .timedOut: return .transport(TransportFailure(kind: .timedOut, url: url, underlying: timedOutText))
        case .networkConnectionLost: kind = .connectionLost
        case .notConnectedToInternet, .internationalRoamingOff, .dataNotAllowed: kind = .notConnected
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            kind = .secureConnectionFailed
        case .badServerResponse, .zeroByteResource, .cannotParseResponse: kind = .connectionLost
        default:
            // FoundationNetworking reports libcurl's TLS failures as unknown errors, in libcurl's words.
            if let reason = tlsRefusal(urlError.localizedDescription) {
                return .transport(TransportFailure(kind: .secureConnectionFailed, url: url, underlying: reason))
            }
            kind = .other
        }
        let text = urlError.localizedDescription
        // The same sentences as NIO's transports, rather than libcurl's "Failed to connect to …
        // port … after 0 ms: Couldn't connect to server" or "Recv failure: Connection reset by peer".
        if let host = url?.host, kind == .connectionRefused || urlError.code == .networkConnectionLost {
            let address = "\(host):\(url?.port ?? (url?.scheme == "https" ? 443 : 80))"
            let sentence =
                kind == .connectionRefused
                ? "nothing accepts connections at \(address)"
                : text.lowercased().contains("reset") ? "\(address) reset the connection" : "\(address) closed the connection before the answer ended (\(text))"
            return .transport(TransportFailure(kind: kind, url: url, underlying: sentence))
        }
        let underlying = kind == .secureConnectionFailed ? tlsRefusal(text) ?? "the TLS handshake failed: \(text)" : text
        return .transport(TransportFailure(kind: kind, url: url, underlying: underlying))
    }

    /// libcurl's words for a refused certificate or a failed handshake ("SSL certificate problem:
    /// certificate has expired", "SSL: no alternative certificate subject name matches target host
    /// name 'x'") as a sentence about the server's certificate, or `nil` when they are about
    /// something else.
    static func tlsRefusal(_ text: String) -> String? {
        let problem = "SSL certificate problem: "
        if text.hasPrefix(problem) {
            let reason = text.dropFirst(problem.count)
            if reason.contains("unable to get local issuer") || reason.contains("unable to get issuer") {
                return "the server's certificate does not chain to the system's roots (\(reason))"
            }
            return "the server's certificate was refused: \(reason)"
        }
        if text.contains("subject name"), text.contains("match"),
            let quote = text.lastIndex(of: "'"), let open = text[..<quote].lastIndex(of: "'")
        {
            return "the server's certificate is not for \(text[text.index(after: open)..<quote])"
        }
        if text.hasPrefix("SSL") || text.contains("SSL_connect") || text.contains("TLS") {
            return "the TLS handshake failed: \(text)"
        }
        return nil
    }
}

/// Hands the head and the chunks of each exchange to its reader, by task; follows no redirect (the
/// task completes with the `3xx` itself).
final class StreamingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// One streaming exchange: its head, once, then its chunks; a deadline over all of it.
    final class Exchange: Sendable {
        private enum Phase {
            case waiting([CheckedContinuation<Result<TransportResponse, APIError>, Never>], task: URLSessionDataTask?)
            case streaming(URLSessionDataTask)
            case ended
        }

        let url: URL?
        /// The body, between the delegate and the reader.
        let body = BodyBuffer()
        /// The most bytes of body read; past them the exchange stops as too large.
        private let maxBodySize: Int
        private let bodyBytes = Locked(0)
        private let phase = Locked<Phase>(.waiting([], task: nil))
        private let headResult = Locked<Result<TransportResponse, APIError>?>(nil)
        /// The deadline over the whole exchange, called off when it ends.
        private let deadline = Locked<Deadline?>(nil)

        init(url: URL?, maxBodySize: Int = .max) {
            self.url = url
            self.maxBodySize = maxBodySize
        }

        func start(_ task: URLSessionDataTask, deadline seconds: Double, headOnly: Bool) {
            let cancelled = phase.withLock { phase -> Bool in
                guard case .waiting(let waiters, task: nil) = phase else { return true }
                phase = .waiting(waiters, task: task)
                return false
            }
            if cancelled {
                DispatchQueue.global().async { task.cancel() }
                return
            }
            // Off the cooperative pool, like every call into the task: with FoundationNetworking
            // each waits for the session's queue, which may be waiting for the delegate's.
            DispatchQueue.global().async { [weak self] in
                if self?.hasEnded == false { task.resume() }
            }
            let url = url
            let timer = Deadline(after: seconds) { [weak self] in
                guard let self, !(headOnly && self.hasHead) else { return }
                self.stop(.transport(TransportFailure(kind: .timedOut, url: url, underlying: URLSessionTransport.timedOutText)))
            }
            let ended = phase.withLock { phase -> Bool in
                if case .ended = phase { return true }
                deadline.withLock { $0 = timer }
                return false
            }
            if ended { timer.cancel() }
        }

        /// The head, once it arrived (or why it did not).
        func head() async -> Result<TransportResponse, APIError> {
            await withCheckedContinuation { continuation in
                let ready = phase.withLock { phase -> Bool in
                    guard case .waiting(var waiters, let task) = phase else { return true }
                    waiters.append(continuation)
                    phase = .waiting(waiters, task: task)
                    return false
                }
                if ready { continuation.resume(returning: headResult.withLock { $0 } ?? .failure(.cancelled)) }
            }
        }

        func cancel() { stop(.cancelled) }

        private var hasEnded: Bool {
            phase.withLock { phase in
                if case .ended = phase { return true }
                return false
            }
        }

        /// Whether the head arrived (or the exchange ended).
        private var hasHead: Bool {
            phase.withLock { phase in
                if case .waiting = phase { return false }
                return true
            }
        }

        /// Ends the exchange with `reason` at once (the reader hears it), then cancels the task off
        /// the delegate's queue: with FoundationNetworking `cancel()` waits for the session's queue,
        /// which may be waiting for the delegate's (`FlowQueue`).
        private func stop(_ reason: APIError) {
            let task = phase.withLock { phase -> URLSessionDataTask? in
                switch phase {
                case .waiting(_, let task): return task
                case .streaming(let task): return task
                case .ended: return nil
                }
            }
            finish(.failure(reason))
            if let task { DispatchQueue.global().async { task.cancel() } }
        }

        func received(_ response: TransportResponse, task: URLSessionDataTask) {
            resolveHead(.success(response), next: .streaming(task))
        }

        /// A chunk from the delegate, on its queue: past the bound the exchange stops. On Apple
        /// platforms, when the reader has not kept up, the task is suspended until it has taken
        /// half of what waits. FoundationNetworking cannot pause a transfer (suspending a task
        /// drops its connection, and resuming sends the request again), and waiting here would
        /// hold a Dispatch worker for as long as the reader lags, which on a loaded machine starves
        /// Swift's cooperative pool (a whole test run stood still for 60 s): there the delivery
        /// queue's bound (`StreamingDelegate.queue()`) is what holds libcurl back.
        func received(_ data: Data, task: URLSessionDataTask) {
            if maxBodySize < .max {
                let total = bodyBytes.withLock { total in
                    total += data.count
                    return total
                }
                guard total <= maxBodySize else { return stop(ResponseBody.tooLarge(maxBodySize)) }
            }
            guard !body.append(data) else { return }
            #if !canImport(FoundationNetworking)
                task.suspend()
                let body = body
                Task {
                    await body.room()
                    task.resume()
                }
            #endif
        }

        func completed(with error: (any Error)?) {
            finish(error.map { .failure(URLSessionTransport.map($0, url: url)) } ?? .success(()))
        }

        private func finish(_ outcome: Result<Void, APIError>) {
            if case .failure(let error) = outcome {
                resolveHead(.failure(error), next: .ended)
                body.finish(error)
            } else {
                resolveHead(.failure(.transport(TransportFailure(kind: .connectionLost, url: url, underlying: "no response"))), next: .ended)
                body.finish()
            }
            phase.withLock { $0 = .ended }
            deadline.withLock { $0 }?.cancel()
        }

        private func resolveHead(_ result: Result<TransportResponse, APIError>, next: Phase) {
            let waiters = phase.withLock { phase -> [CheckedContinuation<Result<TransportResponse, APIError>, Never>]? in
                guard case .waiting(let waiters, _) = phase else { return nil }
                headResult.withLock { $0 = result }
                phase = next
                return waiters
            }
            for waiter in waiters ?? [] { waiter.resume(returning: result) }
        }
    }

    /// The delegate queue of a session: serial, and with FoundationNetworking holding at most a
    /// few deliveries. FoundationNetworking hands each chunk libcurl reads to this queue without
    /// waiting; a queue that says no more (`FlowQueue`) makes the session's own queue wait for the
    /// delegate (which never waits), so libcurl reads no faster than the delegate counts, and a
    /// body past its bound is stopped before the deliveries behind it pile up.
    static func queue() -> OperationQueue {
        #if canImport(FoundationNetworking)
            FlowQueue(limit: 16)
        #else
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            return queue
        #endif
    }

    private let exchanges = Locked<[Int: Exchange]>([:])

    func register(_ exchange: Exchange, for task: URLSessionDataTask) {
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
    }

    private func exchange(of task: URLSessionTask) -> Exchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let exchange = exchange(of: dataTask) else {
            completionHandler(.cancel)
            return
        }
        guard let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        exchange.received(URLSessionTransport.response(http, body: Data(), url: exchange.url), task: dataTask)
        completionHandler(.allow)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(of: dataTask)?.received(data, task: dataTask)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        exchange?.completed(with: error)
    }
}
