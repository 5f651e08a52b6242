import APICore
import Foundation

/// Adds the bearer token; on 401 or `UNAUTHENTICATED`, gets a new token (one refresh for every
/// request waiting at that moment) and tries each request once more.
struct BearerAuthMiddleware: Middleware {
    let authentication: BearerAuthentication
    let refresher: TokenRefresher

    func intercept(_ request: URLRequest, context: RequestContext, next: MiddlewareNext) async throws(APIError) -> TransportResponse {
        let token = await authentication.store.token()
        do {
            return try await next(Self.authorize(request, with: token))
        } catch where error.recovery == .reauthenticate {
            guard let token else { throw error }
            let refused = error
            let fresh: AuthToken
            do throws(APIError) {
                fresh = try await refresher.refresh(stale: token)
            } catch {
                throw Self.refusal(error, after: refused)
            }
            return try await next(Self.authorize(request, with: fresh))
        }
    }

    /// What stands when the token could not be refreshed: the refresher's `.unauthorized`, which
    /// says why, carrying the server's own 401 (headers, body, URL) when that is what refused the
    /// request, so that a request that accepts any status reads the server's answer.
    static func refusal(_ failure: APIError, after refused: APIError) -> APIError {
        guard case .unauthorized(var reason) = failure, case .unauthorized(let answer) = refused else { return failure }
        reason.headers = answer.headers
        reason.body = answer.body
        reason.url = answer.url
        return .unauthorized(reason)
    }

    static func authorize(_ request: URLRequest, with token: AuthToken?) -> URLRequest {
        guard let token else { return request }
        var request = request
        request.setValue("Bearer \(token.accessToken)", forHTTPHeaderField: "Authorization")
        return request
    }
}

/// One refresh at a time: requests that find a refresh under way wait for it; requests whose
/// stale token was already replaced use the new one.
actor TokenRefresher {
    let authentication: BearerAuthentication
    let client: any APIClient
    private var inFlight: Task<Result<AuthToken, APIError>, Never>?

    init(authentication: BearerAuthentication, client: any APIClient) {
        self.authentication = authentication
        self.client = client
    }

    /// Refreshes the token the store holds now (for a socket the server refused).
    func refreshCurrent() async throws(APIError) {
        guard let stale = await authentication.store.token() else {
            throw .unauthorized(HTTPFailure(statusCode: 401, headers: [:], body: Data("no token to refresh; sign in again".utf8), url: nil))
        }
        _ = try await refresh(stale: stale)
    }

    func refresh(stale: AuthToken) async throws(APIError) -> AuthToken {
        if let inFlight { return try await inFlight.value.get() }
        if let current = await authentication.store.token(), current.accessToken != stale.accessToken { return current }
        if let inFlight { return try await inFlight.value.get() }  // one may have started while we looked
        let authentication = self.authentication
        let client = self.client
        let task = Task { () -> Result<AuthToken, APIError> in
            do throws(APIError) {
                let fresh = try await authentication.refresh(stale, client)
                await authentication.store.setToken(fresh)
                return .success(fresh)
            } catch {
                await authentication.store.clear()
                let reason = "the token could not be refreshed (\(error)); sign in again"
                return .failure(.unauthorized(HTTPFailure(statusCode: 401, headers: [:], body: Data(reason.utf8), url: nil)))
            }
        }
        inFlight = task
        let result = await task.value
        inFlight = nil
        return try result.get()
    }
}

/// A cookie session: sends the storage's cookies for the URL and keeps what `Set-Cookie` answers.
struct CookieMiddleware: Middleware {
    let storage: HTTPCookieStorage

    func intercept(_ request: URLRequest, context: RequestContext, next: MiddlewareNext) async throws(APIError) -> TransportResponse {
        guard let url = request.url else { return try await next(request) }
        var request = request
        if let cookies = storage.cookies(for: url), !cookies.isEmpty {
            for (name, value) in HTTPCookie.requestHeaderFields(with: cookies) { request.setValue(value, forHTTPHeaderField: name) }
        }
        do {
            let response = try await next(request)
            keep(response.headers, from: url)
            return response
        } catch {
            if case .unauthorized(let failure) = error { keep(failure.headers, from: url) }
            if case .httpStatus(let failure) = error { keep(failure.headers, from: url) }
            throw error
        }
    }

    private func keep(_ headers: [String: String], from url: URL) {
        guard let setCookie = headers["set-cookie"] else { return }
        let cookies = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": setCookie], for: url)
        storage.setCookies(cookies, for: url, mainDocumentURL: nil)
    }
}
