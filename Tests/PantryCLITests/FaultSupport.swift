import Foundation
import GRDB
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The `pantry` executable SwiftPM built beside this test bundle, or the one `PANTRY_EXECUTABLE`
/// names (a release build: `PANTRY_EXECUTABLE=.build/release/pantry swift test --filter FaultTests`).
let pantryExecutable: URL = ProcessInfo.processInfo.environment["PANTRY_EXECUTABLE"].map { URL(fileURLWithPath: $0) }
    ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pantry")

/// The repository this test file is in.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The user id of `nobody`, whom children run as when file permissions must apply to them.
let nobody: UInt32 = 65534

/// `pantry` copied alone into an empty folder that every user can read and run, as an installed
/// binary is: children that run as another user run this copy, wherever the clone lives (a clone
/// under a 0700 home folder is out of their reach). Removed with the value.
final class InstalledPantry {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-installed-\(UUID().uuidString)")
    var executable: URL { folder.appendingPathComponent("pantry") }

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileManager.default.copyItem(at: pantryExecutable, to: executable)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: executable.path)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }
}

/// Polls `condition` until it holds or `timeout` passes; answers whether it held.
func eventually(timeout: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// `pantry` as a child process, its standard output and error collected as they come.
final class PantryProcess: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    private var openPipes = 2

    /// Starts `pantry arguments`. `limits` is shell text run before it (`ulimit -f 64`); `user` runs it
    /// as that user id when this process is root (so that file permissions apply to it); `hiding`
    /// lays an empty folder over each of these folders for the child alone (a mount namespace of its
    /// own), so that nothing in them is within its reach, and starts it in its executable's folder.
    init(_ arguments: [String], executable: URL = pantryExecutable, limits: String? = nil, user: UInt32? = nil, hiding: [URL] = []) throws {
        var command = [executable.path] + arguments
        if let limits {
            // A signal ignored before exec stays ignored, so a write past the limit fails with EFBIG
            // instead of killing the process: what a full disk does.
            command = ["/bin/sh", "-c", "\(limits); trap '' XFSZ; exec \"$0\" \"$@\""] + command
        }
        if let user, getuid() == 0 {
            command = ["/usr/bin/setpriv", "--reuid=\(user)", "--regid=\(user)", "--clear-groups", "--"] + command
        }
        if !hiding.isEmpty {
            // Root may mount in a namespace of its own; anyone else maps themselves to root in a user
            // namespace first. The mounts end with the child.
            let namespace = getuid() == 0 ? ["--mount"] : ["--user", "--map-root-user", "--mount"]
            let mounts = #"while [ "$1" != -- ]; do mount -t tmpfs -o size=64k,mode=0755 hidden "$1" || exit 97; shift; done; shift; exec "$@""#
            command = ["/usr/bin/unshare"] + namespace + ["--", "/bin/sh", "-c", mounts, "sh"] + hiding.map(\.path) + ["--"] + command
            // (A working directory inside a hidden folder would still reach into it.)
            process.currentDirectoryURL = executable.deletingLastPathComponent()
        }
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        stdout.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.append(handle, error: false) }
        stderr.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.append(handle, error: true) }
        try process.run()
    }

    private func append(_ handle: FileHandle, error: Bool) {
        let data = handle.availableData
        if data.isEmpty {  // end of file: the process and its children closed the pipe
            handle.readabilityHandler = nil
            lock.withLock { openPipes -= 1 }
            return
        }
        lock.withLock { if error { err.append(data) } else { out.append(data) } }
    }

    /// What it wrote to standard output so far.
    var output: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
    /// What it wrote to standard error so far.
    var errors: String { lock.withLock { String(decoding: err, as: UTF8.self) } }
    /// Both, for failure messages.
    var transcript: String { "stdout:\n\(output)\nstderr:\n\(errors)" }

    /// Sends a signal.
    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for it to end; answers its exit status, or nil when it was killed by a signal or is
    /// still running after `timeout` (then it is killed).
    func exitCode(timeout: Duration = .seconds(90)) async -> Int32? {
        guard await eventually(timeout: timeout, { !process.isRunning }) else {
            signal(SIGKILL)
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        // The last output may still be in the pipes: wait for their end.
        _ = await eventually(timeout: .seconds(10)) { lock.withLock { openPipes == 0 } }
        return process.terminationReason == .exit ? process.terminationStatus : nil
    }

    /// Whether it has not ended yet.
    var isRunning: Bool { process.isRunning }

    /// Whether it was ended by a signal.
    var wasSignalled: Bool { !process.isRunning && process.terminationReason == .uncaughtSignal }

    /// The lines of standard error that are not dim progress notes.
    var problemLines: [String] {
        errors.split(separator: "\n").map(String.init).filter { $0.hasPrefix("error:") || $0.hasPrefix("warning:") }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// A loopback HTTP server that answers every request with the same raw bytes, after a delay,
/// then closes the connection: a server answering garbage, HTML, a truncated body, or too late.
final class RawHTTPServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let answer: Data
    private let delayMilliseconds: Int32
    private let done = DispatchSemaphore(value: 0)

    init(answer: Data, delay: Duration = .zero) throws {
        self.answer = answer
        delayMilliseconds = Int32(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    var url: String { "http://127.0.0.1:\(port)/" }

    /// With `Content-Type` and `Content-Length` for `body` (or `length`, for a body cut short).
    static func response(status: String = "200 OK", contentType: String, body: Data, length: Int? = nil) -> Data {
        Data("HTTP/1.1 \(status)\r\nContent-Type: \(contentType)\r\nContent-Length: \(length ?? body.count)\r\nConnection: close\r\n\r\n".utf8) + body
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { break }
            readRequest(connection)
            // Waits out the delay, but not for a client that has gone.
            var poller = pollfd(fd: connection, events: 0x2000 /* POLLRDHUP: the peer closed */, revents: 0)
            if delayMilliseconds > 0, poll(&poller, 1, delayMilliseconds) > 0 {
                close(connection)
                continue
            }
            answer.withUnsafeBytes { bytes in _ = send(connection, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
            shutdown(connection, Int32(SHUT_WR))
            close(connection)
        }
        done.signal()
    }

    /// Reads the head and the body that `Content-Length` announces (bounded).
    private func readRequest(_ connection: Int32) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while received.count < 1_000_000 {
            if let headEnd = received.range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<headEnd.lowerBound], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count - headEnd.upperBound >= length { return }
            }
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            received.append(contentsOf: buffer[..<count])
        }
    }

    /// Stops accepting and waits for the serving thread to end.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        done.wait()
    }
}

