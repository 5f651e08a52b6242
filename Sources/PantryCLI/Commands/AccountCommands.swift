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
    static let configuration = CommandConfiguration(commandName: "logout", abstract: "Log out and clear the cache.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await Session.run(global, signIn: false) { session in
            _ = try? await session.recorder.send(RESTRequest<EmptyResponse>(method: .post, path: "auth/logout"))
            await session.tokens.clear()
            try await session.environment.client.clearCache()
            if global.json { session.console.printJSON(["loggedOut": true]) } else {
                session.console.print("Logged out; the cache at \(global.cacheURL.path) is cleared.")
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
