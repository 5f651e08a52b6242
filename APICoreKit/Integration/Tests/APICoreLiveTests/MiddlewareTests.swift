@_spi(Tools) import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Synchronization
import Testing

/// Records the order in which middlewares see requests and responses.
final class Trace: Sendable {
    let events = Mutex<[String]>([])
    func add(_ event: String) { events.withLock { $0.append(event) } }
    var all: [String] { events.withLock { $0 } }
}

struct Tagging: Middleware {
    let name: String
    let trace: Trace
    func intercept(_ request: URLRequest, context: RequestContext, next: MiddlewareNext) async throws(APIError) -> TransportResponse {
        var request = request
        request.addValue(name, forHTTPHeaderField: "X-Chain")
        trace.add("\(name) → \(context.operationName)")
        let response = try await next(request)
        trace.add("\(name) ← \(response.statusCode)")
        return response
    }
}

/// Retries once when the error says a retry can help.
struct RetryOnce: Middleware {
    let trace: Trace
    func intercept(_ request: URLRequest, context: RequestContext, next: MiddlewareNext) async throws(APIError) -> TransportResponse {
        do throws(APIError) {
            return try await next(request)
        } catch where error.recovery == .retry && context.isIdempotent {
            trace.add("retry after \(error.statusCode ?? 0)")
            return try await next(request)
        }
    }
}

@Suite("One middleware chain for REST and GraphQL")
struct MiddlewareTests {
    @Test("middlewares run outermost first on REST and GraphQL alike, and can change the request")
    func order() async throws {
        let trace = Trace()
        try await withServer(middlewares: [Tagging(name: "outer", trace: trace), Tagging(name: "inner", trace: trace)]) { server, client in
            _ = try await client.send(RESTRequest<JSONValue>.get("echo"))
            _ = try await client.fetch(HeroNameQuery())
            #expect(trace.all == [
                "outer → GET echo", "inner → GET echo", "inner ← 200", "outer ← 200",
                "outer → HeroName", "inner → HeroName", "inner ← 200", "outer ← 200",
            ])
            #expect(server.requests(to: "echo").last?.headers["x-chain"] == "outer,inner")
            #expect(server.requests(to: "graphql").last?.headers["x-chain"] == "outer,inner")
        }
    }

    @Test("a middleware sees errors as APIError and can retry")
    func retry() async throws {
        let trace = Trace()
        try await withServer(middlewares: [RetryOnce(trace: trace)]) { server, client in
            server.respond("flaky", with: [
                .init(status: 503, contentType: "text/plain", body: "busy"),
                .init(status: 200, body: #"{"ok": true}"#),
            ])
            let response = try await client.send(RESTRequest<JSONValue>.get("flaky"))
            #expect(response.value == ["ok": true])
            #expect(trace.all == ["retry after 503"])
            #expect(server.requests(to: "flaky").count == 2)

            // A mutation is not idempotent: the middleware leaves it alone.
            server.respond("graphql", status: 502, contentType: "text/plain", body: "bad gateway")
            let error = await apiError { () async throws(APIError) in
                try await client.perform(CreateReviewMutation(episode: nil, review: ReviewInput(stars: 1)))
            }
            #expect(error?.statusCode == 502)
            #expect(server.requests(to: "graphql").count == 1)
        }
    }

    @Test("a middleware can answer without calling the transport")
    func shortCircuit() async throws {
        let offline = ClosureMiddleware { _, context, _ throws(APIError) in
            TransportResponse(
                statusCode: 200, headers: ["Content-Type": "application/json"],
                body: Data(#"{"data":{"hero":{"__typename":"Human","id":"1","name":"Stub","friends":[]}}}"#.utf8), url: nil)
        }
        try await withServer(middlewares: [offline]) { server, client in
            let response = try await client.fetch(HeroNameQuery())
            #expect(response.value.hero?.name == "Stub")
            #expect(server.requests.isEmpty)
        }
    }

    @Test("a middleware that rewrites the body: the engine reads the new body, not the one the transport parsed")
    func rewrittenBody() async throws {
        let rename = ClosureMiddleware { request, _, next throws(APIError) in
            var response = try await next(request)
            let text = String(decoding: response.body, as: UTF8.self).replacingOccurrences(of: "R2-D2", with: "Rewritten")
            response.body = Data(text.utf8)
            return response
        }
        let keepBody = ClosureMiddleware { request, _, next throws(APIError) in
            var response = try await next(request)
            response.headers["x-seen"] = "yes"  // headers only: the transport's parse still holds
            return response
        }
        try await withServer(middlewares: [rename]) { server, client in
            let response = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
            #expect(response.value.hero?.name == "Rewritten")
            #expect(server.requests(to: "graphql").count == 1)
        }
        try await withServer(middlewares: [keepBody]) { _, client in
            let response = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
            #expect(response.value.hero?.name == "R2-D2")
            #expect(response.metadata.headers["x-seen"] == "yes")
        }
        // A body replaced by one that is not a GraphQL response is checked as the transport's would be.
        let broken = ClosureMiddleware { request, _, next throws(APIError) in
            var response = try await next(request)
            response.body = Data("<html>gateway</html>".utf8)
            return response
        }
        try await withServer(middlewares: [broken]) { _, client in
            let error = await apiError { () async throws(APIError) in try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly) }
            guard case .invalidResponse(let failure)? = error, case .notJSON = failure.kind else {
                Issue.record("expected a body that is not JSON, got \(String(describing: error))")
                return
            }
        }
    }

    @Test("a request's own values and its document id reach the middleware; the answer's extensions reach the caller")
    func contextAndExtensions() async throws {
        enum Tenant: RequestValueKey { typealias Value = String }
        let seen = Mutex<[(name: String, tenant: String?, documentID: String?)]>([])
        let recording = ClosureMiddleware { request, context, next throws(APIError) in
            seen.withLock { $0.append((context.operationName, context.values[Tenant.self], context.documentID)) }
            return try await next(request)
        }
        try await withServer(middlewares: [recording]) { server, client in
            var rest = RESTRequest<JSONValue>.get("echo")
            rest.values[Tenant.self] = "north"
            _ = try await client.send(rest)
            var query = GraphQLRequest(HeroNameQuery())
            query.values[Tenant.self] = "south"
            let plain = try await client.fetch(query, cachePolicy: .networkOnly)
            #expect(plain.metadata.extensions == nil)
            _ = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)

            let answer = #"{"data":{"hero":{"__typename":"Droid","id":"2001","name":"R2-D2","primaryFunction":"Astromech","friends":[]}},"extensions":{"cost":{"requested":3}}}"#
            server.respond("graphql", status: 200, body: answer)
            let costed = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
            #expect(costed.metadata.extensions == ["cost": ["requested": 3]])
            #expect(try await client.fetch(HeroNameQuery(), cachePolicy: .cacheOnly).metadata.extensions == nil)
        }
        let calls = seen.withLock { $0 }
        #expect(calls.map(\.name) == ["GET echo", "HeroName", "HeroName", "HeroName"])
        #expect(calls.map(\.tenant) == ["north", "south", nil, nil])
        #expect(calls[0].documentID == nil)
        #expect(calls[1].documentID == SHA256.hexDigest(HeroNameQuery.document))
    }
}
