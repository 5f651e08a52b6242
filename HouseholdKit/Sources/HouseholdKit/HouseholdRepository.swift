import APICore

/// Where households come from.
public protocol HouseholdRepository: Sendable {
    /// The households the signed-in user belongs to, by name.
    func households() async throws(APIError) -> [HouseholdSummary]
    /// The household with this id, or `nil` when there is none; with `refresh`, from the server
    /// even when the cache has it (after changes the app may have missed).
    func household(id: String, refresh: Bool) async throws(APIError) -> Household?
    /// The household, and again whenever the cache learns something new about it: a mutation,
    /// another query, a subscription event. Errors are elements; stop iterating to stop watching.
    func watchHousehold(id: String) -> APIStream<Result<Household?, APIError>>
    /// Each change to the household as the server announces it (a subscription). The cache is
    /// updated too, so ``watchHousehold(id:)`` follows. Stop iterating to unsubscribe.
    func householdChanges(id: String) -> APISubscription<HouseholdChange>
    /// Creates a household with the signed-in user as its owner.
    func createHousehold(name: String) async throws(APIError) -> Household
    /// Renames a household.
    func renameHousehold(id: String, to name: String) async throws(APIError) -> Household
    /// Renames a household and shows the new name at once: watchers of the household see it
    /// before the server answers (when the household is cached), the server's answer replaces
    /// it, and a refusal undoes it.
    func renameHouseholdOptimistically(id: String, to name: String) async throws(APIError) -> Household
    /// Renames a household now when the server can be reached (`.sent`, the server's answer);
    /// otherwise the rename waits in the offline queue (`.queued`, which the app can list or cancel
    /// through its `APIClient`), shown at once, and is sent when the network is back.
    func renameHouseholdOrQueue(id: String, to name: String) async throws(APIError) -> MutationOutcome<Household>
    /// Adds a user to a household.
    func addMember(toHousehold householdID: String, userID: String, displayName: String, role: MemberRole) async throws(APIError) -> Member
    /// Changes a member's name or role; `nil` keeps the current value.
    func updateMember(id: String, displayName: String?, role: MemberRole?) async throws(APIError) -> Member
    /// Changes a member's name or role and shows the change at once (as
    /// ``renameHouseholdOptimistically(id:to:)`` does); `member` is the member as the app shows it.
    func updateMemberOptimistically(_ member: Member, displayName: String?, role: MemberRole?) async throws(APIError) -> Member
    /// Changes a member's name or role now when the server can be reached; otherwise the change
    /// waits in the offline queue, shown at once.
    func updateMemberOrQueue(_ member: Member, displayName: String?, role: MemberRole?) async throws(APIError) -> MutationOutcome<Member>
    /// Removes a member.
    func removeMember(id: String) async throws(APIError)
}

extension HouseholdRepository {
    /// The household with this id, from the cache when it has it, or `nil` when there is none.
    public func household(id: String) async throws(APIError) -> Household? {
        try await household(id: id, refresh: false)
    }
}
