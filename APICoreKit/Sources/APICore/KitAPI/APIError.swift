import Foundation

/// The one error type of `APIClient`: every failure, REST or GraphQL, network or cache, is one of
/// these cases, with enough detail to act on. ``recovery`` says what a caller can do.
public enum APIError: Error, Sendable, CustomStringConvertible {
    /// The request never got an HTTP response: no connection, a timeout, an unknown host.
    case transport(TransportFailure)
    /// The calling task was cancelled.
    case cancelled
    /// HTTP 401, or a GraphQL error with code `UNAUTHENTICATED`: credentials are missing or stale.
    case unauthorized(HTTPFailure)
    /// Any other HTTP status outside 2xx, with an excerpt of the body.
    case httpStatus(HTTPFailure)
    /// The GraphQL response carried `errors`; any partial `data` is kept.
    case graphQL(GraphQLFailure)
    /// The server answered, but not with what was asked for.
    case invalidResponse(InvalidResponse)
    /// The request could not be built (an unencodable body, a bad URL).
    case invalidRequest(String)
    /// The request's `map` rejected the data.
    case mapping(String)
    /// `cacheOnly` found no complete data in the cache for the operation named here.
    case cacheMiss(String)
    /// A subscription's WebSocket failed: closed by the server with a code, no `connection_ack`
    /// in time, a message that breaks the protocol, or no way back after reconnecting.
    case webSocket(WebSocketFailure)

    /// What a caller can do about an error.
    public enum Recovery: Sendable, Hashable {
        /// Try again, later if the server said when.
        case retry
        /// Get new credentials (log in again, refresh the token), then try again.
        case reauthenticate
        /// Trying again will not help.
        case fail
    }

    /// What a caller can do about this error.
    public var recovery: Recovery {
        switch self {
        // A certificate or a downgrade refused is the same on the next attempt.
        case .transport(let failure): return failure.kind == .secureConnectionFailed ? .fail : .retry
        case .cancelled: return .fail
        case .unauthorized: return .reauthenticate
        case .httpStatus(let failure):
            return [408, 425, 429, 500, 502, 503, 504].contains(failure.statusCode) ? .retry : .fail
        case .graphQL(let failure):
            if failure.errors.contains(where: { $0.code == "UNAUTHENTICATED" }) { return .reauthenticate }
            return failure.statusCode.map { [429, 502, 503, 504].contains($0) } == true ? .retry : .fail
        case .invalidResponse, .invalidRequest, .mapping, .cacheMiss: return .fail
        case .webSocket(let failure): return failure.recovery
        }
    }

    /// The HTTP status, when the server answered (a WebSocket upgrade it refused included).
    public var statusCode: Int? {
        switch self {
        case .unauthorized(let failure), .httpStatus(let failure): return failure.statusCode
        case .graphQL(let failure): return failure.statusCode
        case .invalidResponse(let failure): return failure.statusCode
        case .webSocket(let failure):
            if case .handshakeRefused(let status, _) = failure.kind { return status }
            return nil
        case .transport, .cancelled, .invalidRequest, .mapping, .cacheMiss: return nil
        }
    }

    /// One line for a person.
    public var description: String {
        switch self {
        case .transport(let failure): return "transport failure: \(failure)"
        case .cancelled: return "cancelled"
        case .unauthorized(let failure): return "unauthorized: \(failure)"
        case .httpStatus(let failure): return "HTTP error: \(failure)"
        case .graphQL(let failure): return "GraphQL error: \(failure)"
        case .invalidResponse(let failure): return "invalid response: \(failure)"
        case .invalidRequest(let reason): return "invalid request: \(reason)"
        case .mapping(let reason): return "mapping failed: \(reason)"
        case .cacheMiss(let operation): return "cache miss: the cache has no complete data for \(operation)"
        case .webSocket(let failure): return "WebSocket failure: \(failure)"
        }
    }

    /// The partial data of a GraphQL error response, read as `type`, when the server sent data
    /// that satisfies the selection set.
    public func partialData<Data: RootSelectionSet>(as type: Data.Type, variables: JSONObject = [:]) -> Data? {
        guard case .graphQL(let failure) = self, let data = failure.partialData else { return nil }
        return try? Data(validating: data, variables: variables)
    }
}

