import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import Testing

@Suite("REST over the loopback server")
struct RESTTests {
    @Test("POST, GET, PUT, PATCH, DELETE with JSON bodies and query items")
    func crud() async throws {
        try await withServer { server, client in
            let created = try await client.send(RESTRequest<Item>.post("items", body: NewItem(name: "Tea", price: 3.5, tags: ["drink"])))
            #expect(created.statusCode == 201)
            #expect(created.value.name == "Tea")
            #expect(created.source == .server)
            #expect(created.metadata.operationName == "POST items")
            #expect(created.metadata.headers["content-type"] == "application/json")
            let id = created.value.id

            _ = try await client.send(RESTRequest<Item>.post("/items", body: NewItem(name: "Rice", price: 2, tags: ["food"])))
            let fetched = try await client.send(RESTRequest<Item>.get("items/\(id)"))
            #expect(fetched.value == created.value)

            let drinks = try await client.send(RESTRequest<[Item]>.get("items", query: ["tag": "drink", "limit": "5"]))
            #expect(drinks.value.map(\.name) == ["Tea"])
            let recorded = try #require(server.requests(to: "/items").last)
            #expect(recorded.query == ["tag": "drink", "limit": "5"])

            let replaced = try await client.send(RESTRequest<Item>.put("items/\(id)", body: NewItem(name: "Green tea", price: 4, tags: [])))
            #expect(replaced.value == Item(id: id, name: "Green tea", price: 4, tags: []))

            let patched = try await client.send(RESTRequest<Item>.patch("items/\(id)", body: NewItem(price: 4.25)))
            #expect(patched.value.price == 4.25)
            #expect(patched.value.name == "Green tea")

            let deleted = try await client.send(RESTRequest<EmptyResponse>.delete("items/\(id)"))
            #expect(deleted.statusCode == 204)

            let error = await apiError { () async throws(APIError) in try await client.send(RESTRequest<Item>.get("items/\(id)")) }
            guard case .httpStatus(let failure) = error else {
                Issue.record("expected an HTTP status error, got \(String(describing: error))")
                return
            }
            #expect(failure.statusCode == 404)
            #expect(failure.bodyExcerpt == "no item \(id)")
            #expect(error?.recovery == .fail)
        }
    }

    @Test("query values with reserved characters reach the server intact")
    func queryEncoding() async throws {
        try await withServer { server, client in
            _ = try await client.send(RESTRequest<JSONValue>.get("echo", query: ["q": "a+b & c=d/é?"]))
            #expect(server.requests(to: "echo").last?.query["q"] == "a+b & c=d/é?")
        }
    }

    @Test("default headers are sent, and a request's own headers win")
    func headers() async throws {
        try await withServer(defaultHeaders: ["X-App": "pantry", "X-Tenant": "default"]) { server, client in
            var request = RESTRequest<JSONValue>.get("echo")
            request.headers = ["X-Tenant": "acme"]
            _ = try await client.send(request)
            let headers = try #require(server.requests(to: "echo").last?.headers)
            #expect(headers["x-app"] == "pantry")
            #expect(headers["x-tenant"] == "acme")
            #expect(headers["accept"] == "application/json")
        }
    }

    @Test("a body that is not JSON names the position of the problem")
    func notJSON() async throws {
        try await withServer { server, client in
            server.respond("broken", status: 200, contentType: "text/html", body: "<html>\n  oops</html>")
            let error = await apiError { () async throws(APIError) in try await client.send(RESTRequest<Item>.get("broken")) }
            guard case .invalidResponse(let failure) = error, case .notJSON(let parseError) = failure.kind else {
                Issue.record("expected notJSON, got \(String(describing: error))")
                return
            }
            #expect(parseError.line == 1 && parseError.column == 1)
            #expect(failure.bodyExcerpt.hasPrefix("<html>"))
            #expect(failure.request == "GET broken")
        }
    }

