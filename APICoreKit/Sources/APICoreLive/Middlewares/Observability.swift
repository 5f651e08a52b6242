@_spi(Tools) import APICore
import CoreMetrics
import Foundation
import Logging

/// Logs each HTTP exchange: the request line, operation and outcome at `info` (failures at
/// `notice`), headers at `debug`, bodies at `trace`. Secrets never appear: see ``Redaction``.
struct LoggingMiddleware: Middleware {
    let logger: Logger

    func intercept(_ request: URLRequest, context: RequestContext, next: MiddlewareNext) async throws(APIError) -> TransportResponse {
        // Nothing is formatted or redacted unless it will be logged: with logging off, a failed
        // request costs no more than a successful one.
        guard logger.logLevel <= .notice else { return try await next(request) }
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
            guard logger.logLevel <= .info else { return response }
            var outcome = metadata
            outcome["status"] = "\(response.statusCode)"
            outcome["duration.ms"] = "\(Self.milliseconds(ContinuousClock.now - start))"
            if logger.logLevel <= .debug { outcome["response.headers"] = "\(Redaction.headers(response.headers))" }
            if logger.logLevel <= .trace { outcome["response.body"] = "\(Redaction.body(response.body))" }
            logger.info("\(Self.requestLine(request)) → \(response.statusCode)", metadata: outcome)
            return response
        } catch {
            var outcome = metadata
            outcome["duration.ms"] = "\(Self.milliseconds(ContinuousClock.now - start))"
            outcome["error"] = "\(Redaction.text(error.description))"
            logger.notice("\(Self.requestLine(request)) failed", metadata: outcome)
            throw error
        }
    }

    /// `METHOD url`, the URL redacted and cut to an excerpt.
    static func requestLine(_ request: URLRequest) -> String {
        "\(request.httpMethod ?? "GET") \(Redaction.text(Redaction.url(request.url)))"
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

    /// The most of a text that is kept for a log line; the rest is counted, not shown.
    static let textLimit = 2_048

    /// Text (an error's description, a body excerpt) cut to ``textLimit`` characters, with the
    /// values of token-like pairs (`"accessToken": "…"`, `password=…`) and bearer credentials
    /// replaced. One pass over the text, so its time is linear in the text's length whatever the
    /// text holds; a value cut off by the limit is redacted to the end.
    static func text(_ text: String) -> String {
        var utf8 = Array(text.utf8.prefix(textLimit * 4))
        var omitted = text.utf8.count - utf8.count
        if utf8.count > textLimit {
            // Cut on a character boundary: never inside a UTF-8 sequence.
            var cut = textLimit
            while cut > 0 && utf8[cut] & 0xC0 == 0x80 { cut -= 1 }
            omitted += utf8.count - cut
            utf8.removeSubrange(cut...)
        }
        var out = redactPairs(utf8)
        if omitted > 0 { out.append(contentsOf: "… (\(omitted) more bytes)".utf8) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The redaction of ``text(_:)``, on bytes: after a word naming a secret (token, password,
    /// secret), an optional closing quote, `:` or `=`, the value (quoted, or up to a delimiter) is
    /// replaced; after the word `bearer`, the credential is.
    private static func redactPairs(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard isWordByte(bytes[index]) else {
                out.append(bytes[index])
                index += 1
                continue
            }
            let wordStart = index
            while index < bytes.count && isWordByte(bytes[index]) { index += 1 }
            let word = bytes[wordStart..<index]
            out.append(contentsOf: word)
            if isBearer(word) {
                var cursor = index
                while cursor < bytes.count && isSpace(bytes[cursor]) { cursor += 1 }
                guard cursor > index, cursor < bytes.count, isCredentialByte(bytes[cursor]) else { continue }
                out.append(contentsOf: bytes[index..<cursor])
                out.append(contentsOf: redacted.utf8)
                index = cursor
                while index < bytes.count && isCredentialByte(bytes[index]) { index += 1 }
            } else if namesSecret(word) {
                // The separator: an optional closing quote, spaces, ':' or '=', spaces.
                var cursor = index
                if cursor < bytes.count && bytes[cursor] == UInt8(ascii: "\"") { cursor += 1 }
                while cursor < bytes.count && isSpace(bytes[cursor]) { cursor += 1 }
                guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: ":") || bytes[cursor] == UInt8(ascii: "=") else { continue }
                cursor += 1
                while cursor < bytes.count && isSpace(bytes[cursor]) { cursor += 1 }
                out.append(contentsOf: bytes[index..<cursor])
                index = cursor
                if index < bytes.count && bytes[index] == UInt8(ascii: "\"") {
                    // A quoted value: to the closing quote, or to the end when it was cut off.
                    index += 1
                    while index < bytes.count && bytes[index] != UInt8(ascii: "\"") {
                        index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                    }
                    out.append(contentsOf: "\"\(redacted)\"".utf8)
                    index = min(index + 1, bytes.count)
                } else {
                    // A bare value (a query string, a form body): to the next delimiter.
                    let valueStart = index
                    while index < bytes.count && !isValueDelimiter(bytes[index]) { index += 1 }
                    if index > valueStart { out.append(contentsOf: redacted.utf8) }
                }
            }
        }
        return out
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// The characters of a bearer credential (RFC 6750's b64token).
    private static func isCredentialByte(_ byte: UInt8) -> Bool {
        isWordByte(byte) || (byte >= 0x30 && byte <= 0x39) || ".~+/=-".utf8.contains(byte)
    }

    private static func isValueDelimiter(_ byte: UInt8) -> Bool {
        isSpace(byte) || "&,;\"'}])".utf8.contains(byte)
    }

    private static func isBearer(_ word: ArraySlice<UInt8>) -> Bool {
        word.count == 6 && String(decoding: word, as: UTF8.self).lowercased() == "bearer"
    }

    /// Whether a word names a secret; short words only, so the check stays cheap on long runs of letters.
    private static func namesSecret(_ word: ArraySlice<UInt8>) -> Bool {
        guard word.count <= 64 else { return false }
        let lowered = String(decoding: word, as: UTF8.self).lowercased()
        return lowered.contains("token") || lowered.contains("password") || lowered.contains("secret")
    }
}
