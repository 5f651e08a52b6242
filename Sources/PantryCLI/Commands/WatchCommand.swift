import APICore
import ArgumentParser
import Foundation
import HouseholdKit
import SharedKit

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each change to a household as the server announces it, or as another pantry puts it in the cache, until interrupted.",
        discussion: """
            Changes made by anyone (another pantry, another app) arrive as householdChanged events over a WebSocket. With the embedded server only this process could change the household, so run a dev server and two terminals:

              pantry serve --port 4000
              pantry watch hh-1 --endpoint http://127.0.0.1:4000/
              pantry households rename hh-1 Cabin --endpoint http://127.0.0.1:4000/

            What another pantry process writes to the same cache file is printed too, marked "(cache, another process)", even when no server announces it: two terminals on one cache file, each with its own embedded server, show it:

              pantry watch hh-1 --read-only
              pantry households rename hh-1 Cabin
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The household's id.") var id: String
    @Option(help: "Stop after this many changes (a positive number).") var count: Int?

    func validate() throws {
        if let count, count <= 0 { throw ValidationError("--count must be a positive number, not \(count)") }
    }

    func run() async throws {
        try await Session.run(global) { session in
            let console = session.console
            let households = session.environment.households
            guard let household = try await households.household(id: id) else { throw ValidationError("no household '\(id)'") }
            if !global.json { console.print("Watching \(console.bold(household.name)) (\(id)); Ctrl-C stops. \(session.sources())") }
            let changes = households.householdChanges(id: id)
            // The household as last printed, so that what this process wrote to the cache (the
            // server's events, a catch-up) is not printed again as the cache's.
            let shown = LockedBox<Household?>(household)
            let seen = LockedBox(0)
            /// Counts a change printed; answers whether --count is reached.
            let limit = count
            let counted: @Sendable () -> Bool = {
                seen.withLock { seen in
                    seen += 1
                    return limit.map { seen >= $0 } ?? false
                }
            }
            // Events sent while the socket was down are lost, so after a reconnection the household
            // is read again from the server and shown as it is now. When that read is refused for
            // want of a valid login (a restarted server forgets its tokens), watching ends with that
            // error; any other failure to catch up is a note, and watching goes on.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var reconnected = false
                    for await state in changes.states {
                        if !global.json { console.note(console.dim("  connection: \(state)")) }
                        switch state {
                        case .reconnecting: reconnected = true
                        case .active where reconnected:
                            reconnected = false
                            do {
                                guard let current = try await households.household(id: id, refresh: true) else { continue }
                                shown.withLock { $0 = current }
                                if global.json {
                                    console.printJSON(["kind": "caught up", "household": json(current)])
                                } else {
                                    console.print("(caught up after reconnecting)  \(summary(current, console))")
                                }
                            } catch let error as APIError where error.recovery == .reauthenticate {
                                throw error
                            } catch {
                                console.note(console.dim("  could not catch up after reconnecting: \(Session.describe(error))"))
                            }
                        default: break
                        }
                    }
                }
                group.addTask {
                    for try await change in changes {
                        shown.withLock { $0 = change.household }
                        if global.json {
                            console.printJSON(["kind": .string(change.kind.name), "occurredAt": .string(change.occurredAt.iso8601), "household": json(change.household)])
                        } else {
                            console.print("\(change.occurredAt.iso8601)  \(console.bold(change.kind.name))  \(summary(change.household, console))")
                        }
                        if counted() { break }
                    }
                }
                // The cache: what another pantry process wrote to the same file (read-only or not,
                // with a server or without one).
                group.addTask {
                    for await frame in households.watchHousehold(id: id) {
                        guard case .success(let current?) = frame, shown.withLock({ old in
                            defer { old = current }
                            return old != current
                        }) else { continue }
                        if global.json {
                            console.printJSON(["kind": "cache", "source": "another process", "household": json(current)])
                        } else {
                            console.print("\(DateTime(Date()).iso8601)  \(console.bold("changed in the cache"))  \(summary(current, console))  \(console.dim("(cache, another process)"))")
                        }
                        if counted() { break }
                    }
                }
                // The first to end (the count reached, the stream over, or an error) ends both.
                defer { group.cancelAll() }
                try await group.next()
            }
        }
    }
}

/// `Name: member (role), …`.
private func summary(_ household: Household, _ console: Console) -> String {
    "\(household.name): " + household.members.map { "\($0.displayName) (\($0.role.name))" }.joined(separator: ", ")
}

extension HouseholdChange.Kind {
    var name: String {
        switch self {
        case .updated: return "updated"
        case .memberAdded: return "member added"
        case .memberUpdated: return "member updated"
        case .memberRemoved: return "member removed"
        case .other(let raw): return raw.lowercased()
        }
    }
}
