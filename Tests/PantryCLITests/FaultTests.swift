import APICore
import DevServer
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Faults injected into the real `pantry` executable and the servers it talks to: processes
/// killed mid-write, a server that dies during `watch`, servers that answer garbage or too late, a
/// full disk, a read-only cache, token files that cannot be read. Every case ends with an exit
/// code, one clear line, no crash, and nothing lost.
@Suite("faults, with pantry as a child process", .serialized)
struct FaultTests {
    static let deadEndpoint = ["--endpoint", "http://127.0.0.1:9/"]

    /// The households the cache answers with no server (the dead endpoint), by id.
    static func cachedHouseholds(_ cache: String) async throws -> [String: String] {
        let offline = try PantryProcess(["households", "--json", "--cache", cache] + deadEndpoint)
        let code = await offline.exitCode()
        if code != 0 {
            // What the cache holds, to tell a record never written from one not found (a flake
            // seen twice in CI, never here).
            let show = try PantryProcess(["cache", "show", "--cache", cache])
            _ = await show.exitCode()
            let root = try PantryProcess(["cache", "show", "QUERY_ROOT", "--cache", cache])
            _ = await root.exitCode()
            Issue.record("the cache as the offline read found it:\n\(show.transcript)\n\(root.transcript)")
        }
        #expect(code == 0, "\(offline.transcript)")
        #expect(!offline.errors.contains("warning:"), "the cache opened without a complaint: \(offline.errors)")
        let json = try JSONValue(parsing: offline.output.split(separator: "\n").first { $0.hasPrefix("[") }.map(String.init) ?? "[]")
        var names: [String: String] = [:]
        for household in json.arrayValue ?? [] {
            if let id = household["id"]?.stringValue { names[id] = household["name"]?.stringValue }
        }
        return names
    }

