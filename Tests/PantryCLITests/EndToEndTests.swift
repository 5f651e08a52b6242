import APICore
import ArgumentParser
import DevServer
import Foundation
import PantryCLI
import Testing

/// Runs `pantry` with these arguments in this process, and answers what it wrote (standard error's
/// lines start with `! `) and its exit code.
func pantry(_ arguments: [String]) async -> (output: String, code: Int32) {
    let console = Console(capturing: true)
    let (code, usage) = await Console.$current.withValue(console) { () async -> (Int32, String) in
        do {
            var command = try PantryCommand.parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return (0, "")
        } catch {
            // What ArgumentParser prints for a usage error (nothing for an exit code).
            return (PantryCommand.exitCode(for: error).rawValue, PantryCommand.message(for: error))
        }
    }
    return (usage.isEmpty ? console.text : console.text + "\n! " + usage, code)
}

/// A temporary folder for a test's cache and token, removed after.
final class Scratch {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-e2e-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }
    var cache: String { url.appendingPathComponent("cache.sqlite").path }
}

@Suite("pantry, end to end", .serialized)
struct EndToEndTests {
    @Test("demo walks through every capability, and a second run reads what the first persisted; the files it writes are the owner's alone")
    func demoTwice() async throws {
        let scratch = try Scratch()
        // In a folder the demo creates: it and the cache are the owner's alone.
        let cache = scratch.url.appendingPathComponent("pantry/cache.sqlite").path
        let first = await pantry(["demo", "--cache", cache])
        #expect(first.code == 0, "\(first.output)")
        for expected in [
            "nothing cached yet", "logged in as alice@example.com [server", "Alice Martin <alice@example.com> [server",
            "Alice Martin again [cache]", "GET products/p-11: Parmesan", "the watcher now sees Home ·", "event: member added",
            "embedded server stopped", "households: Home ·", "a search never run before cannot be answered",
            "waits in the queue", "the queue replayed: the server took the rename",
        ] {
            #expect(first.output.contains(expected), "missing '\(expected)' in:\n\(first.output)")
        }
        let offline = first.output.components(separatedBy: "\n").first { $0.contains("households: Home ·") } ?? ""
        #expect(offline.hasSuffix("[cache]"))
        // The rename made offline: shown at once as optimistic, then the server's answer, in the cache.
        let lines = first.output.components(separatedBy: "\n")
        let shown = lines.first { $0.contains("the watcher shows Home · offline") && $0.contains("at once") } ?? ""
        #expect(shown.hasSuffix("[cache, optimistic]"), "\(first.output)")
        let confirmed = lines.first { $0.contains("the watcher shows the server's answer: Home · offline") } ?? ""
        #expect(confirmed.hasSuffix("[cache]"), "\(first.output)")
        func mode(_ path: String) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue & 0o777
        }
        #expect(try mode(cache) == 0o600)
        #expect(try mode((cache as NSString).deletingLastPathComponent) == 0o700)

