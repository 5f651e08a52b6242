import APICore
import APICoreLive
import APICoreOpenAPI
import APICoreTestServer
import Foundation
import OpenAPIRuntime
import Testing

/// A client that swift-openapi-generator wrote (ItemsOpenAPIClient, from the test server's
/// openapi.yaml) on `APIClientTransport`: it rides the client's middleware chain.
@Suite("OpenAPI clients on the APIClient chain")
struct OpenAPITransportTests {
    /// The generated client on `client`, at the OpenAPI default server URL `/`: the client's base URL.
    static func items(_ client: any APIClient) -> Client {
        Client(serverURL: URL.defaultOpenAPIServerURL, transport: APIClientTransport(client: client))
    }

    static func text(_ body: HTTPBody) async throws -> String { try await String(collecting: body, upTo: 1 << 20) }

    @Test("create, read, change, list, delete: bodies, path and query parameters, documented statuses, through the chain")
    func roundTrip() async throws {
        try await TestServer.with { server in
            let trace = Trace()
            let client = makeTestClient(APIClientConfiguration(
                restBaseURL: server.baseURL, middlewares: [Tagging(name: "outer", trace: trace)], retryPolicy: nil))
            let items = Self.items(client)

            let created = try await items.createItem(body: .json(.init(name: "Kettle", price: 24.5, tags: ["kitchen"]))).created.body.json
            #expect(created.name == "Kettle" && created.price == 24.5 && created.tags == ["kitchen"])
            let post = try #require(server.requests.last)
            #expect(post.method == "POST" && post.path == "/items")
            #expect(post.headers["content-type"]?.hasPrefix("application/json") == true)
            #expect(post.headers["x-chain"] == "outer", "the app's middleware saw the request")
            #expect(try JSONValue(parsing: String(decoding: post.body, as: UTF8.self)) == ["name": "Kettle", "price": 24.5, "tags": ["kitchen"]])

            let read = try await items.getItem(path: .init(id: created.id)).ok.body.json
            #expect(read == created)
            let changed = try await items.updateItem(path: .init(id: created.id), body: .json(.init(price: 19))).ok.body.json
            #expect(changed.price == 19 && changed.name == "Kettle")
            _ = try await items.createItem(body: .json(.init(name: "Mug", price: 6, tags: ["kitchen", "cups"])))
            _ = try await items.createItem(body: .json(.init(name: "Lamp", price: 30, tags: ["light"])))
            let kitchen = try await items.listItems(query: .init(tag: "kitchen", limit: 5)).ok.body.json
            #expect(kitchen.map(\.name) == ["Kettle", "Mug"])
            #expect(server.requests.last?.query == ["tag": "kitchen", "limit": "5"])

            _ = try await items.deleteItem(path: .init(id: created.id)).noContent
            // A documented error status is the generated client's case, with its body.
            let missing = try await items.getItem(path: .init(id: created.id))
            #expect(try await Self.text(try missing.notFound.body.plainText) == "no item \(created.id)")
            let refused = try await items.createItem(body: .json(.init(name: "No price")))
            #expect(try await Self.text(try refused.unprocessableContent.body.plainText) == "name and price are required")
            // The chain names each request by its operationId, and sees a refused one as an error
            // before the generated client gets its answer.
            #expect(trace.all.contains("outer → createItem") && trace.all.contains("outer → deleteItem"))
            #expect(trace.all.filter { $0 == "outer → getItem" }.count == 2 && trace.all.filter { $0 == "outer ← 201" }.count == 3)
            #expect(trace.all.contains("outer ← 204") && !trace.all.contains("outer ← 404"))
        }
    }

    @Test("a 503 is retried by the client's retry policy before the generated client sees the answer")
    func retryOn503() async throws {
        try await TestServer.with { server in
            let client = makeTestClient(APIClientConfiguration(
                restBaseURL: server.baseURL, retryPolicy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(10), jitter: 0)))
            let items = Self.items(client)
            let id = try await items.createItem(body: .json(.init(name: "Kettle", price: 24.5))).created.body.json.id
            let unavailable = TestServer.Canned(status: 503, contentType: "text/plain", body: "down for a moment")
            let item = TestServer.Canned(status: 200, body: #"{"id":"\#(id)","name":"Kettle","price":24.5,"tags":[]}"#)
            server.respond("/items/\(id)", with: [unavailable, unavailable, item])
            let before = server.requests.count
            let answer = try await items.getItem(path: .init(id: id)).ok.body.json
            #expect(answer.name == "Kettle")
            #expect(server.requests.count - before == 3)

            // A retry policy that gives up: the last 503 is the answer, undocumented here.
            server.respond("/items/\(id)", with: [unavailable])
            let given = try await items.getItem(path: .init(id: id))
            guard case .undocumented(let status, let payload) = given else { Issue.record("expected an undocumented 503, got \(given)"); return }
            #expect(status == 503)
            #expect(try await Self.text(try #require(payload.body)) == "down for a moment")
        }
    }

    @Test("a 401 refreshes the bearer token once and the request goes again; a refresh that fails leaves the 401")
    func refreshOn401() async throws {
        try await TestServer.with { server in
            let tokens = server.currentTokens
            let store = InMemoryTokenStore(AuthToken(accessToken: tokens.access, refreshToken: tokens.refresh))
            let refreshes = Counter()
            let client = makeTestClient(APIClientConfiguration(
                restBaseURL: server.baseURL, authentication: bearer(store, refreshCalls: refreshes), retryPolicy: nil))
            let items = Self.items(client)
            #expect(try await items.getMe().ok.body.json.name == "Ada")
            #expect(server.requests.last?.headers["authorization"] == "Bearer \(tokens.access)")

            server.expireAccessToken()
            #expect(try await items.getMe().ok.body.json.name == "Ada")
            #expect(refreshes.value == 1 && server.refreshCount == 1)
            #expect(server.requests.last?.headers["authorization"] == "Bearer \(server.currentTokens.access)")

            server.expireAccessToken()
            server.failRefreshes()
            let refused = try await items.getMe()
            #expect(try await Self.text(try refused.unauthorized.body.plainText) == "missing or stale token")
        }
    }

    @Test("no server: the generated client's ClientError carries the client's APIError")
    func transportFailure() async throws {
        let client = makeTestClient(APIClientConfiguration(restBaseURL: URL(string: "http://127.0.0.1:9/")!, retryPolicy: nil))
        let error = await #expect(throws: ClientError.self) { try await Self.items(client).getItem(path: .init(id: "1")) }
        #expect(error?.operationID == "getItem")
        guard case .transport(let failure) = error?.apiError else { Issue.record("expected a transport error, got \(String(describing: error))"); return }
        #expect(failure.isConnectivity)
    }

    @Test("an absolute server URL is used as it is")
    func absoluteServerURL() async throws {
        try await TestServer.with { server in
            // The client's base URL points elsewhere; the generated client's server URL wins.
            let client = makeTestClient(APIClientConfiguration(restBaseURL: URL(string: "http://127.0.0.1:9/")!, retryPolicy: nil))
            let items = Client(serverURL: server.baseURL, transport: APIClientTransport(client: client))
            let created = try await items.createItem(body: .json(.init(name: "Kettle", price: 1))).created.body.json
            #expect(created.name == "Kettle")
        }
    }
}
