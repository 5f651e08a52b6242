@_spi(Engine) @_spi(Generated) @testable import APICore
import APICoreSupport
@testable import APICoreLive
import APICoreSQLite
import APICoreTesting
import Foundation
import Logging
import Synchronization
import Testing

/// Real processes on one cache file: this test process and `apicore-cache-peer`, which SwiftPM
/// builds beside the tests (Benchmarks/apicore-cache-peer).
@Suite("Processes sharing one cache file")
struct ProcessTests {
    static let peer = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("apicore-cache-peer")

    /// The peer running, its output as lines (and every line so far in `received`); its standard
    /// input closes (and it ends) with `finish()`.
    final class Peer: @unchecked Sendable {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        let lines: AsyncStream<String>
        let received = Received()

        /// The lines it wrote so far, and whether its output ended.
        final class Received: Sendable {
            let lines = Mutex<[String]>([])
            let ended = Mutex(false)
        }

        init(_ arguments: [String]) throws {
            process.executableURL = ProcessTests.peer
            process.arguments = arguments
            process.standardInput = input
            process.standardOutput = output
            let (lines, continuation) = AsyncStream.makeStream(of: String.self)
            self.lines = lines
            let reading = output.fileHandleForReading
            let received = self.received
            // A thread of its own reads the output to its end (the pipe's end is the process's).
            Thread.detachNewThread {
                var pending = Data()
                while case let chunk = reading.availableData, !chunk.isEmpty {
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        received.lines.withLock { $0.append(line) }
                        continuation.yield(line)
                        pending.removeSubrange(pending.startIndex...newline)
                    }
                }
                received.ended.withLock { $0 = true }
                continuation.finish()
            }
            try process.run()
        }

        /// Waits for a line that `matches`, for at most `timeout`; answers it, or `nil`.
        func line(within timeout: Duration = .seconds(60), where matches: @escaping @Sendable (String) -> Bool) async -> String? {
            let lines = self.lines
            let reader = Task { () -> String? in
                for await line in lines where matches(line) { return line }
                return nil
            }
            let deadline = Task {
                try? await Task.sleep(for: timeout)
                reader.cancel()
            }
            defer { deadline.cancel() }
            return await reader.value
        }

        /// A peer a failed test left running is stopped.
        deinit { if process.isRunning { process.terminate() } }

        /// Waits for its output to end (it exited, or was killed), for at most `timeout`, without
        /// holding a thread; answers whether it ended.
        func ended(within timeout: Duration = .seconds(180)) async -> Bool {
            _ = await line(within: timeout) { _ in false }
            return received.ended.withLock { $0 }
        }

        /// Kills it at once (`SIGKILL`: no cleanup, as the system kills a process) and waits for it.
        func killAbruptly() {
            _ = kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        /// Closes its input and waits for it to end; answers its exit status.
        func finish() -> Int32 {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// This process's client of `file`, with the record `Note:1` (`n` 0) saved in it.
    static func store(at file: URL) async -> NormalizedStore {
        let store = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        await CacheWriter(store: store).write(records: ["Note:1": ["__typename": "Note", "n": 0]])
        await store.persisted()
        return store
    }

    @Test("a write in another process wakes this process's watcher of that record (and it reads the new fields)")
    func otherProcessWakesWatcher() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let store = await Self.store(at: file)
        let (numbers, continuation) = AsyncStream.makeStream(of: Int.self)
        let watcher = await store.addWatcher(dependencies: ["Note:1"]) { store in
            if let number = store.record("Note:1")?.fields["n"]?.intValue { continuation.yield(number) }
            return ["Note:1"]
        }
        let writer = try Peer(["write", file.path, "Note:1", "3", "0"])
        let deadline = Task {
            try? await Task.sleep(for: .seconds(60))
            continuation.finish()
        }
        var last = 0
        for await number in numbers {
            last = number
            if number == 3 { break }
        }
        deadline.cancel()
        #expect(last == 3, "the watcher saw the peer's writes up to \(last)")
        #expect(writer.finish() == 0)
        await store.removeWatcher(watcher)
    }

    @Test("a write in this process wakes a watcher in another process")
    func thisProcessWakesOther() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let store = await Self.store(at: file)
        let watching = try Peer(["watch", file.path, "Note:1"])
        #expect(await watching.line { $0 == "ready" } != nil)
        await CacheWriter(store: store).write(records: ["Note:1": ["__typename": "Note", "n": 5]])
        await store.persisted()
        #expect(await watching.line { $0 == "5" } != nil, "the other process's watcher did not see the write")
        #expect(watching.finish() == 0)
    }
}
