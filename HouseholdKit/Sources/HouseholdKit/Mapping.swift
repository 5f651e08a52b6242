import APICore
import SharedKit

// From the generated data to the app's values, and the app's roles back to the schema's enum.

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