    @Test("JSON of the wrong shape names the field and its path")
    func wrongShape() async throws {
        try await withServer { server, client in
            server.respond("shape", status: 200, body: #"[{"id": "1", "name": "Tea", "price": 1, "tags": ["a", 7]}]"#)
            let error = await apiError { () async throws(APIError) in try await client.send(RESTRequest<[Item]>.get("shape")) }
            guard case .invalidResponse(let failure) = error, case .wrongShape(let shape) = failure.kind else {
                Issue.record("expected wrongShape, got \(String(describing: error))")
                return
            }
            #expect(shape.path == [0, "tags", 1])

            server.respond("missing", status: 200, body: #"{"id": "1", "price": 1, "tags": []}"#)
            let missing = await apiError { () async throws(APIError) in try await client.send(RESTRequest<Item>.get("missing")) }
            guard case .invalidResponse(let missingFailure) = missing, case .wrongShape(let missingShape) = missingFailure.kind else {
                Issue.record("expected wrongShape, got \(String(describing: missing))")
                return
            }
            #expect(missingShape.path == ["name"])
            #expect(missingShape.message.contains("missing field 'name'"))
        }
    }

    @Test("a body that cannot be encoded is an invalid request, and nothing is sent")
    func unencodableBody() async throws {
        try await withServer { server, client in
            let error = await apiError { () async throws(APIError) in
                try await client.send(RESTRequest<Item>.post("items", body: ["price": Double.nan]))
            }
            guard case .invalidRequest(let reason) = error else {
                Issue.record("expected invalidRequest, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("POST items"))
            #expect(server.requests(to: "items").isEmpty)
        }
    }

    @Test("a raw body goes byte for byte with its content type; a JSON body beside it is refused before sending")
    func rawBody() async throws {
        try await withServer { server, client in
            var request = RESTRequest<Item>(method: .post, path: "items")
            request.rawBody = RESTRequest.RawBody(Data(#"{"name":"Tea","price":3}"#.utf8), contentType: "application/json; charset=utf-8")
            let created = try await client.send(request)
            #expect(created.value.name == "Tea" && created.statusCode == 201)
            let recorded = try #require(server.requests(to: "items").last)
            #expect(recorded.body == Data(#"{"name":"Tea","price":3}"#.utf8))
            #expect(recorded.headers["content-type"] == "application/json; charset=utf-8")

            request.body = NewItem(name: "Rice", price: 2)
            let error = await apiError { () async throws(APIError) in try await client.send(request) }
            guard case .invalidRequest(let reason) = error else { Issue.record("expected invalidRequest, got \(String(describing: error))"); return }
            #expect(reason.contains("both a JSON body and a raw body"))
            #expect(server.requests(to: "items").count == 1)
        }
    }

    @Test("acceptsAnyStatus: a 404 is the response, with its status and whole body, after the chain saw it as an error")
    func acceptsAnyStatus() async throws {
        let seen = Trace()
        let observer = ClosureMiddleware { request, context, next throws(APIError) in
            do throws(APIError) { return try await next(request) } catch {
                seen.add("\(context.operationName): \(error.statusCode ?? 0)")
                throw error
            }
        }
        try await withServer(middlewares: [observer]) { server, client in
            let long = String(repeating: "x", count: 5000)
            server.respond("items/7", status: 404, contentType: "text/plain", body: long)
            var request = RESTRequest<Data>(method: .get, path: "items/7") { $0 }
            request.acceptsAnyStatus = true
            request.operationName = "getItem"
            let response = try await client.send(request)
            #expect(response.statusCode == 404)
            #expect(response.value == Data(long.utf8), "the whole body, not an excerpt")
            #expect(response.metadata.operationName == "getItem")
            #expect(response.metadata.headers["content-type"] == "text/plain")
            #expect(seen.all == ["getItem: 404"])

            // Without it, the same answer is an error.
            request.acceptsAnyStatus = false
            let error = await apiError { () async throws(APIError) in try await client.send(request) }
            #expect(error?.statusCode == 404)
        }
    }

    @Test("an absolute http(s) URL as the path is used as it is, not joined to the base URL")
    func absolutePath() async throws {
        try await TestServer.with { server in
            let client = makeTestClient(APIClientConfiguration(restBaseURL: URL(string: "http://127.0.0.1:9/api/")!, retryPolicy: nil))
            let url = server.baseURL.appendingPathComponent("echo").absoluteString + "?page=2"
            let echoed = try await client.send(RESTRequest<JSONValue>.get(url))
            #expect(echoed.value["query"]?["page"] == "2")
            #expect(server.requests(to: "echo").count == 1)
        }
    }
}
