import ArgumentParser
import DevServer
import Foundation

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the embedded dev server on a loopback port until interrupted.",
        discussion: """
            The server every other command starts for itself when no --endpoint is given, kept running so that several pantry processes (or an app) share it:

              pantry serve --port 4000
              pantry watch hh-1 --endpoint http://127.0.0.1:4000/
              pantry households rename hh-1 Cabin --endpoint http://127.0.0.1:4000/

            Its data lives in memory and starts afresh on every run; log in again after a restart.
            """)

    @Option(help: "The loopback port to listen on; 0 picks a free one.") var port = 4000

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, not \(port)") }
    }

    func run() async throws {
        let console = Console.current
        let server: DevServer
        do {
            server = try await DevServer.start(DevServer.Options(port: port))
        } catch {
            console.note(console.red("error: ") + "could not start the dev server on 127.0.0.1:\(port): \(error)")
            throw ExitCode.failure
        }
        console.print("dev server listening at \(server.baseURL.absoluteString); Ctrl-C stops it")
        try await server.wait()
    }
}
