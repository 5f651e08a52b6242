import APICore
import Foundation
import SharedKit

/// A household in a list: enough to show and pick it.
public struct HouseholdSummary: Sendable, Hashable, Identifiable {
    /// The household's id.
    public var id: String
    /// Its name.
    public var name: String
    /// How many members it has.
    public var memberCount: Int

    /// Creates a summary.
    public init(id: String, name: String, memberCount: Int) {
        self.id = id
        self.name = name
        self.memberCount = memberCount
    }
}

/// A group of people who share a pantry, in full.
public struct Household: Sendable, Hashable, Identifiable {
    /// The household's id.
    public var id: String
    /// Its name.
    public var name: String
    /// When it was created.
    public var createdAt: DateTime
    /// What it means to spend each month, if it set a budget.
    public var monthlyBudget: Money?
    /// The people in it.
    public var members: [Member]
    /// Invitations to join it.
    public var invitations: [Invitation]

    /// Creates a household.
    public init(id: String, name: String, createdAt: DateTime, monthlyBudget: Money?, members: [Member], invitations: [Invitation]) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.monthlyBudget = monthlyBudget
        self.members = members
        self.invitations = invitations
    }
}

/// A member's part in a household.
public enum MemberRole: Sendable, Hashable {
    /// Runs the household.
    case owner
    /// A grown-up member.
    case adult
    /// A child.
    case child
    /// A role this version of the app does not know, as the server named it.
    case other(String)
}

/// A person in a household.
public struct Member: Sendable, Hashable, Identifiable {
    /// The member's id (not the user's).
    public var id: String
    /// The user this member is.
    public var userID: String
    /// The name shown in the household.
    public var displayName: String
    /// The member's part.
    public var role: MemberRole
    /// When they joined.
    public var joinedAt: DateTime

    /// Creates a member.
    public init(id: String, userID: String, displayName: String, role: MemberRole, joinedAt: DateTime) {
        self.id = id
        self.userID = userID
        self.displayName = displayName
        self.role = role
        self.joinedAt = joinedAt
    }
}

/// An invitation to join a household.
public struct Invitation: Sendable, Hashable, Identifiable {
    /// Where an invitation stands.
    public enum Status: Sendable, Hashable {
        /// Not answered yet.
        case pending
        /// Accepted.
        case accepted
        /// Declined.
        case declined
        /// No longer valid.
        case expired
        /// A status this version of the app does not know.
        case other(String)
    }

    /// The invitation's id.
    public var id: String
    /// Who was invited.
    public var email: String
    /// The role they would have.
    public var role: MemberRole
    /// Where it stands.
    public var status: Status
    /// When it stops being valid.
    public var expiresAt: DateTime
}

/// Something that happened to a household, as the server announced it.
public struct HouseholdChange: Sendable, Hashable {
    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// Its name or budget changed.
        case updated
        /// Someone joined.
        case memberAdded
        /// A member's name or role changed.
        case memberUpdated
        /// Someone left.
        case memberRemoved
        /// A kind of change this version of the app does not know, as the server named it.
        case other(String)
    }

    /// What happened.
    public var kind: Kind
    /// When it happened.
    public var occurredAt: DateTime
    /// The household as it is after the change.
    public var household: Household

    /// Creates a change.
    public init(kind: Kind, occurredAt: DateTime, household: Household) {
        self.kind = kind
        self.occurredAt = occurredAt
        self.household = household
    }
}

/// What became of a change made while the network may be away.
public enum QueuedChange<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The server took it, and answered this.
    case saved(Value)
    /// It waits in the offline queue, under this id (the app can list or cancel it through its
    /// `APIClient`); watchers already show it, and show the server's answer once it is sent.
    case queued(id: String)
}

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
    /// Renames a household now when the server can be reached; otherwise the rename waits in the
    /// offline queue, shown at once, and is sent when the network is back.
    func renameHouseholdOrQueue(id: String, to name: String) async throws(APIError) -> QueuedChange<Household>
    /// Adds a user to a household.
    func addMember(toHousehold householdID: String, userID: String, displayName: String, role: MemberRole) async throws(APIError) -> Member
    /// Changes a member's name or role; `nil` keeps the current value.
    func updateMember(id: String, displayName: String?, role: MemberRole?) async throws(APIError) -> Member
    /// Changes a member's name or role and shows the change at once (as
    /// ``renameHouseholdOptimistically(id:to:)`` does); `member` is the member as the app shows it.
    func updateMemberOptimistically(_ member: Member, displayName: String?, role: MemberRole?) async throws(APIError) -> Member
    /// Changes a member's name or role now when the server can be reached; otherwise the change
    /// waits in the offline queue, shown at once.
    func updateMemberOrQueue(_ member: Member, displayName: String?, role: MemberRole?) async throws(APIError) -> QueuedChange<Member>
    /// Removes a member.
    func removeMember(id: String) async throws(APIError)
}

