import APICore
import ArgumentParser
import Foundation
import UserKit

struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Log in and keep the token for the next commands (with --endpoint).")

    @OptionGroup var global: GlobalOptions
    @Option(help: "The account's email.") var email: String = Session.demoEmail
    @Option(help: "The password (the dev server's users have \"pantry\").") var password: String = "pantry"

    func run() async throws {
        try await Session.run(global, signIn: false) { session in
            try await session.logIn(email: email, password: password)
            let user = try await session.environment.users.currentUser()
            let console = session.console
            if global.json {
                console.printJSON(["loggedIn": true, "email": .string(user?.email ?? email)])
            } else {
                console.print("Logged in as \(console.bold(user?.displayName ?? email)) <\(user?.email ?? email)> \(session.sources())")
                if session.embedded != nil {
                    console.note(console.dim("  (the embedded server is new on every run; use --endpoint to keep a session)"))
                }
            }
        }
    }
}

struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Log out and clear the cache.",
        discussion: """
            Changes waiting in the offline queue are sent first, while the session can still send them; those that cannot be sent are dropped, and the count is said, so that nobody else's session sends them later.
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await Session.run(global, signIn: false) { session in
            let client = session.environment.client
            await client.offlineQueue.replay()
            _ = try? await session.recorder.send(RESTRequest<EmptyResponse>(method: .post, path: "auth/logout"))
            await session.tokens.clear()
            try await client.cache.clear()
            let dropped = try await client.offlineQueue.mutations()
            for mutation in dropped { try await client.offlineQueue.cancel(id: mutation.id) }
            if global.json { return session.console.printJSON(["loggedOut": true, "droppedChanges": .int(dropped.count)]) }
            session.console.print("Logged out; the cache at \(global.cacheURL.path) is cleared.")
            if !dropped.isEmpty {
                session.console.print("\(dropped.count) queued change\(dropped.count == 1 ? "" : "s") that could not be sent \(dropped.count == 1 ? "was" : "were") dropped.")
            }
        }
    }
}

struct MeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "me", abstract: "Show the current user.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await Session.run(global) { session in
            guard let user = try await session.environment.users.currentUser() else {
                session.console.note("error: not logged in (pantry login)")
                throw ExitCode.failure
            }
            let console = session.console
            if global.json {
                console.printJSON([
                    "id": .string(user.id), "email": .string(user.email), "displayName": .string(user.displayName),
                    "roles": .array(user.roles.map { .string($0.name) }), "createdAt": .string(user.createdAt.iso8601),
                ])
            } else {
                console.print("\(console.bold(user.displayName)) <\(user.email)>  id \(user.id), roles \(user.roles.map(\.name).joined(separator: ", ")) \(session.sources())")
            }
        }
    }
}

extension User.Role {
    var name: String {
        switch self {
        case .admin: return "admin"
        case .member: return "member"
        case .guest: return "guest"
        case .other(let raw): return raw.lowercased()
        }
    }
}
