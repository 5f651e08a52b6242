import APICore
import APICoreSupport
import Foundation

/// An access token, and what is needed to get the next one.
public struct AuthToken: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Sent as `Authorization: Bearer …`.
    public var accessToken: String
    /// Exchanged for a new access token when the server says the old one is stale.
    public var refreshToken: String?
    /// When the access token stops being valid, if the server said.
    public var expiresAt: Date?

    /// Creates a token.
    public init(accessToken: String, refreshToken: String? = nil, expiresAt: Date? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    /// Never the secrets themselves: tokens must not reach logs.
    public var description: String { "AuthToken(access: <redacted>, refresh: \(refreshToken == nil ? "none" : "<redacted>"))" }
}

/// Where the app keeps its token.
public protocol TokenStore: Sendable {
    /// The current token, if any.
    func token() async -> AuthToken?
    /// Replaces the token.
    func setToken(_ token: AuthToken) async
    /// Forgets the token (logging out, or a refresh that failed).
    func clear() async
}

/// A token kept in memory for the life of the process.
public actor InMemoryTokenStore: TokenStore {
    private var current: AuthToken?

    /// A store holding `token`, if given.
    public init(_ token: AuthToken? = nil) { current = token }

    /// The current token.
    public func token() -> AuthToken? { current }
    /// Replaces the token.
    public func setToken(_ token: AuthToken) { current = token }
    /// Forgets the token.
    public func clear() { current = nil }
}

/// A token kept in a JSON file readable by the owner only (mode 0600), for command-line apps and
/// Linux; on Apple platforms prefer a Keychain-backed store.
public actor FileTokenStore: TokenStore {
    private let url: URL

    /// A store in the file at `url` (its folder is created when needed).
    public init(url: URL) { self.url = url }

    /// The token in the file, or `nil` when there is none or it cannot be read.
    public func token() -> AuthToken? { try? load() }

    /// The token in the file, `nil` when there is no file; throws when the file is there but
    /// cannot be read or does not hold a token, so that an app can say which.
    public func load() throws -> AuthToken? {
        // Read first, then ask why it failed: `fileExists` says "no" for a link that cannot be
        // followed, and a token file that is there but unreadable must not pass for no token.
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch CocoaError.fileReadNoSuchFile {
            return nil
        }
        return try JSONDecoder().decode(AuthToken.self, from: data)
    }

    /// Writes the token, owner-only; a failure is ignored (the token lives on in the client).
    /// ``save(_:)`` says why it failed.
    public func setToken(_ token: AuthToken) { try? save(token) }

    /// Writes the token, owner-only, creating the folder when needed; throws when it cannot.
    public func save(_ token: AuthToken) throws {
        let data = try JSONEncoder().encode(token)
        try PrivateFiles.createFolder(url.deletingLastPathComponent())
        try PrivateFiles.write(data, to: url)
    }

    /// Removes the file.
    public func clear() { try? FileManager.default.removeItem(at: url) }
}

/// Bearer tokens: added to every request, refreshed once for everyone when the server answers 401
/// (or a GraphQL error with code `UNAUTHENTICATED`).
public struct BearerAuthentication: Sendable {
    /// Gets a new token for a stale one. `client` is the same client without authentication (and
    /// without retries), for calling the refresh endpoint. Throwing clears the stored token.
    public typealias Refresh = @Sendable (_ stale: AuthToken, _ client: any APIClient) async throws(APIError) -> AuthToken

    /// Where the token is.
    public var store: any TokenStore
    /// How a new token is obtained.
    public var refresh: Refresh

    /// Bearer authentication with this store and refresh.
    public init(store: any TokenStore, refresh: @escaping Refresh) {
        self.store = store
        self.refresh = refresh
    }
}

/// How requests are authenticated.
public enum Authentication: Sendable {
    /// `Authorization: Bearer …` from a token store, refreshed on 401 / `UNAUTHENTICATED`.
    case bearer(BearerAuthentication)
    /// A cookie session: cookies for the endpoint from this storage (the app's, or its own jar),
    /// and `Set-Cookie` answers stored back into it.
    case cookies(HTTPCookieStorage)
}

/// When and how often a failed request is tried again: only an idempotent one, and only when its
/// error's ``APIError/recovery`` is `.retry` (a connection failure, a timeout, a status such as 503).
public struct RetryPolicy: Sendable, Hashable {
    /// The most attempts in all, the first one included.
    public var maxAttempts: Int
    /// The wait before the second attempt.
    public var initialDelay: Duration
    /// Each wait is the previous one times this.
    public var multiplier: Double
    /// No wait is longer than this (a `Retry-After` too).
    public var maxDelay: Duration
    /// Each wait varies randomly by up to this fraction (0.2 = ±20 %).
    public var jitter: Double
    /// No retry starts once this much time has passed since the first attempt.
    public var maxTotalTime: Duration
    /// HTTP statuses worth another try, among those whose recovery is `.retry` (listing 400 here
    /// does not make it retried).
    public var retryableStatusCodes: Set<Int>

    /// A policy.
    public init(
        maxAttempts: Int = 3, initialDelay: Duration = .milliseconds(300), multiplier: Double = 2, maxDelay: Duration = .seconds(10),
        jitter: Double = 0.2, maxTotalTime: Duration = .seconds(30), retryableStatusCodes: Set<Int> = [408, 429, 502, 503, 504]
    ) {
        self.maxAttempts = maxAttempts
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.maxTotalTime = maxTotalTime
        self.retryableStatusCodes = retryableStatusCodes
    }

    /// Three attempts, 300 ms then 600 ms (±20 %), at most 30 s in all, on connectivity errors,
    /// 408, 429 and 502–504. Idempotent requests only: queries, GET/HEAD/PUT/DELETE, and
    /// mutations that opt in with `isIdempotent = true`.
    public static let `default` = RetryPolicy()

    /// The wait before attempt `attempt + 1` (attempt counts from 1), jitter included.
    public func delay(after attempt: Int) -> Duration {
        let base = initialDelay * pow(multiplier, Double(attempt - 1))
        let factor = 1 + Double.random(in: -jitter...jitter)
        return min(base * factor, maxDelay)
    }
}
