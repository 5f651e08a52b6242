import APICore
import APICoreLive
import APICoreSQLite
import ArgumentParser
import Foundation
import Logging

/// `pantry cache`: what the cache file holds; `gc` and `clear` change it. No server is needed.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show, search, collect or clear the SQLite cache.",
        discussion: """
            The cache file is --cache (default: pantry/cache.sqlite under the user's cache directory). These commands open only that file: no server starts and nothing is sent.
            """,
        subcommands: [CacheShowCommand.self, CacheFindCommand.self, CacheCollectCommand.self, CacheClearCommand.self],
        defaultSubcommand: CacheShowCommand.self)
}

struct CacheShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the cache's size on disk, its records by type, and its oldest record (the default); with a key, that record.",
        discussion: """
            With a key (pantry cache show Household:hh-1): the record's type, when it was received, its fields (references shown as → key) with the expiry a server gave them, and how many watchers read it (none in this process: an app's own client sees its watchers). `pantry cache find` lists keys.
            """)

    @Argument(help: ArgumentHelp("A record's key (Household:hh-1, QUERY_ROOT).", valueName: "key"))
    var key: String?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await LocalCache.run(global) { client, console in
            if let key { return try await Self.show(key, client: client, console: console, json: global.json, path: global.cacheURL.path) }
            let summary = try await client.maintenance().summary()
            if global.json {
                return console.printJSON([
                    "path": .string(global.cacheURL.path), "records": .int(summary.records), "bytesOnDisk": .int(summary.bytesOnDisk ?? 0),
                    "oldest": summary.oldest.map { .string(LocalCache.timestamp($0)) } ?? .null,
                    "recordsByType": .object(summary.recordsByType.mapValues { .int($0) }),
                ])
            }
            console.print("\(console.bold(global.cacheURL.path)): \(summary.records) records, \(LocalCache.bytes(summary.bytesOnDisk ?? 0)) on disk")
            if let oldest = summary.oldest { console.print("oldest record received \(LocalCache.timestamp(oldest))") }
            guard !summary.recordsByType.isEmpty else { return }
            console.print()
            let rows = summary.recordsByType.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { [$0.key, String($0.value)] }
            console.table(["TYPE", "RECORDS"], rows)
        }
    }
}

extension CacheShowCommand {
    /// One record, or an error that names the key and how to find keys.
    static func show(_ key: String, client: any APIClient, console: Console, json: Bool, path: String) async throws {
        guard let record = try await client.maintenance().inspect(key) else {
            throw CLIError("no record with the key '\(key)' in \(path); `pantry cache find <type or pattern>` lists the keys there are")
        }
        if json {
            return console.printJSON([
                "key": .string(record.key), "typename": record.typename.map { .string($0) } ?? .null, "fields": .object(record.fields),
                "receivedAt": .string(LocalCache.timestamp(record.receivedAt)),
                "expires": .object(record.expires.mapValues { .string(LocalCache.timestamp($0)) }),
                "watchers": .array(record.watchers.map { .string($0) }),
            ])
        }
        let watchers = "\(record.watchers.count) watcher\(record.watchers.count == 1 ? "" : "s")"
        console.print(console.bold(record.key) + (record.typename.map { " (\($0))" } ?? "") + ", received \(LocalCache.timestamp(record.receivedAt)), \(watchers)")
        console.print()
        let rows = record.fields.sorted { $0.key < $1.key }.map { name, value in
            [name, Self.describe(value), record.expires[name].map(LocalCache.timestamp) ?? ""]
        }
        console.table(["FIELD", "VALUE", "EXPIRES"], rows)
        for watcher in record.watchers { console.print("watched by \(watcher)") }
    }

    /// A field's value on one line: a reference as `→ key`, a list of them as `→ [key, key]`,
    /// anything longer than 80 characters cut.
    static func describe(_ value: JSONValue) -> String {
        let text: String
        if let key = reference(value) {
            text = "→ \(key)"
        } else if case .array(let items) = value, !items.isEmpty, case let keys = items.compactMap(reference), keys.count == items.count {
            text = "→ [" + keys.joined(separator: ", ") + "]"
        } else {
            text = value.description
        }
        return text.count > 80 ? String(text.prefix(79)) + "…" : text
    }

    private static func reference(_ value: JSONValue) -> String? {
        guard case .object(let object) = value, object.count == 1 else { return nil }
        return object["__ref"]?.stringValue
    }
}