extension HouseholdRepository {
    /// The household with this id, from the cache when it has it, or `nil` when there is none.
    public func household(id: String) async throws(APIError) -> Household? {
        try await household(id: id, refresh: false)
    }
}

/// The `HouseholdRepository` backed by an `APIClient`.
public struct HouseholdService: HouseholdRepository {
    private let client: any APIClient

    /// A service that talks through `client`, which learns the mutations it may queue (so that
    /// their answers reach the cache when an earlier launch queued them).
    public init(client: any APIClient) {
        self.client = client
        client.offlineQueue.register(RenameHouseholdMutation.self)
        client.offlineQueue.register(UpdateMemberMutation.self)
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
    public func renameHouseholdOrQueue(id: String, to name: String) async throws(APIError) -> QueuedChange<Household> {
        switch try await client.performOrQueue(Self.rename(id, to: name), optimisticResponse: await optimisticRename(id, to: name)) {
        case .sent(let response): return .saved(response.value)
        case .queued(let queued): return .queued(id: queued.id)
        }
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
    public func updateMemberOrQueue(_ member: Member, displayName: String?, role: MemberRole?) async throws(APIError) -> QueuedChange<Member> {
        let (request, optimistic) = try Self.update(member, displayName: displayName, role: role)
        switch try await client.performOrQueue(request, optimisticResponse: optimistic) {
        case .sent(let response): return .saved(response.value)
        case .queued(let queued): return .queued(id: queued.id)
        }
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

extension Household {
    init(_ details: HouseholdDetails) {
        self.init(
            id: details.id, name: details.name, createdAt: details.createdAt,
            monthlyBudget: details.monthlyBudget.map { Money(amount: $0.amount, currency: $0.currency) },
            members: details.members.map { Member($0.fragments.memberDetails) },
            invitations: details.invitations.map { invitation in
                Invitation(
                    id: invitation.id, email: invitation.email, role: MemberRole(invitation.role),
                    status: Invitation.Status(invitation.status), expiresAt: invitation.expiresAt)
            })
    }
}

extension Member {
    init(_ details: MemberDetails) {
        self.init(
            id: details.id, userID: details.userId, displayName: details.displayName, role: MemberRole(details.role),
            joinedAt: details.joinedAt)
    }
}

extension MemberRole {
    init(_ role: GraphQLEnum<HouseholdAPI.MemberRole>) {
        switch role {
        case .case(.owner): self = .owner
        case .case(.adult): self = .adult
        case .case(.child): self = .child
        case .unknown(let raw): self = .other(raw)
        }
    }

    /// The role as the server names it; a role the server does not know cannot be sent.
    var graphQL: GraphQLEnum<HouseholdAPI.MemberRole> {
        get throws(APIError) {
            switch self {
            case .owner: return .case(.owner)
            case .adult: return .case(.adult)
            case .child: return .case(.child)
            case .other(let raw): throw .invalidRequest("unknown member role '\(raw)'")
            }
        }
    }
}

extension HouseholdChange.Kind {
    init(_ kind: GraphQLEnum<HouseholdAPI.HouseholdEventKind>) {
        switch kind {
        case .case(.updated): self = .updated
        case .case(.memberAdded): self = .memberAdded
        case .case(.memberUpdated): self = .memberUpdated
        case .case(.memberRemoved): self = .memberRemoved
        case .unknown(let raw): self = .other(raw)
        }
    }
}

extension Invitation.Status {
    init(_ status: GraphQLEnum<HouseholdAPI.InvitationStatus>) {
        switch status {
        case .case(.pending): self = .pending
        case .case(.accepted): self = .accepted
        case .case(.declined): self = .declined
        case .case(.expired): self = .expired
        case .unknown(let raw): self = .other(raw)
        }
    }
}
