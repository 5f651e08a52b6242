import Foundation
import SharedKit

// What the app shows of households: plain values, no GraphQL type among them.

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