struct CacheFindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "List the keys of the records of a type (Household), or whose key matches a pattern (Household:hh-*, *ROOT).",
        discussion: "`*` stands for any run of characters; a name without `:` or `*` is a type name. `pantry cache show <key>` shows one record.")

    @Argument(help: ArgumentHelp("A type name, or a key pattern with *.", valueName: "type-or-pattern"))
    var pattern: String

    @Option(help: ArgumentHelp("The most keys to list.", valueName: "count"))
    var limit = 100

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1, not \(limit)") }
        guard !pattern.isEmpty else { throw ValidationError("give a type name or a key pattern, such as Household or Household:hh-*") }
    }

    func run() async throws {
        try await LocalCache.run(global) { client, console in
            // One more than asked for says whether the list was cut.
            let keys = try await client.maintenance().keys(matching: pattern, limit: limit + 1)
            let shown = Array(keys.prefix(limit))
            if global.json {
                return console.printJSON(["pattern": .string(pattern), "keys": .array(shown.map { .string($0) }), "more": .bool(keys.count > limit)])
            }
            guard !shown.isEmpty else { return console.print("No record matches '\(pattern)'.") }
            for key in shown { console.print(key) }
            if keys.count > limit { console.print("… more than \(limit); --limit shows more") }
        }
    }
}

struct CacheCollectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Collect the cache's garbage: records no query reaches any more, expired records and fields, dangling references.")

    @Option(help: ArgumentHelp("How long past its maximum age a record may stay.", valueName: "seconds"))
    var maxStaleness: Double = 0

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard maxStaleness >= 0, maxStaleness < 1e9 else { throw ValidationError("--max-staleness must be a number of seconds from 0, not \(maxStaleness)") }
    }

    func run() async throws {
        try await LocalCache.run(global) { client, console in
            let before = try await client.maintenance().summary()
            let collection = try await client.maintenance().collectGarbage(maxStaleness: .milliseconds(Int(maxStaleness * 1000)))
            if global.json {
                return console.printJSON([
                    "expiredRecords": .int(collection.expiredRecords), "unreachableRecords": .int(collection.unreachableRecords),
                    "expiredFields": .int(collection.expiredFields), "danglingReferences": .int(collection.danglingReferences),
                    "recordsLeft": .int(before.records - collection.removedRecords),
                ])
            }
            console.print("\(collection); \(before.records - collection.removedRecords) records left.")
        }
    }
}

struct CacheClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear", abstract: "Remove every record from the cache, leaving nothing of them in its files.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await LocalCache.run(global) { client, console in
            let before = try await client.maintenance().summary()
            try await client.cache.clear()
            let after = try await client.maintenance().summary()
            if global.json {
                return console.printJSON([
                    "removedRecords": .int(before.records), "bytesBefore": .int(before.bytesOnDisk ?? 0), "bytesAfter": .int(after.bytesOnDisk ?? 0),
                ])
            }
            console.print(
                "Removed \(before.records) records; the cache files went from \(LocalCache.bytes(before.bytesOnDisk ?? 0)) to \(LocalCache.bytes(after.bytesOnDisk ?? 0)).")
        }
    }
}

/// A client over the cache file alone, for the `cache` commands.
enum LocalCache {
    /// Runs `body` with a client on the cache file; a missing file is said and left uncreated, a
    /// file the cache cannot use is an error, and any failure is one line and exit code 1.
    static func run(_ options: GlobalOptions, _ body: (any APIClient, Console) async throws -> Void) async throws {
        let console = options.console()
        let url = options.cacheURL
        guard FileManager.default.fileExists(atPath: url.path) else {
            if options.json { console.printJSON(["path": .string(url.path), "records": 0, "exists": false]) } else {
                console.print("No cache at \(url.path).")
            }
            return
        }
        do {
            let logger = Logger(label: "pantry") { _ in ConsoleLogHandler(console: console) }
            let client = APICoreLive.makeClient(APIClientConfiguration(
                restBaseURL: URL(string: "http://127.0.0.1/")!, cache: CacheConfiguration(storage: SQLiteCache.storage(at: url, logger: logger)),
                logger: logger))
            // A file the cache cannot use leaves it in memory, with a warning already printed.
            guard try await client.maintenance().summary().bytesOnDisk != nil else {
                throw CLIError("the cache file at \(url.path) cannot be used (see the warning above); it is left as it is")
            }
            try await body(client, console)
            // Removals and collections are written behind the cache: in the file before the process ends.
            await client.cacheMaintenance?.persisted()
        } catch let error as ExitCode {
            throw error
        } catch {
            throw Session.failure(error, on: console)
        }
    }

    /// `2026-11-23T16:05:00Z`.
    static func timestamp(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    /// `1.2 MB`, `512 KB`, `0 bytes`.
    static func bytes(_ count: Int) -> String {
        ByteCountFormatter.string(fromByteCount: Int64(count), countStyle: .file)
    }
}

extension APIClient {
    /// The cache's maintenance side (`CacheMaintenance`): the local cache commands run on the
    /// engine's own client, which always has one.
    func maintenance() throws -> any CacheMaintenance {
        guard let maintenance = cacheMaintenance else { throw CLIError("this client has no cache of its own to look into") }
        return maintenance
    }
}
