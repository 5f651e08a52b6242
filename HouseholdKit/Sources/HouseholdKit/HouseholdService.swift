import APICore
import Foundation
import SharedKit

/// The `HouseholdRepository` backed by an `APIClient`.
public struct HouseholdService: HouseholdRepository {
    private let client: any APIClient

    /// A service that talks through `client`. Making one does nothing else: the app calls
    /// ``registerQueuedMutations(with:)`` once at launch.
    public init(client: any APIClient) {
        self.client = client
    }

    /// Tells the client's offline queue the mutations this service may queue, so that the answers
    /// to changes an earlier launch queued reach the cache when they are sent. The app calls this
    /// once at launch, before the queue replays.
    public static func registerQueuedMutations(with queue: any OfflineMutationQueue) {
        queue.register(RenameHouseholdMutation.self)
        queue.register(UpdateMemberMutation.self)
    }

    /// `query Households`.
    public func households() async throws(APIError) -> [HouseholdSummary] {
        try await client.fetch(GraphQLRequest(HouseholdsQuery()) { data in
            data.households.map { HouseholdSummary(id: $0.id, name: $0.name, memberCount: $0.members.count) }
                .sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
        }).value
    }

    /// `query Household`: from the cache when it has it, unless `refresh` asks the server.
    public func household(id: String, refresh: Bool) async throws(APIError) -> Household? {
        let request = GraphQLRequest(HouseholdQuery(id: id)) { data in data.household.map { Household($0.fragments.householdDetails) } }
        return try await client.fetch(request, cachePolicy: refresh ? .networkOnly : .cacheElseNetwork).value
    }

    /// `query Household`, watched.
    public func watchHousehold(id: String) -> APIStream<Result<Household?, APIError>> {
        client.watch(GraphQLRequest(HouseholdQuery(id: id)) { data in data.household.map { Household($0.fragments.householdDetails) } })
            .map { result in result.map(\.value) }
    }

    /// `subscription HouseholdChanged`.
    public func householdChanges(id: String) -> APISubscription<HouseholdChange> {
        client.subscribe(GraphQLRequest(HouseholdChangedSubscription(id: id)) { data in
            let event = data.householdChanged
            return HouseholdChange(
                kind: HouseholdChange.Kind(event.kind), occurredAt: event.occurredAt,
                household: Household(event.household.fragments.householdDetails))
        })
    }

    /// `mutation CreateHousehold`.
    public func createHousehold(name: String) async throws(APIError) -> Household {
        try await client.perform(GraphQLRequest(CreateHouseholdMutation(name: name)) { data in
            Household(data.createHousehold.fragments.householdDetails)
        }).value
    }

    /// `mutation RenameHousehold`.
    public func renameHousehold(id: String, to name: String) async throws(APIError) -> Household {
        try await client.perform(GraphQLRequest(RenameHouseholdMutation(id: id, name: name)) { data in
            Household(data.updateHousehold.fragments.householdDetails)
        }).value
    }

    /// `mutation RenameHousehold`, with the cached household renamed as its optimistic response.
    public func renameHouseholdOptimistically(id: String, to name: String) async throws(APIError) -> Household {
        try await client.perform(Self.rename(id, to: name), optimisticResponse: await optimisticRename(id, to: name)).value
    }

    /// `mutation RenameHousehold`, queued when the server cannot be reached.
    public func renameHouseholdOrQueue(id: String, to name: String) async throws(APIError) -> MutationOutcome<Household> {
        try await client.performOrQueue(Self.rename(id, to: name), optimisticResponse: await optimisticRename(id, to: name))
    }

    private static func rename(_ id: String, to name: String) -> GraphQLRequest<RenameHouseholdMutation, Household> {
        GraphQLRequest(RenameHouseholdMutation(id: id, name: name)) { data in Household(data.updateHousehold.fragments.householdDetails) }
    }

    /// The household as the cache has it, renamed; `nil` when it is not cached (the rename then
    /// shows when the server answers).
    private func optimisticRename(_ id: String, to name: String) async -> RenameHouseholdMutation.Data? {
        guard let cached = try? await client.cache.readQuery(HouseholdQuery(id: id))?.household?.fragments.householdDetails else { return nil }
        return RenameHouseholdMutation.Data(updateHousehold: .init(
            id: cached.id, name: name, createdAt: cached.createdAt, monthlyBudget: cached.monthlyBudget, members: cached.members,
            invitations: cached.invitations))
    }

    /// `mutation AddMember`.
    public func addMember(toHousehold householdID: String, userID: String, displayName: String, role: MemberRole) async throws(APIError)
        -> Member
    {
        let role = try role.graphQL
        let input = HouseholdAPI.AddMemberInput(householdId: householdID, userId: userID, displayName: displayName, role: role)
        return try await client.perform(GraphQLRequest(AddMemberMutation(input: input)) { data in
            Member(data.addMember.fragments.memberDetails)
        }).value
    }

    /// `mutation UpdateMember`.
    public func updateMember(id: String, displayName: String?, role: MemberRole?) async throws(APIError) -> Member {
        try await client.perform(try Self.updateRequest(id, displayName: displayName, role: role)).value
    }

    private static func updateRequest(_ id: String, displayName: String?, role: MemberRole?) throws(APIError)
        -> GraphQLRequest<UpdateMemberMutation, Member>
    {
        let input = HouseholdAPI.UpdateMemberInput(memberId: id, displayName: GraphQLNullable(displayName), role: GraphQLNullable(try role?.graphQL))
        return GraphQLRequest(UpdateMemberMutation(input: input)) { data in Member(data.updateMember.fragments.memberDetails) }
    }

    /// `mutation UpdateMember`, with `member` changed as its optimistic response.
    public func updateMemberOptimistically(_ member: Member, displayName: String?, role: MemberRole?) async throws(APIError) -> Member {
        let (request, optimistic) = try Self.update(member, displayName: displayName, role: role)
        return try await client.perform(request, optimisticResponse: optimistic).value
    }

    /// `mutation UpdateMember`, queued when the server cannot be reached.
    public func updateMemberOrQueue(_ member: Member, displayName: String?, role: MemberRole?) async throws(APIError) -> MutationOutcome<Member> {
        let (request, optimistic) = try Self.update(member, displayName: displayName, role: role)
        return try await client.performOrQueue(request, optimisticResponse: optimistic)
    }

    /// The request to change a member, and the member changed as the server will answer.
    private static func update(_ member: Member, displayName: String?, role: MemberRole?) throws(APIError)
        -> (GraphQLRequest<UpdateMemberMutation, Member>, UpdateMemberMutation.Data)
    {
        let request = try updateRequest(member.id, displayName: displayName, role: role)
        let changed = UpdateMemberMutation.Data.UpdateMember(
            id: member.id, userId: member.userID, displayName: displayName ?? member.displayName,
            role: try (role ?? member.role).graphQL, joinedAt: member.joinedAt)
        return (request, UpdateMemberMutation.Data(updateMember: changed))
    }

    /// `mutation RemoveMember`.
    public func removeMember(id: String) async throws(APIError) {
        _ = try await client.perform(RemoveMemberMutation(memberId: id))
    }
}
