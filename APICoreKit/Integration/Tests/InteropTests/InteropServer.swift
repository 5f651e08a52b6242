import APICoreTestServer
import Foundation

/// The third-party server of the interop suite (`Interop/server.py`: strawberry-graphql under
/// uvicorn) as a child process on 127.0.0.1. `Interop/setup.sh` installs it first, once per test
/// run; when that fails, starting throws its one line.
final class InteropServer: @unchecked Sendable {
    /// `APICoreKit/Integration/Interop`.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Interop").standardized
    /// The virtualenv's Python.
    static let python = directory.appendingPathComponent("../.build-interop/venv/bin/python").standardized

    /// Why the server could not be installed or started, in one line.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The port it listens on.
    let port: Int
    private let process: Process
    private let output: Locked<String>

    var httpURL: URL { URL(string: "http://127.0.0.1:\(port)/graphql")! }
    var webSocketURL: URL { URL(string: "ws://127.0.0.1:\(port)/graphql")! }

    private init(port: Int, process: Process, output: Locked<String>) {
        self.port = port
        self.process = process
        self.output = output
    }

    /// Installs (once) and starts the server (`script`: strawberry's, or `hasura/server.py`);
    /// `port` 0 takes any free one.
    static func start(script: String = "server.py", port: Int = 0) async throws -> InteropServer {
        try await Installation.shared.ensure()
        let (process, output) = try launch([script, "--port", String(port)])
        let started = await eventually({ output.withLock { $0.contains("listening on ") } || !process.isRunning }, timeout: .seconds(60))
        let text = output.withLock { $0 }
        guard started, process.isRunning,
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
            let bound = Int(line.dropFirst("listening on ".count).trimmingCharacters(in: .whitespaces))
        else {
            if process.isRunning { process.terminate() }
            throw Failure(description: "interop: \(script) did not start: \(text.split(separator: "\n").last ?? "no output")")
        }
        return InteropServer(port: bound, process: process, output: output)
    }

    /// Runs the server script with `arguments` and returns what it printed, once it exited.
    static func run(_ arguments: [String]) async throws -> String {
        try await Installation.shared.ensure()
        let (process, output) = try launch(arguments)
        _ = await eventually({ !process.isRunning }, timeout: .seconds(60))
        return output.withLock { $0 }
    }

    /// Kills the server at once (SIGKILL), as a crash would, and waits until it is gone.
    func kill() async {
        Foundation.kill(process.processIdentifier, SIGKILL)
        _ = await eventually({ !self.process.isRunning }, timeout: .seconds(30))
    }

    /// Stops the server (SIGTERM, then SIGKILL if it is still there after 10 s) and waits until it is gone.
    func stop() async {
        if process.isRunning { process.terminate() }
        if await eventually({ !self.process.isRunning }, timeout: .seconds(10)) { return }
        await kill()
    }

    private static func launch(_ arguments: [String]) throws -> (Process, Locked<String>) {
        let process = Process()
        process.executableURL = python
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = Locked("")
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
            } else {
                output.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
        do {
            try process.run()
        } catch {
            throw Failure(description: "interop: cannot run \(python.path): \(error.localizedDescription)")
        }
        return (process, output)
    }

    /// `Interop/setup.sh`, run at most once per test process.
    private actor Installation {
        static let shared = Installation()
        private var outcome: Result<Void, Failure>?

        func ensure() throws {
            if let outcome { return try outcome.get() }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["bash", InteropServer.directory.appendingPathComponent("setup.sh").path]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            let result: Result<Void, Failure>
            do {
                try process.run()
                let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                result = process.terminationStatus == 0
                    ? .success(()) : .failure(Failure(description: message.split(separator: "\n").last.map(String.init) ?? "interop: setup.sh failed"))
            } catch {
                result = .failure(Failure(description: "interop: cannot run Interop/setup.sh: \(error.localizedDescription)"))
            }
            outcome = result
            try result.get()
        }
    }
}
