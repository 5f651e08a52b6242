import APICore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Follows redirects itself, the same way over every transport (a transport answers a redirect as
/// it came; URLSession's is told to follow none), so that nothing the app meant for one server
/// reaches another:
///
/// - `301`, `302`, `303`, `307` and `308` with a `Location` are followed, up to ten in a row;
///   `307` and `308` repeat the method and body, `303` (and `301`/`302` after a `POST`) asks
///   with `GET` and no body, as user agents do.
/// - To another origin (scheme, host or port), the request keeps only headers that carry no
///   credential (``forwardedAcrossOrigins``): never `Authorization`, `Cookie`, an API key or any
///   other header the app or a middleware set. Once dropped, they stay dropped for the next hops.
/// - From `https` to `http` is refused: `APIError.transport(.secureConnectionFailed)` naming both
///   URLs, with nothing sent over plain HTTP.
///
/// The request's timeout covers every hop together.
struct RedirectingTransport: HTTPTransport {
    let base: any HTTPTransport

    /// How many redirects in a row are followed.
    static let limit = 10

    /// The headers a request keeps when a redirect takes it to another origin (lower case): what
    /// the server needs to read the request, none of them a credential.
    static let forwardedAcrossOrigins: Set<String> = [
        "accept", "accept-encoding", "accept-language", "content-type", "content-language", "user-agent",
        // GraphQL servers' CSRF prevention and client awareness.
        "apollo-require-preflight", "x-apollo-operation-name", "graphql-preflight", "apollographql-client-name",
        "apollographql-client-version",
    ]

    func send(_ request: TransportRequest) async throws(APIError) -> StreamedResponse {
        var request = request
        let deadline = ContinuousClock.now + request.timeout
        for _ in 0...Self.limit {
            let answer = try await base.send(request)
            guard let next = try Self.redirect(answer.head, of: request.urlRequest) else { return answer }
            // The redirect's own body is not read: dropping it ends its exchange.
            request.urlRequest = next
            request.timeout = deadline - ContinuousClock.now
            guard request.timeout > .zero else {
                throw .transport(TransportFailure(kind: .timedOut, url: next.url, underlying: "no complete response within the request's timeout"))
            }
        }
        throw .transport(TransportFailure(
            kind: .other, url: request.urlRequest.url, underlying: "more than \(Self.limit) redirects in a row; stopped at \(Self.describe(request.urlRequest.url))"))
    }

    /// The request a redirect asks for, or `nil` when `head` is not one to follow.
    static func redirect(_ head: TransportResponse, of request: URLRequest) throws(APIError) -> URLRequest? {
        guard [301, 302, 303, 307, 308].contains(head.statusCode), let from = request.url,
            let location = head.headers.first(where: { $0.key.lowercased() == "location" })?.value,
            let target = URL(string: location, relativeTo: from)?.absoluteURL
        else { return nil }
        let scheme = target.scheme?.lowercased()
        guard scheme == "https" || scheme == "http" else {
            throw .transport(TransportFailure(
                kind: .other, url: from, underlying: "the server redirected to \(describe(target)), which is not an HTTP URL; not followed"))
        }
        if from.scheme?.lowercased() == "https" && scheme == "http" {
            throw .transport(TransportFailure(
                kind: .secureConnectionFailed, url: from,
                underlying: "the server redirected from \(describe(from)) to \(describe(target)), from https to plain http; refused"))
        }
        var next = request
        next.url = target
        let method = request.httpMethod?.uppercased() ?? "GET"
        if head.statusCode == 303 && method != "HEAD" || [301, 302].contains(head.statusCode) && method == "POST" {
            next.httpMethod = "GET"
            next.httpBody = nil
            for name in ["Content-Type", "Content-Length", "Content-Encoding", "Content-Language"] { next.setValue(nil, forHTTPHeaderField: name) }
        }
        if !sameOrigin(from, target) {
            for name in (next.allHTTPHeaderFields ?? [:]).keys where !forwardedAcrossOrigins.contains(name.lowercased()) {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return next
    }

    /// Whether two URLs share scheme, host and port (a missing port is the scheme's).
    static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int) {
            let scheme = url.scheme?.lowercased() ?? ""
            return (scheme, url.host?.lowercased() ?? "", url.port ?? (scheme == "https" ? 443 : 80))
        }
        return origin(first) == origin(second)
    }

    /// A URL without its query (which may hold a token) for an error's text.
    static func describe(_ url: URL?) -> String {
        guard let url, var parts = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return "?" }
        parts.query = nil
        parts.user = nil
        parts.password = nil
        return parts.string ?? "?"
    }
}
