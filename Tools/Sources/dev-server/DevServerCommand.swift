import ArgumentParser
import DevServer
import Foundation
import Logging

/// `dev-server`: the dev server on its own, until interrupted.
@main
struct DevServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev-server",
        abstract: "Serve the root schema.graphqls over seeded data: GraphQL over HTTP and WebSocket, REST, log-in.",
        discussion: """
            Users alice@example.com, bob@example.com and carol@example.com log in with the password "pantry".
            Endpoints: POST/GET /graphql, ws://…/graphql (graphql-transport-ws and graphql-ws), GET /products/{id},
            GET /products/{id}/price-history, POST /auth/login, /auth/refresh, /auth/logout, /session/login, /session/logout,
            GET/POST /dev/switches, POST /dev/drop-sockets, GET /health.
            """)

    @Option(help: "The port to listen on (0 picks a free one).")
    var port: Int = 4000

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(name: .customLong("latency-ms"), help: "Milliseconds added to every HTTP response.")
    var latency: Int = 0

    @Option(name: .customLong("failure-rate"), help: "The share of HTTP requests answered 503, from 0 to 1.")
    var failureRate: Double = 0

    @Option(name: .customLong("drop-sockets-every"), help: "Close every WebSocket after this many seconds.")
    var dropSocketsEvery: Double?

    @Flag(name: .customLong("no-introspection"), help: "Refuse introspection queries, as production servers often do.")
    var noIntrospection = false

    @Flag(help: "Log each request.")
    var verbose = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard (0...1).contains(failureRate) else { throw ValidationError("--failure-rate must be between 0 and 1") }
        guard latency >= 0 else { throw ValidationError("--latency-ms must not be negative") }
        if let dropSocketsEvery, dropSocketsEvery <= 0 { throw ValidationError("--drop-sockets-every must be positive") }
    }

    func run() async throws {
        var logger = Logger(label: "dev-server")
        logger.logLevel = verbose ? .info : .warning
        let server = try await DevServer.start(DevServer.Options(
            port: port, host: host,
            switches: DevServer.Switches(latencyMilliseconds: latency, failureRate: failureRate, dropSocketsEverySeconds: dropSocketsEvery),
            logger: logger, introspection: !noIntrospection))
        print("dev server at \(server.baseURL.absoluteString) (GraphQL \(server.graphQLURL.absoluteString), WebSocket \(server.webSocketURL.absoluteString)); Ctrl-C stops it")
        try await server.wait()
    }
}

