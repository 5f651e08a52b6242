import APICore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends one HTTP request and returns whatever status came back.
protocol HTTPTransport: Sendable {
    func send(_ request: URLRequest, timeout: Duration) async throws(APIError) -> TransportResponse
}

/// The URLSession transport (FoundationNetworking on Linux).
///
/// The timeout is our own deadline for the whole exchange, accurate to a few milliseconds on every
/// platform, not URLSession's idle interval: a server that trickles bytes forever still times out. Cancelling the calling task cancels the
/// `URLSessionTask` at once.
final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    init(configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration) {
        session = URLSession(configuration: configuration)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

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

    private enum Outcome: Sendable {
        case pending
        case running(URLSessionDataTask)
        case cancelled
        case timedOut
        case finished
    }

    func send(_ request: URLRequest, timeout: Duration) async throws(APIError) -> TransportResponse {
        if Task.isCancelled { throw .cancelled }
        var request = request
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        // The deadline below is the timeout. URLSession's own interval only has to stay out of its
        // way: on Linux it is cut to whole seconds (0.9 s fires at once, 1.5 s after 1 s).
        request.timeoutInterval = seconds.rounded(.up) + 1
        let state = Locked(Outcome.pending)
        let url = request.url
        let result: Result<TransportResponse, APIError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<TransportResponse, APIError>, Never>) in
                let task = session.dataTask(with: request) { data, response, error in
                    continuation.resume(returning: Self.outcome(data: data, response: response, error: error, url: url, state: state))
                }
                let startNow = state.withLock { outcome -> Bool in
                    guard case .pending = outcome else { return false }
                    outcome = .running(task)
                    return true
                }
                if startNow {
                    task.resume()
                    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                        let running = state.withLock { outcome -> URLSessionDataTask? in
                            guard case .running(let task) = outcome else { return nil }
                            outcome = .timedOut
                            return task
                        }
                        running?.cancel()
                    }
                } else {
                    continuation.resume(returning: .failure(.cancelled))
                }
            }
        } onCancel: {
            let running = state.withLock { outcome -> URLSessionDataTask? in
                switch outcome {
                case .pending:
                    outcome = .cancelled
                    return nil
                case .running(let task):
                    outcome = .cancelled
                    return task
                case .cancelled, .timedOut, .finished:
                    return nil
                }
            }
            running?.cancel()
        }
        return try result.get()
    }

    private static func outcome(data: Data?, response: URLResponse?, error: (any Error)?, url: URL?, state: Locked<Outcome>)
        -> Result<TransportResponse, APIError>
    {
        let final = state.withLock { outcome -> Outcome in
            let seen = outcome
            if case .running = outcome { outcome = .finished }
            return seen
        }
        if case .cancelled = final { return .failure(.cancelled) }
        if case .timedOut = final {
            return .failure(.transport(TransportFailure(kind: .timedOut, url: url, underlying: timedOutText)))
        }
        if let error {
            return .failure(map(error, url: url))
        }
        guard let http = response as? HTTPURLResponse else {
            return .failure(.transport(TransportFailure(kind: .other, url: url, underlying: "the response is not HTTP")))
        }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            headers[String(describing: key)] = String(describing: value)
        }
        return .success(TransportResponse(statusCode: http.statusCode, headers: headers, body: data ?? Data(), url: http.url ?? url))
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
        default: kind = .other
        }
        return .transport(TransportFailure(kind: kind, url: url, underlying: urlError.localizedDescription))
    }
}