/// `PRAGMA integrity_check` of a SQLite file: "ok" when it is sound.
func integrity(ofDatabaseAt path: String) throws -> String {
    let database = try DatabaseQueue(path: path)
    return try database.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") ?? "no answer" }
}

/// What a cache file holds, read through a read-only connection: each record (key, fields, time
/// received) and the last row of its change log. Equal before and after: nothing was written,
/// whatever checkpoints moved between the file and its write-ahead log.
func cacheContents(ofDatabaseAt path: String) throws -> [String] {
    var configuration = Configuration()
    configuration.readonly = true
    return try DatabaseQueue(path: path, configuration: configuration).read { db in
        try String.fetchAll(db, sql: "SELECT key || ' ' || hex(fields) || ' ' || received_at FROM apicore_records ORDER BY key")
            + [String(try Int.fetchOne(db, sql: "SELECT max(seq) FROM apicore_changes") ?? 0)]
    }
}

/// Prints one row of the fault-suite table (`swift test --filter FaultTests | grep '^| '`): the
/// case, the exit code, the first problem line `pantry` printed, and whether the data was intact.
func reportFault(_ name: String, _ child: PantryProcess, code: Int32?, intact: Bool) {
    let line = child.problemLines.first ?? child.output.split(separator: "\n").last.map(String.init) ?? ""
    print("| \(name) | \(code.map(String.init) ?? (child.wasSignalled ? "signal" : "none")) | \(line.prefix(160)) | \(intact ? "yes" : "NO") |")
}
