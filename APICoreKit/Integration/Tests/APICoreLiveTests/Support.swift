import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import Logging
import Testing

struct Item: Codable, Sendable, Hashable {
    var id: String
    var name: String
    var price: Double
    var tags: [String]
}

struct NewItem: Codable, Sendable {
    var name: String?
    var price: Double?
    var tags: [String]?
}

/// Runs `body` with a fresh test server and a client pointed at it, and stops the server after.
/// Retries are off unless a test asks for them, so that each test sees one behaviour.
func withServer<T>(
    timeout: Duration = .seconds(10),
    middlewares: [any Middleware] = [],
    queryMethod: APIClientConfiguration.QueryMethod = .post,
    defaultHeaders: [String: String] = [:],
    authentication: Authentication? = nil,
    retryPolicy: RetryPolicy? = nil,
    logger: Logger = Logger(label: "test"),
    _ body: (TestServer, any APIClient) async throws -> T
) async throws -> T {
    try await TestServer.with { server in
        let client = makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, defaultHeaders: defaultHeaders, timeout: timeout, middlewares: middlewares,
            queryMethod: queryMethod, logger: logger, authentication: authentication, retryPolicy: retryPolicy))
        return try await body(server, client)
    }
}

/// The error a call threw, or a test failure when it succeeded.
func apiError<T>(_ call: () async throws(APIError) -> T, sourceLocation: SourceLocation = #_sourceLocation) async -> APIError? {
    let error = await thrownError(call)
    if error == nil { Issue.record("expected an APIError", sourceLocation: sourceLocation) }
    return error
}
