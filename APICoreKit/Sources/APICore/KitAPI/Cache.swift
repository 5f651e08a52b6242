import Foundation

/// Where a query's data may come from, with Apollo's meanings.
public enum CachePolicy: Sendable, Hashable {
    /// The cache when it has every field (and none is expired), else the server. The default.
    case cacheElseNetwork
    /// Always the server; the answer is still written to the cache.
    case networkOnly
    /// Always the server; the cache is neither read nor written.
    case noCache
    /// Only the cache; a miss is an error, and expired data is returned flagged as stale.
    case cacheOnly
    /// The cache first when it has the data, then the server: up to two results.
    case cacheAndNetwork

    /// `cacheElseNetwork`.
    public static let `default` = CachePolicy.cacheElseNetwork
}
