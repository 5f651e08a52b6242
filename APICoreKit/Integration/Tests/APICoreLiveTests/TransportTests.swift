import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

@Suite("Transport failures, timeouts and cancellation")
struct TransportTests {
    func client(_ url: String, timeout: Duration = .seconds(5)) -> any APIClient {
        makeTestClient(APIClientConfiguration(restBaseURL: URL(string: url)!, timeout: timeout, retryPolicy: nil))
    }

    func transportKind(_ error: APIError?) -> TransportFailure.Kind? {
        if case .transport(let failure) = error { return failure.kind }
        Issue.record("expected a transport failure, got \(String(describing: error))")
        return nil
    }

    @Test("nothing listening: connection refused, worth a retry")
    func connectionRefused() async {
        let refused = RefusedPort()
        let client = client("http://127.0.0.1:\(refused.port)/")
        let error = await apiError { () async throws(APIError) in try await client.fetch(HeroNameQuery()) }
        withExtendedLifetime(refused) {}
        #expect(transportKind(error) == .connectionRefused)
        #expect(error?.recovery == .retry)
    }

    @Test("a host that does not resolve: unknown host")
    func unknownHost() async {
        // `.invalid` never resolves (RFC 6761).
        let client = client("http://apicorekit-test.invalid/")
        let error = await apiError { () async throws(APIError) in try await client.send(RESTRequest<JSONValue>.get("x")) }
        #expect(transportKind(error) == .cannotFindHost)
    }

    @Test("a connection closed without an answer: connection lost")
    func closedConnection() async throws {
        let server = try ClosingServer()
        defer { server.stop() }
        let client = client("http://127.0.0.1:\(server.port)/")
        let error = await apiError { () async throws(APIError) in try await client.fetch(HeroNameQuery()) }
        #expect(transportKind(error) == .connectionLost)
        #expect(error?.recovery == .retry)
    }

    @Test("a response slower than the timeout: timed out, well before the server answers")
    func timeout() async throws {
        try await withServer(timeout: .milliseconds(300)) { server, client in
            server.respond("slow", status: 200, body: "{}", delay: .seconds(5))
            let start = ContinuousClock.now
            let error = await apiError { () async throws(APIError) in try await client.send(RESTRequest<JSONValue>.get("slow")) }
            #expect(transportKind(error) == .timedOut)
            #expect(ContinuousClock.now - start < .milliseconds(4500))  // before the server's answer at 5 s

            // A request's own timeout wins over the client's.
            server.respond("slowish", status: 200, body: #"{"ok": true}"#, delay: .milliseconds(600))
            var patient = RESTRequest<JSONValue>.get("slowish")
            patient.timeout = .seconds(5)
            let answer = try await client.send(patient)
            #expect(answer.value == ["ok": true])
        }
    }

    @Test("a timeout is our own deadline: never before it, also below a second and between whole seconds",
          arguments: [250, 900, 1500])
    func exactTimeouts(_ milliseconds: Int) async throws {
        try await withServer { server, client in
            server.respond("never", status: 200, body: "{}", delay: .seconds(30))
            var request = RESTRequest<JSONValue>.get("never")
            request.timeout = .milliseconds(milliseconds)
            let start = ContinuousClock.now
            let error = await apiError { () async throws(APIError) in try await client.send(request) }
            let elapsed = ContinuousClock.now - start
            #expect(transportKind(error) == .timedOut)
            // Load only makes it later: the lower bound is exact, the upper one has room for a busy machine.
            #expect(elapsed >= .milliseconds(milliseconds), "timed out after \(elapsed)")
            #expect(elapsed < .milliseconds(milliseconds) + .seconds(5), "timed out after \(elapsed)")
        }
    }

    @Test("cancelling the calling task cancels the HTTP request at once")
    func cancellation() async throws {
        try await withServer { server, client in
            server.respond("graphql", status: 200, body: #"{"data":{"hero":null}}"#, delay: .seconds(10))
            let start = ContinuousClock.now
            let task = Task { () async throws(APIError) -> Response<HeroNameQuery.Data> in try await client.fetch(HeroNameQuery()) }
            // Wait until the server has the request, then cancel.
            for _ in 0..<200 where server.requests(to: "graphql").isEmpty {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(server.requests(to: "graphql").count == 1)
            task.cancel()
            let result = await task.result
            guard case .failure(let error) = result, case .cancelled? = error as? APIError else {
                Issue.record("expected cancelled, got \(result)")
                return
            }
            #expect(ContinuousClock.now - start < .seconds(9))  // before the server's answer at 10 s
        }
    }

    @Test("a task cancelled before sending sends nothing")
    func cancelledBeforeSending() async throws {
        try await withServer { server, client in
            let task = Task { () async throws(APIError) -> Response<JSONValue> in
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.send(RESTRequest<JSONValue>.get("echo"))
            }
            guard case .failure(let error) = await task.result, case .cancelled? = error as? APIError else {
                Issue.record("expected cancelled")
                return
            }
            #expect(server.requests(to: "echo").isEmpty)
        }
    }
}