    /// `pantry serve` as a child process, and the URL it says it listens at.
    static func serve(port: Int = 0) async throws -> (PantryProcess, String) {
        let server = try PantryProcess(["serve", "--port", String(port)])
        #expect(await eventually { server.output.contains("listening at") }, "\(server.transcript)")
        let url = server.output.split(separator: " ").first { $0.hasPrefix("http://") }
            .map { String($0.trimmingCharacters(in: .punctuationCharacters.subtracting(["/"]))) }
        return (server, try #require(url, "\(server.transcript)"))
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test("kill -9 in the middle of SQLite writes: the file is sound, and it loses at most the writes its writer had not yet saved")
    func killedMidWrite() async throws {
        let scratch = try Scratch()
        let server = try await DevServer.start()
        defer { Task { await server.stop() } }
        let endpoint = ["--endpoint", server.baseURL.absoluteString, "--cache", scratch.cache]
        #expect(await pantry(["login"] + endpoint).code == 0)
        #expect(await pantry(["households"] + endpoint).code == 0)
        var acknowledged = try await Self.cachedHouseholds(scratch.cache)["hh-1"]
        #expect(acknowledged == "Home")

        for round in 1...6 {
            let name = "Renamed \(round)"
            let wal = scratch.cache + "-wal"
            let walBefore = Self.fileSize(wal)
            let child = try PantryProcess(["households", "rename", "hh-1", name] + endpoint)
            if round.isMultiple(of: 2) {
                // Killed as soon as its write to the cache has begun.
                _ = await eventually { Self.fileSize(wal) != walBefore || !child.output.isEmpty }
            } else {
                // Killed as soon as it has told the user the rename is done, before it exits by itself
                // (and before it waits for the cache's writer).
                _ = await eventually { child.output.contains(name) }
            }
            child.signal(SIGKILL)
            _ = await child.exitCode()
            #expect(try integrity(ofDatabaseAt: scratch.cache) == "ok", "round \(round)")
            let cached = try await Self.cachedHouseholds(scratch.cache)["hh-1"]
            // The cache is written behind: a kill loses at most what its writer had not yet saved,
            // this process's last write. Whatever was in the file before is still there.
            #expect(cached == acknowledged || cached == name, "round \(round): the cache has \(cached ?? "nothing")")
            acknowledged = cached
        }

        // The demo writes many records; killed while it writes, the file stays sound and usable.
        for round in 1...3 {
            let demo = try PantryProcess(["demo", "--cache", scratch.cache])
            let start = Self.fileSize(scratch.cache + "-wal")
            _ = await eventually { Self.fileSize(scratch.cache + "-wal") > start + 4096 * round || demo.output.contains("embedded server stopped") }
            demo.signal(SIGKILL)
            _ = await demo.exitCode()
            #expect(try integrity(ofDatabaseAt: scratch.cache) == "ok", "demo round \(round)")
        }
        let after = try PantryProcess(["demo", "--cache", scratch.cache])
        let afterCode = await after.exitCode()
        #expect(afterCode == 0, "\(after.transcript)")
        #expect(!after.errors.contains("warning:"), "\(after.errors)")
        reportFault("kill -9 mid-write (6 renames, 3 demos), then demo again", after, code: afterCode,
                    intact: try integrity(ofDatabaseAt: scratch.cache) == "ok" && !after.errors.contains("warning:"))
    }

    @Test("kill -9 right after a change is queued: every acknowledged change is kept, shown, and replayed once in order")
    func killedWithQueuedChanges() async throws {
        let scratch = try Scratch()
        let server = try await DevServer.start()
        defer { Task { await server.stop() } }
        let live = ["--endpoint", server.baseURL.absoluteString, "--cache", scratch.cache]
        let dead = Self.deadEndpoint + ["--cache", scratch.cache]
        #expect(await pantry(["login"] + live).code == 0)
        #expect(await pantry(["households"] + live).code == 0)
        #expect(await pantry(["households", "show", "hh-1"] + live).code == 0)

        var acknowledged: [String] = []
        for round in 1...4 {
            let child = try PantryProcess(["households", "rename", "hh-1", "Queued \(round)", "--queue", "--json"] + dead)
            // Killed as soon as it has said, in a whole line, that the change is queued, before it
            // exits by itself. (A warning on standard error is no reason to stop waiting: killed
            // then, it had not queued anything yet.)
            _ = await eventually { child.output.contains("\"queued\"") && child.output.hasSuffix("\n") || !child.isRunning }
            child.signal(SIGKILL)
            _ = await child.exitCode()
            let line = child.output.split(separator: "\n").first { $0.contains("queued") }.map(String.init) ?? ""
            let id = try JSONValue(parsing: line)["queued"]?.stringValue
            #expect(id != nil, "round \(round): \(child.transcript)")
            acknowledged += id.map { [$0] } ?? []
            #expect(try integrity(ofDatabaseAt: scratch.cache) == "ok", "round \(round)")
        }

        let listed = await pantry(["queue", "--json"] + dead)
        #expect(listed.code == 0, "\(listed.output)")
        let ids = (try JSONValue(parsing: listed.output.split(separator: "\n").first { $0.hasPrefix("[") }.map(String.init) ?? "[]")).arrayValue?
            .compactMap { $0["id"]?.stringValue }
        #expect(ids == acknowledged)
        // A new process shows the last queued name before anything is sent.
        #expect(try await Self.cachedHouseholds(scratch.cache)["hh-1"] == "Queued 4")

        let replay = await pantry(["queue", "replay", "--json"] + live)
        #expect(replay.code == 0, "\(replay.output)")
        let states = (try JSONValue(parsing: replay.output.split(separator: "\n").first { $0.hasPrefix("[") }.map(String.init) ?? "[]")).arrayValue
        #expect(states?.compactMap { $0["id"]?.stringValue } == acknowledged)
        #expect(states?.allSatisfy { $0["state"] == "done" } == true, "\(replay.output)")
        let after = await pantry(["queue", "--json"] + dead)
        #expect(after.output.contains("[]"), "\(after.output)")
        let shown = await pantry(["households", "show", "hh-1", "--json"] + live)
        #expect(try JSONValue(parsing: shown.output.split(separator: "\n").first { $0.hasPrefix("{") }.map(String.init) ?? "{}")["name"] == "Queued 4")
    }

    @Test("the server killed and restarted during watch: watch goes on or ends with one line, never hangs")
    func serverRestartDuringWatch() async throws {
        let scratch = try Scratch()
        let (first, url) = try await Self.serve()
        let port = try #require(URL(string: url)?.port)
        let endpoint = ["--endpoint", url, "--cache", scratch.cache]
        #expect(await pantry(["login"] + endpoint).code == 0)

        let watch = try PantryProcess(["watch", "hh-1"] + endpoint)
        #expect(await eventually { watch.output.contains("Watching") }, "\(watch.transcript)")
        #expect(await eventually { watch.errors.contains("connection: active") }, "\(watch.transcript)")
        #expect(await pantry(["households", "rename", "hh-1", "Before"] + endpoint).code == 0)
        #expect(await eventually { watch.output.contains("Before") }, "\(watch.transcript)")

        first.signal(SIGKILL)
        _ = await first.exitCode()
        #expect(await eventually { watch.errors.contains("reconnecting") }, "\(watch.transcript)")
        let (second, _) = try await Self.serve(port: port)
        defer { second.signal(SIGKILL) }

        // The new server forgot every token: watch either resumes or says, in one line, to log in.
        let resumedOrEnded = await eventually(timeout: .seconds(120)) {
            watch.output.contains("caught up after reconnecting") || watch.wasSignalled || watch.problemLines.contains { $0.hasPrefix("error:") }
        }
        #expect(resumedOrEnded, "\(watch.transcript)")
        if watch.output.contains("caught up after reconnecting") {
            #expect(await pantry(["login"] + endpoint).code == 0)
            #expect(await pantry(["households", "rename", "hh-1", "After"] + endpoint).code == 0)
            #expect(await eventually { watch.output.contains("After") }, "\(watch.transcript)")
            watch.signal(SIGINT)
        }
        let code = await watch.exitCode(timeout: .seconds(60))
        #expect(code != nil, "watch ended by itself or on Ctrl-C, without a crash: \(watch.transcript)")
        reportFault("dev server kill -9 and restart during watch", watch, code: code, intact: watch.output.contains("Before"))
        #expect(watch.problemLines.filter { $0.hasPrefix("error:") }.count <= 1, "\(watch.transcript)")
        #expect(watch.output.contains("Before"), "what was printed before stays printed: \(watch.transcript)")
    }

    @Test("sockets dropped during watch: a change made while the socket was down is shown")
    func changeWhileSocketDown() async throws {
        let scratch = try Scratch()
        let server = try await DevServer.start()
        defer { Task { await server.stop() } }
        let endpoint = ["--endpoint", server.baseURL.absoluteString, "--cache", scratch.cache]
        #expect(await pantry(["login"] + endpoint).code == 0)
        let watch = try PantryProcess(["watch", "hh-1"] + endpoint)
        #expect(await eventually { server.householdSubscriberCount("hh-1") == 1 }, "\(watch.transcript)")
        // Before: events published between the drop and the resubscription were never shown.
        server.webSocket.closeAll(code: 1001, reason: "fault test")
        #expect(await pantry(["households", "rename", "hh-1", "Renamed while down"] + endpoint).code == 0)
        #expect(await eventually { watch.output.contains("Renamed while down") }, "\(watch.transcript)")
        #expect(await eventually { watch.output.contains("(caught up after reconnecting)") }, "\(watch.transcript)")
        watch.signal(SIGINT)
        let code = await watch.exitCode(timeout: .seconds(30))
        reportFault("sockets dropped during watch, a rename meanwhile", watch, code: code, intact: watch.output.contains("Renamed while down"))
    }

    @Test("the server gone for good: watch stops on Ctrl-C at once, with what it printed")
    func serverGoneDuringWatch() async throws {
        let scratch = try Scratch()
        let (server, url) = try await Self.serve()
        let endpoint = ["--endpoint", url, "--cache", scratch.cache]
        #expect(await pantry(["login"] + endpoint).code == 0)
        let watch = try PantryProcess(["watch", "hh-1"] + endpoint)
        #expect(await eventually { watch.output.contains("Watching") }, "\(watch.transcript)")
        server.signal(SIGKILL)
        _ = await server.exitCode()
        #expect(await eventually { watch.errors.contains("reconnecting") }, "\(watch.transcript)")
        watch.signal(SIGINT)
        let code = await watch.exitCode(timeout: .seconds(30))
        #expect(code != nil || watch.wasSignalled, "\(watch.transcript)")
        #expect(watch.output.contains("Watching"))
        reportFault("dev server gone for good, Ctrl-C during watch", watch, code: code, intact: watch.output.contains("Watching"))
    }

    @Test("a server answering garbage, HTML, a truncated body or too late: exit 1, one line, the cache intact",
          arguments: ["garbage", "html", "truncated", "late"])
    func hostileServers(_ kind: String) async throws {
        let scratch = try Scratch()
        let real = try await DevServer.start()
        let endpoint = ["--endpoint", real.baseURL.absoluteString, "--cache", scratch.cache]
        #expect(await pantry(["login"] + endpoint).code == 0)
        #expect(await pantry(["households"] + endpoint).code == 0)
        await real.stop()
        let before = try await Self.cachedHouseholds(scratch.cache)

        var generator = SystemRandomNumberGenerator()
        let answer: Data
        switch kind {
        case "garbage":
            answer = RawHTTPServer.response(contentType: "application/json", body: Data((0..<2048).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        case "html":
            answer = RawHTTPServer.response(status: "502 Bad Gateway", contentType: "text/html", body: Data("<html><body><h1>502 Bad Gateway</h1></body></html>".utf8))
        case "truncated":
            answer = RawHTTPServer.response(contentType: "application/json", body: Data(#"{"data":{"households":[{"id":"hh-1","na"#.utf8), length: 5000)
        default:
            answer = RawHTTPServer.response(contentType: "application/json", body: Data(#"{"data":{}}"#.utf8))
        }
        let hostile = try RawHTTPServer(answer: answer, delay: kind == "late" ? .seconds(12) : .zero)
        defer { hostile.stop() }
        for command in [["households", "create", "Garage"], ["households", "show", "hh-1"], ["products", "show", "p-11", "--rest"]] {
            let child = try PantryProcess(command + ["--endpoint", hostile.url, "--cache", scratch.cache, "--timeout", "2"])
            let code = await child.exitCode(timeout: .seconds(60))
            #expect(code == 1, "\(command): \(child.transcript)")
            #expect(child.problemLines.count == 1, "\(command): one line: \(child.transcript)")
            #expect(!child.errors.contains("Error Domain") && !child.errors.contains("Fatal"), "\(child.transcript)")
            reportFault("server answers \(kind): pantry \(command.joined(separator: " "))", child, code: code, intact: true)
        }
        #expect(try integrity(ofDatabaseAt: scratch.cache) == "ok")
        #expect(try await Self.cachedHouseholds(scratch.cache) == before, "nothing cached was lost or changed")
    }

    @Test("a full disk mid-run: one warning, the command still works, and the cache file stays sound")
    func diskFull() async throws {
        let scratch = try Scratch()
        // 160 blocks of 512 bytes (sh counts in 512) let the cache open (its tables, the offline
        // queue's included) and fail at a later commit of the demo's writes.
        let demo = try PantryProcess(["demo", "--cache", scratch.cache], limits: "ulimit -f 160")
        let code = await demo.exitCode()
        #expect(code == 0, "\(demo.transcript)")
        #expect(demo.output.contains("embedded server stopped"), "\(demo.transcript)")
        #expect(demo.output.contains("the queue replayed: the server took the rename"), "\(demo.transcript)")
        // One warning for the cache; the offline queue, in the same file, says once that it goes on
        // in memory when the demo queues its rename.
        #expect(demo.problemLines.first?.contains("The persistent cache failed while writing and is set aside") == true, "\(demo.transcript)")
        #expect(demo.problemLines.dropFirst().allSatisfy { $0.contains("The offline queue's store failed while queueing") }, "\(demo.transcript)")
        #expect(demo.problemLines.count <= 2, "\(demo.transcript)")
        reportFault("disk full (ulimit -f 160) during demo", demo, code: code, intact: try integrity(ofDatabaseAt: scratch.cache) == "ok")
        #expect(try integrity(ofDatabaseAt: scratch.cache) == "ok")
        let again = try PantryProcess(["demo", "--cache", scratch.cache])
        #expect(await again.exitCode() == 0, "\(again.transcript)")
        #expect(again.problemLines.isEmpty, "\(again.transcript)")
    }

    @Test("a cache folder made read-only between runs and during watch: the file is left as it is")
    func readOnlyCache() async throws {
        let scratch = try Scratch()
        // The children run as the `nobody` user, from a copy of pantry within its reach wherever the clone is.
        let installed = try InstalledPantry()
        _ = chmod(scratch.url.path, 0o777)
        let server = try await DevServer.start()
        defer { Task { await server.stop() } }
        let endpoint = ["--endpoint", server.baseURL.absoluteString, "--cache", scratch.cache]
        let login = try PantryProcess(["login"] + endpoint, executable: installed.executable, user: nobody)
        #expect(await login.exitCode() == 0, "\(login.transcript)")
        let first = try PantryProcess(["households"] + endpoint, executable: installed.executable, user: nobody)
        #expect(await first.exitCode() == 0, "\(first.transcript)")

        let watch = try PantryProcess(["watch", "hh-1", "--count", "1"] + endpoint, executable: installed.executable, user: nobody)
        #expect(await eventually { watch.errors.contains("connection: active") }, "\(watch.transcript)")
        for file in [scratch.cache, scratch.cache + "-wal", scratch.cache + "-shm"] { _ = chmod(file, 0o444) }
        _ = chmod(scratch.url.path, 0o555)
        defer { _ = chmod(scratch.url.path, 0o777) }
        // Someone else, with a cache of their own, renames the household.
        let other = try Scratch()
        let otherEndpoint = ["--endpoint", server.baseURL.absoluteString, "--cache", other.cache]
        #expect(await pantry(["login"] + otherEndpoint).code == 0)
        #expect(await pantry(["households", "rename", "hh-1", "Read-only"] + otherEndpoint).code == 0)
        #expect(await watch.exitCode() == 0, "\(watch.transcript)")
        #expect(watch.output.contains("Read-only"), "\(watch.transcript)")

        let bytes = try Data(contentsOf: URL(fileURLWithPath: scratch.cache))
        let later = try PantryProcess(["households"] + endpoint, executable: installed.executable, user: nobody)
        #expect(await later.exitCode() == 0, "\(later.transcript)")
        #expect(later.output.contains("Read-only"), "the server's answer is shown: \(later.transcript)")
        #expect(later.problemLines.count == 1, "\(later.transcript)")
        #expect(later.problemLines.first?.contains("cannot be used; the cache stays in memory") == true, "\(later.transcript)")
        let unchanged = try Data(contentsOf: URL(fileURLWithPath: scratch.cache)) == bytes
        #expect(unchanged, "the file is left as it is")
        reportFault("cache folder and file made read-only during watch, then households", later, code: 0, intact: unchanged)
    }

    @Test("a token file that cannot be read or is corrupt: one warning naming it, and the command goes on")
    func unreadableToken() async throws {
        let scratch = try Scratch()
        let token = scratch.url.appendingPathComponent("token.json")
        // A link to itself cannot be opened by anyone, root included.
        try FileManager.default.createSymbolicLink(atPath: token.path, withDestinationPath: token.path)
        let looped = try PantryProcess(["me", "--cache", scratch.cache] + Self.deadEndpoint)
        #expect(await looped.exitCode() == 1, "\(looped.transcript)")
        #expect(looped.problemLines.first?.hasPrefix("warning: could not read the saved token at \(token.path)") == true, "\(looped.transcript)")
        #expect(looped.problemLines.first?.contains("a link that cannot be followed") == true, "\(looped.transcript)")
        #expect(looped.problemLines.count == 2, "the warning, then the failure of `me`: \(looped.transcript)")
        reportFault("token file unreadable (a link to itself)", looped, code: 1, intact: true)

        try FileManager.default.removeItem(at: token)
        try Data([0xFF, 0x00, 0x7B]).write(to: token)
        let corrupt = try PantryProcess(["me", "--cache", scratch.cache] + Self.deadEndpoint)
        #expect(await corrupt.exitCode() == 1, "\(corrupt.transcript)")
        #expect(corrupt.problemLines.first?.contains("the file is damaged; log in again") == true, "\(corrupt.transcript)")
        #expect(try Data(contentsOf: token) == Data([0xFF, 0x00, 0x7B]), "a damaged token file is left for the user to see")
        reportFault("token file corrupt", corrupt, code: 1, intact: true)
    }
}
