import APICore
import APICoreLive
import APICoreTestServer
import Foundation

/// The fault matrix's rows as data: what each channel does with each failure over each transport,
/// written down before the run (``FaultMatrix/expected(_:_:_:)``) and compared with what it did.
enum FaultMatrix {
    /// The ways into the exchange.
    enum Channel: String, CaseIterable, Sendable {
        case query
        case mutation
        case webSocket = "WebSocket"
        case serverSentEvents = "graphql-sse"
        case multipart

        var isSubscription: Bool { self != .query && self != .mutation }

        /// The kind of `/flood` answer that is endless on this channel.
        var floodKind: String {
            switch self {
            case .query, .mutation, .webSocket: "json"
            case .serverSentEvents: "sse"
            case .multipart: "multipart"
            }
        }
    }

    /// The failures, of the certificate, the path and the server.
    enum Fault: String, CaseIterable, Sendable {
        case wrongHost = "wrong host"
        case expired = "expired"
        case selfSigned = "self-signed"
        case unknownCA = "unknown CA"
        case pinMismatch = "pin mismatch"
        case downgrade = "https→http redirect"
        case crossOrigin = "cross-origin redirect"
        case endlessBody = "endless body"
        case overBound = "over the bound"
        case status500 = "500"
        case status503 = "503 + Retry-After: 1"
        case reset = "reset mid-body"
        case restarted = "killed, restarted"

        /// The server speaks TLS.
        var isSecure: Bool { [.wrongHost, .expired, .selfSigned, .unknownCA, .pinMismatch, .downgrade].contains(self) }
        /// The client refuses the server's certificate or key before sending anything.
        var isRefusal: Bool { isSecure && self != .downgrade }
    }

    /// What a cell must show.
    struct Expected: Sendable {
        /// ``FaultMatrix/name(_:)`` of the error, `ok`, or `resumed`.
        var result: String
        /// The error's recovery (`nil` when there is no error).
        var recovery: APIError.Recovery?
        /// How many attempts reach the server (connections for a refused certificate, requests and
        /// upgrades otherwise).
        var tries: ClosedRange<Int>
        /// Words the error's description carries.
        var words: String?
    }

    /// The policy of both retries and reconnection in the matrix: two attempts, the statuses of the
    /// default policy (503, not 500), a `Retry-After` up to 2 s honoured.
    static let policy = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(20), maxDelay: .seconds(2), jitter: 0, maxTotalTime: .seconds(20))
    /// Reconnection while a killed server comes back: up to 40 attempts, 50 ms to 250 ms apart.
    static let patient = RetryPolicy(maxAttempts: 40, initialDelay: .milliseconds(50), maxDelay: .milliseconds(250), maxTotalTime: .seconds(30))
    /// The bound of an answer and of a subscription's message.
    static let bound = 1 << 20

    /// What `channel` over `transport` does with `fault`, or why the cell cannot apply.
    static func expected(_ transport: TestTransport, _ channel: Channel, _ fault: Fault) -> Result<Expected, NotApplicable> {
        // The WebSocket has one transport (NIO, with its own trust), whichever the HTTP one is.
        let nio = transport == .asyncHTTPClient || channel == .webSocket
        let refused = "secureConnectionFailed"
        switch fault {
        case .wrongHost, .expired, .selfSigned, .unknownCA:
            // One connection to try; NIO opens a second one to read the certificate and say why.
            guard nio else {
                // URLSession on Linux cannot be given the test's root, so libcurl refuses the chain
                // first, whose root (sent by the server) it does not know.
                return .success(Expected(result: refused, recovery: .fail, tries: 1...1, words: "self-signed certificate"))
            }
            let words = [Fault.wrongHost: "not for 127.0.0.1; it names api.example.org", .expired: "expired", .selfSigned: "self-signed"]
            return .success(Expected(result: refused, recovery: .fail, tries: 1...2, words: words[fault] ?? "does not chain to the 1 added roots"))
        case .pinMismatch:
            guard nio else {
                return .success(Expected(result: refused, recovery: .fail, tries: 0...0, words: "AsyncHTTPClientTransport"))
            }
            return .success(Expected(result: refused, recovery: .fail, tries: 1...2, words: "pin"))
        case .downgrade:
            if channel == .webSocket {
                return .failure(NotApplicable(
                    "the WebSocket follows no redirect, from https or not (the cross-origin row: refused with the 307, recovery fail); the test server cannot answer a TLS upgrade with a status"))
            }
            guard nio else {
                return .failure(NotApplicable(
                    "URLSession on Linux cannot trust the test's root, so no https answer reaches it; the rule is RedirectingTransport's, the same over both transports"))
            }
            return .success(Expected(result: refused, recovery: .fail, tries: 1...1, words: "from https to plain http; refused"))
        case .crossOrigin:
            if channel == .webSocket { return .success(Expected(result: "upgrade refused 307", recovery: .fail, tries: 1...1, words: "HTTP 307")) }
            return .success(Expected(result: "ok", recovery: nil, tries: 1...1))
        case .endlessBody, .overBound:
            return .success(Expected(result: "tooLarge", recovery: .fail, tries: 1...1, words: "bound of \(bound) bytes"))
        case .status500:
            // The error could heal, but the policy does not list 500 (a server bug repeats).
            if channel == .webSocket { return .success(Expected(result: "upgrade refused 500", recovery: .retry, tries: 1...1, words: "HTTP 500")) }
            return .success(Expected(result: "HTTP 500", recovery: .retry, tries: 1...1))
        case .status503:
            let tries = channel == .mutation ? 1...1 : 2...2  // a mutation is not idempotent
            // The WebSocket's wait is the policy's: NIO's upgrade hands over the status, not the headers.
            if channel == .webSocket { return .success(Expected(result: "gaveUp", recovery: .retry, tries: tries, words: "HTTP 503")) }
            return .success(Expected(result: "HTTP 503", recovery: .retry, tries: tries))
        case .reset:
            let tries = channel == .mutation ? 1...1 : 2...2
            if channel == .webSocket { return .success(Expected(result: "gaveUp", recovery: .retry, tries: tries)) }
            return .success(Expected(result: "connectionLost", recovery: .retry, tries: tries))
        case .restarted:
            // Requests fail while the port refuses (retried, then said); subscriptions reconnect and
            // resume once it is back. Tries: attempts that reached the restarted server.
            if channel.isSubscription { return .success(Expected(result: "resumed", recovery: nil, tries: 1...1)) }
            return .success(Expected(result: "connectionRefused, then ok", recovery: .retry, tries: 1...1, words: "nothing accepts connections"))
        }
    }

    /// Why a cell does not apply.
    struct NotApplicable: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// A short name for an error, for the table: the transport failure's kind, `HTTP <status>`,
    /// `tooLarge`, `upgrade refused <status>`, `gaveUp`.
    static func name(_ error: APIError) -> String {
        switch error {
        case .transport(let failure): return "\(failure.kind)".split(separator: ".").last.map(String.init) ?? "transport"
        case .httpStatus(let failure), .unauthorized(let failure): return "HTTP \(failure.statusCode)"
        case .invalidResponse(let failure):
            if case .tooLarge = failure.kind { return "tooLarge" }
            return "invalidResponse"
        case .webSocket(let failure):
            switch failure.kind {
            case .handshakeRefused(let status, _): return "upgrade refused \(status)"
            case .gaveUp: return "gaveUp"
            default: return "webSocket"
            }
        case .graphQL: return "graphQL"
        default: return "\(error)"
        }
    }
}