/// Why no HTTP response arrived.
public struct TransportFailure: Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: String, Sendable, Hashable {
        /// Nothing listens at the address.
        case connectionRefused = "connection refused"
        /// The host name did not resolve.
        case cannotFindHost = "unknown host"
        /// No answer within the request's timeout.
        case timedOut = "timed out"
        /// The connection closed before the response was complete.
        case connectionLost = "connection lost"
        /// The device has no network.
        case notConnected = "not connected to the internet"
        /// The TLS handshake or certificate check failed.
        case secureConnectionFailed = "secure connection failed"
        /// Any other failure.
        case other = "network error"
    }

    /// The kind.
    public var kind: Kind
    /// The URL asked for.
    public var url: URL?
    /// The platform's description of the failure.
    public var underlying: String

    /// Creates a failure.
    public init(kind: Kind, url: URL?, underlying: String) {
        self.kind = kind
        self.url = url
        self.underlying = underlying
    }

    /// Whether the device could not reach the server at all (offline reads apply).
    public var isConnectivity: Bool {
        kind == .connectionRefused || kind == .cannotFindHost || kind == .notConnected || kind == .timedOut
            || kind == .connectionLost
    }

    /// `kind (url): underlying`.
    public var description: String {
        "\(kind.rawValue)" + (url.map { " (\($0.absoluteString))" } ?? "") + (underlying.isEmpty ? "" : ": \(underlying)")
    }
}

/// An HTTP response with an unwanted status.
public struct HTTPFailure: Sendable, Hashable, CustomStringConvertible {
    /// The status code.
    public var statusCode: Int
    /// The response headers, names lowercased.
    public var headers: [String: String]
    /// The first bytes of the body as text, for a person to read.
    public var bodyExcerpt: String
    /// The whole body, for an app that reads what the server said (an error document); the
    /// description shows only ``bodyExcerpt``.
    public var body: Data
    /// The URL asked for.
    public var url: URL?

    /// Creates a failure with the body and an excerpt of at most `excerptLength` characters of it.
    public init(statusCode: Int, headers: [String: String], body: Data, url: URL?, excerptLength: Int = 512) {
        self.statusCode = statusCode
        self.headers = headers
        self.bodyExcerpt = Self.excerpt(of: body, length: excerptLength)
        self.body = body
        self.url = url
    }

    /// The start of `body` as text.
    @_spi(Engine) public static func excerpt(of body: Data, length: Int = 512) -> String {
        let text = String(decoding: body.prefix(length * 4), as: UTF8.self)
        // Binary is described, not shown: bytes that are not UTF-8 (beyond one character cut at
        // the end) or NULs make an excerpt nobody can read.
        let unreadable = text.unicodeScalars.lazy.filter { $0 == "\u{FFFD}" || $0 == "\u{0}" }.count
        if unreadable > 1 { return "(\(body.count) bytes that are not text)" }
        return text.count > length ? String(text.prefix(length)) + "…" : text
    }

    /// `status (url): excerpt`.
    public var description: String {
        "\(statusCode)" + (url.map { " (\($0.absoluteString))" } ?? "") + (bodyExcerpt.isEmpty ? "" : ": \(bodyExcerpt)")
    }
}

/// The `errors` of a GraphQL response, with what else came with them.
public struct GraphQLFailure: Sendable, Hashable, CustomStringConvertible {
    /// The errors, as the server sent them (never empty).
    public var errors: [GraphQLError]
    /// The `data` that came with them, when some fields succeeded.
    public var partialData: JSONObject?
    /// The HTTP status of the response.
    public var statusCode: Int?
    /// The operation.
    public var operationName: String?

    /// Creates a failure.
    @_spi(Engine) public init(errors: [GraphQLError], partialData: JSONObject?, statusCode: Int?, operationName: String?) {
        self.errors = errors
        self.partialData = partialData
        self.statusCode = statusCode
        self.operationName = operationName
    }

    /// The messages, joined.
    public var description: String {
        (operationName.map { "\($0): " } ?? "") + errors.map(\.description).joined(separator: "; ")
            + (partialData != nil ? " (partial data available)" : "")
    }
}

