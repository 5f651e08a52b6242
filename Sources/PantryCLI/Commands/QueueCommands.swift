import APICore
import ArgumentParser
import Foundation

/// `pantry queue`: the changes that wait for the server in the offline queue.
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "List, send or cancel the changes waiting in the offline queue.",
        discussion: """
            A change made with --queue (pantry households rename --queue) while the server cannot be reached waits in the cache file (--cache), shown at once, until it is sent: by the next command that reaches the server, or by `pantry queue replay`. `list` and `cancel` open only the cache file.
            """,
        subcommands: [QueueListCommand.self, QueueReplayCommand.self, QueueCancelCommand.self],
        defaultSubcommand: QueueListCommand.self)
}

struct QueueListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "The queued changes, oldest first (the default).")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await LocalCache.run(global) { client, console in
            let queued = try await client.offlineQueue.mutations()
            if global.json { return console.printJSON(.array(queued.map(json))) }
            guard !queued.isEmpty else { return console.print("No queued changes.") }
            console.table(["ID", "CHANGE", "QUEUED", "STATE"], queued.map { [$0.id, $0.operationName, LocalCache.timestamp($0.enqueuedAt), $0.state.description] })
        }
    }
}

struct QueueReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay", abstract: "Send the queued changes now, in order, and say what became of each.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await Session.run(global) { session in
            let client = session.recorder
            let before = try await client.offlineQueue.mutations()
            await client.offlineQueue.replay()
            let after = try await client.offlineQueue.mutations()
            let console = session.console
            let left = Dictionary(uniqueKeysWithValues: after.map { ($0.id, $0) })
            let outcome = before.map { mutation in (mutation, left[mutation.id]?.state.description ?? "done") }
            if global.json {
                return console.printJSON(.array(outcome.map { mutation, state in
                    ["id": .string(mutation.id), "change": .string(mutation.operationName), "state": .string(state)]
                }))
            }
            guard !before.isEmpty else { return console.print("No queued changes.") }
            console.table(["ID", "CHANGE", "STATE"], outcome.map { [$0.0.id, $0.0.operationName, $0.1] })
            if after.contains(where: \.state.isWaiting) {
                throw CLIError("the server could not be reached; \(after.count) change\(after.count == 1 ? "" : "s") still wait\(after.count == 1 ? "s" : "")")
            }
        }
    }
}

struct QueueCancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Take a change out of the queue: one that waits, or one the server refused.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The change's id (see `pantry queue`).") var id: String

    func run() async throws {
        try await LocalCache.run(global) { client, console in
            try await client.offlineQueue.cancel(id: id)
            if global.json { return console.printJSON(["cancelled": .string(id)]) }
            console.print("Cancelled \(id).")
        }
    }
}

func json(_ mutation: QueuedMutation) -> JSONValue {
    [
        "id": .string(mutation.id), "change": .string(mutation.operationName), "variables": .object(mutation.variables),
        "queuedAt": .string(LocalCache.timestamp(mutation.enqueuedAt)), "state": .string(mutation.state.description),
    ]
}
