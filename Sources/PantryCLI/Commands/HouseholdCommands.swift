import APICore
import ArgumentParser
import Foundation
import HouseholdKit
import SharedKit

struct HouseholdsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "households", abstract: "List, show, create and rename households.",
        subcommands: [List.self, Show.self, Create.self, Rename.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The households you belong to.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await Session.run(global) { session in
                let households = try await session.environment.households.households()
                let console = session.console
                if global.json {
                    console.printJSON(.array(households.map { ["id": .string($0.id), "name": .string($0.name), "members": .int($0.memberCount)] }))
                    return
                }
                console.table(["ID", "NAME", "MEMBERS"], households.map { [$0.id, $0.name, String($0.memberCount)] })
                console.print(console.dim("\(households.count) households ") + session.sources())
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A household with its members and invitations.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The household's id (see `pantry households`).") var id: String

        func run() async throws {
            try await Session.run(global) { session in
                guard let household = try await session.environment.households.household(id: id) else {
                    throw ValidationError("no household '\(id)' (see `pantry households`)")
                }
                print(household, to: session)
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a household, with you as its owner.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Its name.") var name: String

        func run() async throws {
            try await Session.run(global) { session in
                print(try await session.environment.households.createHousehold(name: name), to: session)
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a household.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The household's id.") var id: String
        @Argument(help: "The new name.") var name: String
        @Flag(help: "When the server cannot be reached, keep the rename in the offline queue (see `pantry queue`) instead of failing.")
        var queue = false

        func run() async throws {
            try await Session.run(global) { session in
                let households = session.environment.households
                guard queue else { return print(try await households.renameHousehold(id: id, to: name), to: session) }
                switch try await households.renameHouseholdOrQueue(id: id, to: name) {
                case .sent(let response): print(response.value, to: session)
                case .queued(let queued): printQueued(queued.id, "renaming \(id) to \"\(name)\"", to: session)
                }
            }
        }
    }
}

struct MembersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "members", abstract: "Add, update and remove household members.", subcommands: [Add.self, Update.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user to a household.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The household's id.") var household: String
        @Option(help: "The user's id (user-2 is Bob on the dev server).") var user: String
        @Option(help: "The name shown in the household.") var name: String
        @Option(help: "owner, adult or child.") var role: RoleArgument = .adult

        func run() async throws {
            try await Session.run(global) { session in
                let member = try await session.environment.households.addMember(
                    toHousehold: household, userID: user, displayName: name, role: role.role)
                print(member, to: session)
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a member's name or role.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The member's id (see `pantry households show`).") var member: String
        @Option(help: "A new name.") var name: String?
        @Option(help: "A new role: owner, adult or child.") var role: RoleArgument?

        func validate() throws {
            if name == nil && role == nil { throw ValidationError("say what changes: --name, --role, or both") }
        }

        func run() async throws {
            try await Session.run(global) { session in
                print(try await session.environment.households.updateMember(id: member, displayName: name, role: role?.role), to: session)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a member from their household.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The member's id.") var member: String

        func run() async throws {
            try await Session.run(global) { session in
                try await session.environment.households.removeMember(id: member)
                if global.json { session.console.printJSON(["removed": .string(member)]) } else { session.console.print("Removed \(member).") }
            }
        }
    }
}

enum RoleArgument: String, ExpressibleByArgument, CaseIterable {
    case owner, adult, child

    var role: MemberRole {
        switch self {
        case .owner: return .owner
        case .adult: return .adult
        case .child: return .child
        }
    }
}

extension MemberRole {
    var name: String {
        switch self {
        case .owner: return "owner"
        case .adult: return "adult"
        case .child: return "child"
        case .other(let raw): return raw.lowercased()
        }
    }
}

func json(_ household: Household) -> JSONValue {
    [
        "id": .string(household.id), "name": .string(household.name), "createdAt": .string(household.createdAt.iso8601),
        "monthlyBudget": household.monthlyBudget.map { .string($0.description) } ?? .null,
        "members": .array(household.members.map(json)),
        "invitations": .array(household.invitations.map { ["id": .string($0.id), "email": .string($0.email), "role": .string($0.role.name)] }),
    ]
}

func json(_ member: Member) -> JSONValue {
    ["id": .string(member.id), "userID": .string(member.userID), "displayName": .string(member.displayName), "role": .string(member.role.name)]
}

func print(_ household: Household, to session: Session) {
    let console = session.console
    if session.options.json { return console.printJSON(json(household)) }
    console.print("\(console.bold(household.name))  \(household.id)  budget \(household.monthlyBudget?.description ?? "none") \(session.sources())")
    console.table(["MEMBER", "NAME", "ROLE", "USER"], household.members.map { [$0.id, $0.displayName, $0.role.name, $0.userID] })
    if !household.invitations.isEmpty {
        console.print("Invitations: " + household.invitations.map { "\($0.email) (\($0.role.name))" }.joined(separator: ", "))
    }
}

/// A change that waits in the offline queue, and how to follow it.
func printQueued(_ id: String, _ change: String, to session: Session) {
    let console = session.console
    if session.options.json { return console.printJSON(["queued": .string(id)]) }
    console.print("Queued \(id): \(change) waits until the server can be reached (pantry queue replay).")
}

func print(_ member: Member, to session: Session) {
    let console = session.console
    if session.options.json { return console.printJSON(json(member)) }
    console.print("\(console.bold(member.displayName))  \(member.id), \(member.role.name), user \(member.userID) \(session.sources())")
}
