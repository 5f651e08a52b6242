@_spi(Tools) import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The loopback server refuses what Apollo Server's CSRF prevention refuses (on by default), so
/// every engine test runs against that rule; these check the rule itself and the client's headers.
@Suite("CSRF prevention and client awareness")
struct CSRFTests {
    /// A request the table sends as is, and whether Apollo's rule lets it through.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var method: String
        var path: String
        var contentType: String?
        var headers: [String: String] = [:]
        var body: String?
        var allowed: Bool
        var testDescription: String { name }
    }

    static let query = "query HeroName { hero { name } }"
    static let apqExtensions = #"{"persistedQuery":{"version":1,"sha256Hash":"\#(SHA256.hexDigest(query))"}}"#
    static let jsonBody = #"{"query":"query HeroName { hero { name } }"}"#

    static let table: [Row] = [
        Row(name: "GET, no header", method: "GET", path: "graphql?query=\(escape(query))", allowed: false),
        Row(name: "GET, X-Apollo-Operation-Name", method: "GET", path: "graphql?query=\(escape(query))",
            headers: ["X-Apollo-Operation-Name": "HeroName"], allowed: true),
        Row(name: "GET, Apollo-Require-Preflight", method: "GET", path: "graphql?query=\(escape(query))",
            headers: ["Apollo-Require-Preflight": "true"], allowed: true),
        Row(name: "GET, empty X-Apollo-Operation-Name", method: "GET", path: "graphql?query=\(escape(query))",
            headers: ["X-Apollo-Operation-Name": ""], allowed: false),
        Row(name: "APQ GET, no header", method: "GET", path: "graphql?extensions=\(escape(apqExtensions))", allowed: false),
        Row(name: "APQ GET, X-Apollo-Operation-Name", method: "GET", path: "graphql?extensions=\(escape(apqExtensions))",
            headers: ["X-Apollo-Operation-Name": "HeroName"], allowed: true),
        Row(name: "multipart POST, no header", method: "POST", path: "upload", contentType: "multipart/form-data; boundary=b",
            body: "--b--\r\n", allowed: false),
        Row(name: "multipart POST, Apollo-Require-Preflight", method: "POST", path: "upload",
            contentType: "multipart/form-data; boundary=b", headers: ["Apollo-Require-Preflight": "1"], body: "--b--\r\n", allowed: true),
        Row(name: "text/plain POST, no header", method: "POST", path: "graphql", contentType: "text/plain;charset=UTF-8", body: jsonBody,
            allowed: false),
        Row(name: "form POST, no header", method: "POST", path: "graphql", contentType: "application/x-www-form-urlencoded", body: jsonBody,
            allowed: false),
        Row(name: "JSON POST, no header", method: "POST", path: "graphql", contentType: "application/json", body: jsonBody, allowed: true),
        Row(name: "JSON POST with charset, no header", method: "POST", path: "graphql", contentType: "application/json; charset=utf-8",
            body: jsonBody, allowed: true),
        Row(name: "a content type that does not parse, no header", method: "POST", path: "graphql", contentType: "nonsense",
            body: jsonBody, allowed: true),
    ]

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    @Test("the loopback server applies Apollo Server's rule", arguments: table)
    func rule(_ row: Row) async throws {
        let server = try await TestServer.start()
        var raw = URLRequest(url: URL(string: server.baseURL.absoluteString + row.path)!)
        raw.httpMethod = row.method
        raw.setValue(row.contentType, forHTTPHeaderField: "Content-Type")
        for (name, value) in row.headers { raw.setValue(value, forHTTPHeaderField: name) }
        raw.httpBody = row.body.map { Data($0.utf8) }
        // The row's request, sent as is through the client's transport in place of the REST call's.
        let answer = Mutex<(status: Int, body: String)?>(nil)
        let request = raw
        let swap = ClosureMiddleware { _, _, next throws(APIError) in
            do throws(APIError) {
                let response = try await next(request)
                answer.withLock { $0 = (response.statusCode, String(decoding: response.body, as: UTF8.self)) }
                return response
            } catch {
                if case .httpStatus(let failure) = error { answer.withLock { $0 = (failure.statusCode, failure.bodyExcerpt) } }
                throw error
            }
        }
        let client = makeTestClient(APIClientConfiguration(restBaseURL: server.baseURL, middlewares: [swap], retryPolicy: nil))
        _ = try? await client.send(RESTRequest<Item>.get("unused"))
        let (status, body) = try #require(answer.withLock { $0 })
        let refused = status == 400 && body.contains("Cross-Site Request Forgery")
        #expect(refused == !row.allowed, "HTTP \(status): \(body.prefix(200))")
        #expect(server.requests.last?.headers["content-type"] == row.contentType)
        await server.stop()
    }

    @Test("queries as GET, hashed queries as GET and uploads pass the rule: they name their operation")
    func clientPasses() async throws {
        let server = try await TestServer.start()
        let get = makeTestClient(APIClientConfiguration(restBaseURL: server.baseURL, queryMethod: .get, retryPolicy: nil))
        #expect(try await get.fetch(HeroNameQuery(), cachePolicy: .networkOnly).value.hero?.name == "R2-D2")
        let persisted = makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, retryPolicy: nil, persistedQueries: PersistedQueries(useGETForHashedQueries: true)))
        #expect(try await persisted.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly).value.human?.name == "Luke Skywalker")
        #expect(try await persisted.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly).value.human?.name == "Luke Skywalker")
        let requests = server.requests(to: "graphql")
        #expect(requests.map(\.method) == ["GET", "GET", "POST", "GET"])
        #expect(requests.map { $0.headers["x-apollo-operation-name"] } == ["HeroName", "Human", nil, "Human"])
        await server.stop()
    }

    @Test("with CSRF prevention off, a GET is refused with the server's words; custom headers go instead")
    func offAndCustom() async throws {
        let server = try await TestServer.start()
        let off = makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, queryMethod: .get, retryPolicy: nil, csrfPrevention: .off))
        let error = await apiError { () async throws(APIError) in try await off.fetch(HeroNameQuery(), cachePolicy: .networkOnly) }
        guard case .graphQL(let failure)? = error else {
            Issue.record("expected the server's GraphQL error, got \(String(describing: error))")
            return await server.stop()
        }
        #expect(failure.errors.first?.message.contains("Cross-Site Request Forgery") == true)

        server.enforceCSRFPrevention(false)
        let custom = makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, queryMethod: .get, retryPolicy: nil, csrfPrevention: .headers(["x-graphql-yoga-csrf": "1"])))
        _ = try await custom.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        let last = try #require(server.requests(to: "graphql").last)
        #expect(last.headers["x-graphql-yoga-csrf"] == "1")
        #expect(last.headers["x-apollo-operation-name"] == nil)
        await server.stop()
    }

    @Test("client awareness: the app's name and version on every GraphQL request, not on REST")
    func clientAwareness() async throws {
        let server = try await TestServer.start()
        let client = makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, retryPolicy: nil, clientAwareness: ClientAwareness(name: "pantry-ios", version: "3.2.1 (420)")))
        _ = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        _ = try await client.perform(CreateReviewMutation(episode: nil, review: ReviewInput(stars: 4)))
        _ = try await client.send(RESTRequest<[Item]>.get("items"))
        let graphQL = server.requests(to: "graphql")
        #expect(graphQL.count == 2)
        #expect(graphQL.allSatisfy { $0.headers["apollographql-client-name"] == "pantry-ios" })
        #expect(graphQL.allSatisfy { $0.headers["apollographql-client-version"] == "3.2.1 (420)" })
        #expect(server.requests(to: "items").first?.headers["apollographql-client-name"] == nil)
        await server.stop()
    }
}