/// A response that is not what the request expected.
public struct InvalidResponse: Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Kind: Sendable, Hashable {
        /// The body is not JSON; the parser's position and message are kept.
        case notJSON(JSONParseError)
        /// JSON of the wrong shape: the field at `path` was not what the request selects.
        case wrongShape(GraphQLDecodingError)
        /// A GraphQL response with neither `data` nor `errors`.
        case noData
        /// The body is not a GraphQL response object (no `data`/`errors` object at the top).
        case notGraphQLResponse
        /// A batch of this many operations was not answered with an array of as many results
        /// (`HTTPBatching`): the server does not batch, or lost count.
        case notBatchAnswer(operations: Int)
        /// The body (or one part or event of a stream) was larger than the client reads, `limit`
        /// bytes (`maxResponseSize`, or a subscription's `maxMessageSize`): the client stopped
        /// reading it there.
        case tooLarge(limit: Int)
    }

    /// What was wrong.
    public var kind: Kind
    /// The HTTP status.
    public var statusCode: Int?
    /// The operation, or the REST path.
    public var request: String?
    /// The first bytes of the body.
    public var bodyExcerpt: String

    /// Creates a description of an invalid response.
    @_spi(Engine) public init(kind: Kind, statusCode: Int?, request: String?, bodyExcerpt: String) {
        self.kind = kind
        self.statusCode = statusCode
        self.request = request
        self.bodyExcerpt = bodyExcerpt
    }

    /// A sentence naming the request, the problem and, for a wrong shape, the field's path.
    public var description: String {
        let prefix = request.map { "\($0): " } ?? ""
        switch kind {
        case .notJSON(let error): return prefix + "body is not JSON (\(error)): \(bodyExcerpt)"
        case .wrongShape(let error): return prefix + "at \(error.path): \(error.message)"
        case .noData: return prefix + "response has no data and no errors"
        case .notGraphQLResponse: return prefix + "body is not a GraphQL response: \(bodyExcerpt)"
        case .notBatchAnswer(let operations):
            return prefix + "a batch of \(operations) operations was answered"
                + (statusCode.map { " with HTTP \($0)" } ?? "") + " without an array of \(operations) results, so the server does not "
                + "batch (turn HTTPBatching off, or allowsBatching off for this request): \(bodyExcerpt)"
        case .tooLarge(let limit):
            return prefix + "the answer is larger than the client's bound of \(limit) bytes; reading stopped there"
                + (bodyExcerpt.isEmpty ? "" : " (\(bodyExcerpt))")
        }
    }
}

/// Why a subscription's WebSocket could not go on.
public struct WebSocketFailure: Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// The server closed the socket with this code and reason: 4400 bad request, 4401
        /// unauthorized (subscribing before the ack), 4403 forbidden (`connection_init` refused), 4408
        /// no `connection_init` in time, 4409 a subscription id already in use, 4429 too many
        /// `connection_init`s, 4500 internal server error; 1xxx are the WebSocket codes.
        case closed(code: Int, reason: String)
        /// No `connection_ack` within the configured timeout.
        case ackTimeout(Duration)
        /// The server sent a message that breaks the protocol (the client closed with 4400).
        case invalidMessage(String)
        /// The server refused `connection_init` (legacy `connection_error`).
        case connectionRejected(String)
        /// The server answered the WebSocket upgrade with this HTTP status instead of `101`: 401
        /// and 403 call for new credentials, a redirect (not followed) and other 4xx will not
        /// pass, 5xx may.
        case handshakeRefused(status: Int, reason: String)
        /// Reconnecting failed this many times in a row; the last failure is kept.
        case gaveUp(attempts: Int, lastFailure: String)
    }

    /// What happened.
    public var kind: Kind
    /// The socket's URL.
    public var url: URL?

    /// Creates a failure.
    @_spi(Engine) public init(kind: Kind, url: URL?) {
        self.kind = kind
        self.url = url
    }

    /// The close code, when the server closed the socket.
    public var closeCode: Int? {
        if case .closed(let code, _) = kind { return code }
        return nil
    }

    /// What a caller can do: 4401/4403, a refused `connection_init` and an upgrade refused with 401
    /// or 403 call for new credentials; 4408, 4429, 4500, timeouts and 5xx may pass; a broken
    /// protocol and other 4xx will not.
    public var recovery: APIError.Recovery {
        switch kind {
        case .closed(let code, _):
            switch code {
            case 4401, 4403: return .reauthenticate
            case 4400, 4406, 4409: return .fail
            default: return .retry
            }
        case .connectionRejected: return .reauthenticate
        case .handshakeRefused(let status, _):
            switch status {
            case 401, 403: return .reauthenticate
            // A redirect is not followed for a WebSocket; it answers the same next time.
            case 300..<400: return .fail
            case 400..<500 where status != 408 && status != 429: return .fail
            default: return .retry
            }
        case .ackTimeout, .gaveUp: return .retry
        case .invalidMessage: return .fail
        }
    }

    /// A sentence naming the code or the problem, and the URL.
    public var description: String {
        let at = url.map { " (\($0.absoluteString))" } ?? ""
        switch kind {
        case .closed(let code, let reason):
            return "the server closed the socket with \(code)" + (reason.isEmpty ? "" : " \"\(reason)\"") + at
        case .ackTimeout(let timeout):
            return "no connection_ack within \(Int(timeout / .milliseconds(1))) ms" + at
        case .invalidMessage(let problem): return "invalid message from the server: \(problem)" + at
        case .connectionRejected(let message): return "the server refused connection_init: \(message)" + at
        case .handshakeRefused(let status, let reason):
            return "the server refused the WebSocket upgrade with HTTP \(status)" + (reason.isEmpty ? "" : " \(reason)") + at
        case .gaveUp(let attempts, let last): return "gave up after \(attempts) reconnection attempts; last: \(last)" + at
        }
    }
}
