import APICore

/// What a client made by ``APICoreLive`` has going on at one moment: for soak tests and leak
/// checks, which expect every count but ``queuedMutations`` back at zero once the app's work has
/// ended.
@_spi(Engine) public struct EngineActivity: Sendable, Hashable, CustomStringConvertible {
    /// Work that goes on after a call answered (the server half of `.cacheAndNetwork`).
    public var backgroundTasks: Int
    /// Queries waiting for the server that identical queries share.
    public var queriesInFlight: Int
    /// Operations on the subscription channel (subscriptions, and queries and mutations on it).
    public var subscriptions: Int
    /// Watchers of the cache.
    public var watchers: Int
    /// Optimistic layers over the cache (one per mutation waiting for its answer, or queued).
    public var optimisticLayers: Int
    /// Mutations waiting in the offline queue.
    public var queuedMutations: Int

    /// `name=count` for each count.
    public var description: String {
        "backgroundTasks=\(backgroundTasks) queriesInFlight=\(queriesInFlight) subscriptions=\(subscriptions) watchers=\(watchers) "
            + "optimisticLayers=\(optimisticLayers) queuedMutations=\(queuedMutations)"
    }
}

extension APICoreLive {
    /// What `client` has going on now; `nil` for a client this module did not make.
    @_spi(Engine) public static func activity(of client: any APIClient) async -> EngineActivity? {
        guard let client = client as? LiveAPIClient else { return nil }
        return await client.activity()
    }
}