        let second = await pantry(["demo", "--cache", cache])
        #expect(second.code == 0, "\(second.output)")
        let persisted = second.output.components(separatedBy: "\n").first { $0.contains("households read before logging in") } ?? ""
        #expect(persisted.contains("Home ·"), "\(second.output)\n--- first run:\n\(first.output)")
        #expect(persisted.hasSuffix("[cache]"))
    }

    @Test("demo --tls runs end to end over HTTPS and WSS with a certificate authority made and trusted for the run; --tls is refused where it cannot work")
    func demoOverTLS() async throws {
        let scratch = try Scratch()
        let run = await pantry(["demo", "--tls", "--cache", scratch.cache])
        #expect(run.code == 0, "\(run.output)")
        for expected in [
            "embedded dev server at https://", "logged in as alice@example.com [server", "event: member added",
            "embedded server back at https://", "the queue replayed: the server took the rename",
        ] {
            #expect(run.output.contains(expected), "missing '\(expected)' in:\n\(run.output)")
        }
        let withEndpoint = await pantry(["demo", "--tls", "--endpoint", "https://127.0.0.1:9/", "--cache", scratch.cache])
        #expect(withEndpoint.code != 0 && withEndpoint.output.contains("--tls is for the embedded dev server"), "\(withEndpoint.output)")
        let overURLSession = await pantry(["demo", "--tls", "--transport", "urlsession", "--cache", scratch.cache])
        #expect(overURLSession.code != 0 && overURLSession.output.contains("--tls needs --transport asynchttpclient"), "\(overURLSession.output)")
    }

    @Test("logout sends the queued changes first, and drops, saying how many, those it cannot send")
    func logoutWithQueuedChanges() async throws {
        let scratch = try Scratch()
        let server = try await DevServer.start()
        defer { Task { await server.stop() } }
        let live = ["--endpoint", server.baseURL.absoluteString, "--cache", scratch.cache]
        let dead = ["--endpoint", "http://127.0.0.1:9/", "--cache", scratch.cache]
        let login = ["login", "--email", "alice@example.com", "--password", "pantry"]

        #expect(await pantry(login + live).code == 0)
        let queued = await pantry(["households", "rename", "hh-1", "Sent at logout", "--queue"] + dead)
        #expect(queued.output.contains("Queued "), "\(queued.output)")
        let sent = await pantry(["logout", "--json"] + live)
        #expect(sent.code == 0 && sent.output.contains(#""droppedChanges":0"#), "\(sent.output)")
        #expect(await pantry(login + live).code == 0)
        #expect(await pantry(["households", "show", "hh-1"] + live).output.contains("Sent at logout"))

        #expect(await pantry(["households", "rename", "hh-1", "Never sent", "--queue"] + dead).output.contains("Queued "))
        let dropped = await pantry(["logout"] + dead)
        #expect(dropped.code == 0 && dropped.output.contains("1 queued change that could not be sent was dropped."), "\(dropped.output)")
        #expect(await pantry(["queue"] + dead).output.contains("No queued changes."))
    }

    @Test("products page by page: each page as it loads, a progress line per page, --all to the last, --json one array")
    func pagedProducts() async throws {
        let scratch = try Scratch()
        let whole = await pantry(["products", "list", "--limit", "100", "--json", "--cache", scratch.cache])
        let total = try JSONValue(parsing: whole.output.split(separator: "\n").first { $0.hasPrefix("{") }.map(String.init) ?? "{}")["totalCount"]?.intValue
        let expected = try #require(total)

        let paged = await pantry(["products", "list", "--page-size", "5", "--all", "--cache", scratch.cache])
        #expect(paged.code == 0, "\(paged.output)")
        let pages = (expected + 4) / 5
        #expect(paged.output.contains("page \(pages): \(expected) products so far, the last page"), "\(paged.output)")
        #expect(paged.output.contains("page 1: 5 products so far\n") || paged.output.contains("page 1: 5 products so far"))

        let json = await pantry(["products", "list", "--page-size", "7", "--all", "--json", "--cache", scratch.cache])
        let array = try JSONValue(parsing: json.output.split(separator: "\n").first { $0.hasPrefix("[") }.map(String.init) ?? "[]").arrayValue
        #expect(array?.count == expected)
        #expect(Set(array?.compactMap { $0["id"]?.stringValue } ?? []).count == expected)

        let first = await pantry(["products", "list", "--page-size", "5", "--cache", scratch.cache])
        #expect(first.output.contains("page 1: 5 products so far") && !first.output.contains("page 2"), "\(first.output)")
        #expect(await pantry(["products", "list", "--page-size", "0"]).code != 0)
    }

    @Test("against a running server: log in, households and members, products, log out")
    func commands() async throws {
        let scratch = try Scratch()
        let server = try await DevServer.start()
        defer { Task { await server.stop() } }
        let endpoint = ["--endpoint", server.baseURL.absoluteString, "--cache", scratch.cache]

        let anonymous = await pantry(["me"] + endpoint)
        #expect(anonymous.code != 0)
        #expect(anonymous.output.contains("! error: ") && anonymous.output.contains("pantry login"), "\(anonymous.output)")

        let login = await pantry(["login", "--email", "alice@example.com", "--password", "pantry"] + endpoint)
        #expect(login.code == 0, "\(login.output)")
        #expect(login.output.contains("Logged in as Alice Martin"))

        let list = await pantry(["households"] + endpoint)
        #expect(list.output.contains("hh-1  Home"), "\(list.output)")

        let created = await pantry(["households", "create", "Cabin", "--json"] + endpoint)
        let createdJSON = try JSONValue(parsing: created.output.components(separatedBy: "\n").first { $0.hasPrefix("{") } ?? "")
        let cabin = try #require(createdJSON["id"]?.stringValue)
        #expect(createdJSON["members"]?.arrayValue?.first?["role"] == "owner")

        #expect(await pantry(["households", "rename", cabin, "Lake cabin"] + endpoint).code == 0)
        let added = await pantry(["members", "add", cabin, "--user", "user-2", "--name", "Bob", "--role", "adult", "--json"] + endpoint)
        let member = try #require(try JSONValue(parsing: added.output.components(separatedBy: "\n").first { $0.hasPrefix("{") } ?? "")["id"]?.stringValue)
        #expect(await pantry(["members", "update", member, "--role", "child"] + endpoint).code == 0)
        let shown = await pantry(["households", "show", cabin] + endpoint)
        #expect(shown.output.contains("Lake cabin"), "\(shown.output)")
        #expect(shown.output.contains("Bob") && shown.output.contains("child"), "\(shown.output)")
        #expect(await pantry(["members", "remove", member] + endpoint).code == 0)

        let search = await pantry(["products", "search", "italian", "--max-price", "6", "--json"] + endpoint)
        let page = try JSONValue(parsing: search.output.components(separatedBy: "\n").first { $0.hasPrefix("{") } ?? "")
        #expect(page["totalCount"] == 4)
        let rest = await pantry(["products", "show", "p-11", "--rest"] + endpoint)
        #expect(rest.output.contains("Parmesan") && rest.output.contains("Price history"), "\(rest.output)")

        let missing = await pantry(["households", "show", "nope"] + endpoint)
        #expect(missing.code != 0)
        #expect(missing.output.contains("! error: no household 'nope'"), "\(missing.output)")

        #expect(await pantry(["logout"] + endpoint).code == 0)
        let afterLogout = await pantry(["households"] + endpoint)
        #expect(afterLogout.code != 0, "the cache was cleared and the token forgotten: \(afterLogout.output)")
    }

    @Test("watch prints a change made by someone else, as the server announces it")
    func watch() async throws {
        let scratch = try Scratch()
        let server = try await DevServer.start()
        defer { Task { await server.stop() } }
        let endpoint = ["--endpoint", server.baseURL.absoluteString, "--cache", scratch.cache]
        #expect(await pantry(["login"] + endpoint).code == 0)
        let watching = Task { await pantry(["watch", "hh-1", "--count", "1"] + endpoint) }
        #expect(await eventually { server.householdSubscriberCount("hh-1") == 1 })
        // Someone else: another cache file, so that only the server can tell the watcher.
        let elsewhere = try Scratch()
        let other = ["--endpoint", server.baseURL.absoluteString, "--cache", elsewhere.cache]
        #expect(await pantry(["login"] + other).code == 0)
        #expect(await pantry(["households", "rename", "hh-1", "Chalet"] + other).code == 0)
        let watched = await watching.value
        #expect(watched.code == 0, "\(watched.output)")
        #expect(watched.output.contains("updated") && watched.output.contains("Chalet"), "\(watched.output)")
    }

    @Test("watch --read-only prints, marked, what another pantry process put in the cache, which no server announced; --read-only refuses a change and leaves the file as it was")
    func watchTheCache() async throws {
        let scratch = try Scratch()
        // The watcher's server: the rename goes to another one (the renaming pantry's own embedded
        // server), so this one announces nothing and the change can only come through the file.
        let server = try await DevServer.start()
        defer { Task { await server.stop() } }
        let endpoint = ["--endpoint", server.baseURL.absoluteString, "--cache", scratch.cache]
        #expect(await pantry(["login"] + endpoint).code == 0)
        #expect(await pantry(["households", "show", "hh-1"] + endpoint).code == 0)
        let watcher = try PantryProcess(["watch", "hh-1", "--count", "1", "--read-only", "--no-color"] + endpoint)
        #expect(await eventually { server.householdSubscriberCount("hh-1") == 1 }, "\(watcher.transcript)")
        let renamed = await pantry(["households", "rename", "hh-1", "Chalet", "--cache", scratch.cache])
        #expect(renamed.code == 0, "\(renamed.output)")
        #expect(await watcher.exitCode(timeout: .seconds(120)) == 0, "\(watcher.transcript)")
        let line = watcher.output.split(separator: "\n").first { $0.contains("Chalet") } ?? ""
        #expect(line.contains("changed in the cache") && line.hasSuffix("(cache, another process)"), "\(watcher.transcript)")

        let before = try cacheContents(ofDatabaseAt: scratch.cache)
        let refused = await pantry(["households", "rename", "hh-1", "Cabin", "--read-only"] + endpoint)
        #expect(refused.code == 1 && refused.output.contains("opened the cache read-only"), "\(refused.output)")
        let read = await pantry(["households", "show", "hh-1", "--read-only"] + endpoint)
        #expect(read.code == 0 && !read.output.contains("Cabin"), "\(read.output)")
        #expect(try cacheContents(ofDatabaseAt: scratch.cache) == before)
    }

    @Test("cache shows what a run left, gc keeps what queries reach, clear empties the file; a missing or foreign file is said")
    func cacheCommands() async throws {
        let scratch = try Scratch()
        let missing = await pantry(["cache", "--cache", scratch.cache])
        #expect(missing.code == 0 && missing.output.contains("No cache at \(scratch.cache)."), "\(missing.output)")
        #expect(!FileManager.default.fileExists(atPath: scratch.cache))

        #expect(await pantry(["households", "--cache", scratch.cache]).code == 0)
        let shown = await pantry(["cache", "--cache", scratch.cache, "--json"])
        #expect(shown.code == 0, "\(shown.output)")
        let summary = try #require(try JSONValue(parsing: Data(shown.output.utf8)).objectValue)
        let byType = try #require(summary["recordsByType"]?.objectValue)
        #expect(byType["Household"] == .int(2) && byType["QUERY_ROOT"] == .int(1), "\(shown.output)")
        let records = try #require(summary["records"]?.intValue)
        #expect(records == byType.values.compactMap(\.intValue).reduce(0, +))
        #expect(summary["oldest"]?.stringValue != nil)
        let text = await pantry(["cache", "show", "--cache", scratch.cache, "--no-color"])
        #expect(text.output.contains("\(scratch.cache): \(records) records"), "\(text.output)")
        #expect(text.output.contains("TYPE") && text.output.contains("Household"))

        let collected = await pantry(["cache", "gc", "--cache", scratch.cache, "--json"])
        #expect(collected.code == 0, "\(collected.output)")
        #expect(try JSONValue(parsing: Data(collected.output.utf8)).objectValue?["recordsLeft"] == .int(records))

        let cleared = await pantry(["cache", "clear", "--cache", scratch.cache, "--no-color"])
        #expect(cleared.code == 0 && cleared.output.contains("Removed \(records) records"), "\(cleared.output)")
        let empty = await pantry(["cache", "--cache", scratch.cache, "--json"])
        #expect(try JSONValue(parsing: Data(empty.output.utf8)).objectValue?["records"] == .int(0), "\(empty.output)")

        let foreign = scratch.url.appendingPathComponent("notes.txt")
        try Data("not a database".utf8).write(to: foreign)
        let refused = await pantry(["cache", "clear", "--cache", foreign.path])
        #expect(refused.code == 1)
        #expect(refused.output.contains("! error: the cache file at \(foreign.path) cannot be used"), "\(refused.output)")
        #expect(try Data(contentsOf: foreign) == Data("not a database".utf8))
        #expect(await pantry(["cache", "gc", "--max-staleness", "-1"]).code != 0)
    }

    @Test("cache find lists keys by type or pattern; cache show <key> shows one record's fields; an unknown key is an error")
    func cacheInspector() async throws {
        let scratch = try Scratch()
        #expect(await pantry(["households", "--cache", scratch.cache]).code == 0)
        let found = await pantry(["cache", "find", "Household", "--cache", scratch.cache, "--json"])
        #expect(found.code == 0, "\(found.output)")
        let keys = try #require(try JSONValue(parsing: Data(found.output.utf8)).objectValue?["keys"]?.arrayValue).compactMap(\.stringValue)
        #expect(keys.count == 2 && keys.allSatisfy { $0.hasPrefix("Household:") }, "\(keys)")
        let limited = await pantry(["cache", "find", "Household:*", "--limit", "1", "--cache", scratch.cache, "--no-color"])
        #expect(limited.code == 0 && limited.output.contains(keys[0]) && limited.output.contains("more than 1"), "\(limited.output)")

        let record = await pantry(["cache", "show", keys[0], "--cache", scratch.cache, "--json"])
        #expect(record.code == 0, "\(record.output)")
        let details = try #require(try JSONValue(parsing: Data(record.output.utf8)).objectValue)
        #expect(details["typename"] == "Household" && details["key"] == .string(keys[0]))
        #expect(details["fields"]?["name"]?.stringValue != nil, "\(record.output)")
        let root = await pantry(["cache", "show", "QUERY_ROOT", "--cache", scratch.cache, "--no-color"])
        #expect(root.output.contains("FIELD") && root.output.contains("households  → [Household:"), "\(root.output)")

        let unknown = await pantry(["cache", "show", "Household:nope", "--cache", scratch.cache])
        #expect(unknown.code == 1)
        #expect(unknown.output.contains("no record with the key 'Household:nope'") && unknown.output.contains("pantry cache find"), "\(unknown.output)")
        let nothing = await pantry(["cache", "find", "Starship", "--cache", scratch.cache])
        #expect(nothing.code == 0 && nothing.output.contains("No record matches 'Starship'."), "\(nothing.output)")
        #expect(await pantry(["cache", "find", "Household", "--limit", "0"]).code != 0)
    }

    @Test("--trace prints the command's spans after it: each operation with its HTTP attempts and cache writes below it")
    func trace() async throws {
        let scratch = try Scratch()
        let run = await pantry(["households", "--trace", "--cache", scratch.cache, "--no-color"])
        #expect(run.code == 0, "\(run.output)")
        // Standard error's lines, as the capture marks them ("! "), without the mark.
        let lines = run.output.split(separator: "\n").map { $0.hasPrefix("! ") ? String($0.dropFirst(2)) : String($0) }
        let start = try #require(lines.firstIndex(of: "trace:"), "\(run.output)")
        let spans = lines[(start + 1)...]
        let query = try #require(spans.firstIndex { $0.hasPrefix("  query Households  ") && $0.contains(" ms") }, "\(run.output)")
        // Its children are indented below it.
        #expect(spans[(query + 1)...].prefix { $0.hasPrefix("    ") }.contains { $0.hasPrefix("    HTTP POST  ") && $0.contains("status=200") })
        #expect(spans.contains { $0.hasPrefix("  POST auth/login  ") })
        // Without the flag, no trace.
        let plain = await pantry(["households", "--cache", scratch.cache, "--no-color"])
        #expect(!plain.output.contains("trace:"))
    }

    @Test("bad input is one clear line and a non-zero exit")
    func badInput() async throws {
        let endpoint = await pantry(["households", "--endpoint", "not a url"])
        #expect(endpoint.code != 0)
        let price = await pantry(["products", "--max-price", "cheap"])
        #expect(price.code != 0)
        let update = await pantry(["members", "update", "m-1"])
        #expect(update.code != 0)
    }

    @Test("file-system failures are one sentence naming the path; --count must be positive")
    func fileSystemEdges() async throws {
        let scratch = try Scratch()
        let dead = ["--endpoint", "http://127.0.0.1:9/"]
        // The cache path's parent is a file. Before: `Error Domain=NSCocoaErrorDomain Code=516 …`.
        let blocker = scratch.url.appendingPathComponent("blocker")
        #expect(FileManager.default.createFile(atPath: blocker.path, contents: Data("x".utf8)))
        let blocked = await pantry(["me", "--cache", blocker.appendingPathComponent("cache.sqlite").path] + dead)
        #expect(blocked.code == 1)
        #expect(blocked.output.contains("! error: could not create the cache folder at \(blocker.path): a file is in the way"), "\(blocked.output)")
        #expect(!blocked.output.contains("Error Domain"))

        // A damaged token file is named, with what to do.
        let token = scratch.url.appendingPathComponent("token.json")
        try Data("not a token".utf8).write(to: token)
        let damaged = await pantry(["me", "--cache", scratch.cache] + dead)
        #expect(damaged.output.contains("! warning: could not read the saved token at \(token.path): the file is damaged; log in again"), "\(damaged.output)")

        // A token that cannot be saved is an error, not a silent log-out on the next run.
        try FileManager.default.removeItem(at: token)
        try FileManager.default.createDirectory(at: token, withIntermediateDirectories: true)
        let server = try await DevServer.start()
        defer { Task { await server.stop() } }
        let login = await pantry(["login", "--endpoint", server.baseURL.absoluteString, "--cache", scratch.cache])
        #expect(login.code == 1)
        #expect(login.output.contains("! error: could not save the token at \(token.path)"), "\(login.output)")

        let zero = await pantry(["watch", "hh-1", "--count", "0"] + dead)
        #expect(zero.code != 0)
        #expect(zero.output.contains("--count must be a positive number"), "\(zero.output)")
    }

    @Test("server text with control characters is shown escaped: no screen rewrites, one line per table row")
    func controlCharacters() async throws {
        let scratch = try Scratch()
        let server = try await DevServer.start()
        defer { Task { await server.stop() } }
        let endpoint = ["--endpoint", server.baseURL.absoluteString, "--cache", scratch.cache]
        #expect(await pantry(["login"] + endpoint).code == 0)
        let hostile = "Evil\u{1B}[2J\u{07}\nHome\u{202E}"
        #expect(await pantry(["households", "rename", "hh-1", hostile] + endpoint).code == 0)
        let listed = await pantry(["households"] + endpoint)
        #expect(listed.code == 0)
        #expect(!listed.output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x202E })
        let row = try #require(listed.output.split(separator: "\n").first { $0.hasPrefix("hh-1") })
        #expect(row.contains(#"Evil\u{1B}[2J\u{7}\nHome\u{202E}"#), "\(row)")
        #expect(Console.terminalSafe("plain text", keepingStyles: false) == "plain text")
        #expect(Console.terminalSafe("\u{1B}[1mbold\u{1B}[0m \u{1B}]0;title\u{07}", keepingStyles: true) == "\u{1B}[1mbold\u{1B}[0m \\u{1B}]0;title\\u{7}")
    }
}
