import APICore
import CoreMetrics
import Foundation
import Logging

/// Logs each HTTP exchange: the request line, operation and outcome at `info` (failures at
/// `notice`), headers at `debug`, bodies at `trace`. Secrets never appear: see ``Redaction``.
struct LoggingMiddleware: Middleware {
    let logger: Logger

    func intercept(_ request: URLRequest, context: RequestContext, next: MiddlewareNext) async throws(APIError) -> TransportResponse {
        let line = "\(request.httpMethod ?? "GET") \(Redaction.url(request.url))"
        var metadata: Logger.Metadata = ["operation": "\(context.operationName)"]
        if logger.logLevel <= .debug {
            metadata["request.headers"] = "\(Redaction.headers(request.allHTTPHeaderFields ?? [:]))"
        }
        if logger.logLevel <= .trace, let body = request.httpBody {
            metadata["request.body"] = "\(Redaction.body(body))"
        }
        let start = ContinuousClock.now
        do {
            let response = try await next(request)
            var outcome = metadata
            outcome["status"] = "\(response.statusCode)"
            outcome["duration.ms"] = "\(Self.milliseconds(ContinuousClock.now - start))"
            if logger.logLevel <= .debug { outcome["response.headers"] = "\(Redaction.headers(response.headers))" }
            if logger.logLevel <= .trace { outcome["response.body"] = "\(Redaction.body(response.body))" }
            logger.info("\(line) → \(response.statusCode)", metadata: outcome)
            return response
        } catch {
            var outcome = metadata
            outcome["duration.ms"] = "\(Self.milliseconds(ContinuousClock.now - start))"
            outcome["error"] = "\(Redaction.text(error.description))"
            logger.notice("\(line) failed", metadata: outcome)
            throw error
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// Counts requests and errors by kind, and times them, per logical request (retries included).
struct MetricsMiddleware: Middleware {
    let factory: any MetricsFactory

    func intercept(_ request: URLRequest, context: RequestContext, next: MiddlewareNext) async throws(APIError) -> TransportResponse {
        let kind: String
        switch context.kind {
        case .rest: kind = "rest"
        case .graphQL(let type): kind = type.rawValue
        }
        let dimensions = [("kind", kind), ("operation", context.operationName)]
        Counter(label: "apicore_requests_total", dimensions: dimensions, factory: factory).increment()
        let start = ContinuousClock.now
        do {
            let response = try await next(request)
            Timer(label: "apicore_request_duration", dimensions: dimensions, factory: factory).recordInterval(since: start)
            return response
        } catch {
            Timer(label: "apicore_request_duration", dimensions: dimensions, factory: factory).recordInterval(since: start)
            Counter(label: "apicore_errors_total", dimensions: dimensions + [("error", Self.kind(of: error))], factory: factory).increment()
            throw error
        }
    }

    static func kind(of error: APIError) -> String {
        switch error {
        case .transport(let failure): return "transport.\(failure.kind)"
        case .cancelled: return "cancelled"
        case .unauthorized: return "unauthorized"
        case .httpStatus(let failure): return "http.\(failure.statusCode)"
        case .graphQL: return "graphql"
        case .invalidResponse: return "invalid_response"
        case .invalidRequest: return "invalid_request"
        case .mapping: return "mapping"
        case .cacheMiss: return "cache_miss"
        case .webSocket: return "websocket"
        }
    }
}

extension CoreMetrics.Timer {
    func recordInterval(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}

/// What may be logged of a request or response: never credentials.
enum Redaction {
    static let redacted = "<redacted>"
    static let secretHeaders: Set<String> = ["authorization", "cookie", "set-cookie", "proxy-authorization", "x-api-key"]

    /// Whether a JSON key names a secret: tokens, passwords, secrets, keys, cookies.
    static func isSecret(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return ["token", "password", "secret", "authorization", "cookie", "apikey", "api_key"].contains { lowered.contains($0) }
    }

    static func headers(_ headers: [String: String]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: headers.map { name, value in
            (name, secretHeaders.contains(name.lowercased()) ? redacted : value)
        })
    }

    static func url(_ url: URL?) -> String {
        guard let url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "?" }
        components.queryItems = components.queryItems?.map { isSecret($0.name) ? URLQueryItem(name: $0.name, value: redacted) : $0 }
        return components.string ?? url.absoluteString
    }

    /// A JSON body with secret fields replaced (at any depth); other bodies as text with anything
    /// that looks like `"token": "…"` replaced.
    static func body(_ data: Data) -> String {
        if let json = try? JSONParser.parse(data) { return JSONSerializer.string(redact(json)) }
        return text(String(decoding: data.prefix(4096), as: UTF8.self))
    }

    static func redact(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            return .object(Dictionary(uniqueKeysWithValues: object.map { key, value in (key, isSecret(key) ? .string(redacted) : redact(value)) }))
        case .array(let array):
            return .array(array.map(redact))
        default:
            return value
        }
    }

    /// Text (an error's description, a body excerpt) with token-like pairs and bearer values replaced.
    static func text(_ text: String) -> String {
        var result = text.replacingOccurrences(
            of: #"("?[A-Za-z_]*(?:[Tt]oken|[Pp]assword|[Ss]ecret)[A-Za-z_]*"?\s*[:=]\s*)"[^"]*""#, with: "$1\"\(redacted)\"",
            options: .regularExpression)
        result = result.replacingOccurrences(of: #"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+"#, with: "$1\(redacted)", options: .regularExpression)
        return result
    }
}
