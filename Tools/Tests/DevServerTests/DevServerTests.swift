@_spi(Tools) @_spi(Generated) import APICore
import APICoreLive
import APICoreWebSocket
import DevServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs `body` with a fresh dev server, stopped after.
func withDevServer<T>(_ body: (DevServer) async throws -> T) async throws -> T {
    let server = try await DevServer.start()
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// A raw HTTP exchange: status and parsed JSON body (or the text).
func exchange(_ url: URL, method: String = "GET", json body: String? = nil, token: String? = nil) async throws -> (Int, JSONValue?, String) {
    var request = URLRequest(url: url)
    request.httpMethod = method
    if let body {
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    let (data, response) = try await URLSession.shared.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONParser.parse(data), String(decoding: data, as: UTF8.self))
}

func logIn(_ server: DevServer, email: String = "alice@example.com", password: String = DevServer.password) async throws -> String {
    let (status, body, text) = try await exchange(
        server.baseURL.appendingPathComponent("auth/login"), method: "POST", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
    #expect(status == 200, "\(text)")
    return try #require(body?["accessToken"]?.stringValue)
}

func graphQL(_ server: DevServer, _ query: String, token: String? = nil) async throws -> JSONValue {
    let body = JSONSerializer.string(["query": .string(query)])
    let (_, json, text) = try await exchange(server.graphQLURL, method: "POST", json: body, token: token)
    return try #require(json, "\(text)")
}

@Suite("Dev server")
struct DevServerTests {
    @Test("@defer is answered as multipart/mixed: a first part without the deferred fields, then a part that brings them")
    func deferred() async throws {
        try await withDevServer { server in
            var request = URLRequest(url: server.graphQLURL)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("multipart/mixed;deferSpec=20220824, application/json", forHTTPHeaderField: "Accept")
            let query = #"{ categories { id ... @defer(label: "names") { name } } }"#
            request.httpBody = Data(JSONSerializer.string(["query": .string(query)]).utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            let type = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") ?? ""
            #expect(type.hasPrefix("multipart/mixed"))
            let text = String(decoding: data, as: UTF8.self)
            let parts = text.components(separatedBy: "\r\n--").dropFirst().compactMap { part -> JSONValue? in
                guard let body = part.components(separatedBy: "\r\n\r\n").dropFirst().first else { return nil }
                return try? JSONParser.parse(Data(body.utf8))
            }
            try #require(parts.count >= 2, "\(text)")
            #expect(parts[0]["hasNext"] == true)
            #expect(parts[0]["data"]?["categories"]?.arrayValue?.first?["name"] == nil)
            #expect(parts[0]["data"]?["categories"]?.arrayValue?.first?["id"] != nil)
            #expect(parts.last?["hasNext"] == false)
            #expect(parts[1]["incremental"]?.arrayValue?.first?["data"]?["name"]?.stringValue != nil)
            #expect(text.hasSuffix("\r\n-----\r\n"))
        }
    }

    @Test("its schema is the root schema.graphqls")
    func schemaIsTheRootOne() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../schema.graphqls").standardized
        let copy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/DevServer/schema.graphqls").standardized
        #expect(try String(contentsOf: copy, encoding: .utf8) == String(contentsOf: root, encoding: .utf8),
                "Tools/Sources/DevServer/schema.graphqls must be a copy of the root schema.graphqls (scripts/generate.sh copies it)")
    }

    @Test("log-in gives a token that GraphQL accepts; without one, UNAUTHENTICATED; a wrong password is 401")
    func authentication() async throws {
        try await withDevServer { server in
            let anonymous = try await graphQL(server, "{ me { id } }")
            #expect(anonymous["errors"]?.arrayValue?.first?["extensions"]?["code"] == "UNAUTHENTICATED")
            let token = try await logIn(server)
            let me = try await graphQL(server, "{ me { email displayName } households { id name } }", token: token)
            #expect(me["data"]?["me"]?["email"] == "alice@example.com")
            #expect(me["data"]?["households"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["hh-1", "hh-2"])
            let (status, _, _) = try await exchange(
                server.baseURL.appendingPathComponent("auth/login"), method: "POST", json: #"{"email":"alice@example.com","password":"nope"}"#)
            #expect(status == 401)
        }
    }

    @Test("products: search, category, price limit, pages; REST detail and price history follow updatePrice")
    func products() async throws {
        try await withDevServer { server in
            let page = try await graphQL(server, #"{ products(filter: {search: "italian", maxPrice: "6"}, page: {first: 2}) { totalCount nodes { name } pageInfo { hasNextPage endCursor } } }"#)
            let products = page["data"]?["products"]
            #expect(products?["totalCount"] == 4)
            #expect(products?["nodes"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Arborio rice", "Parmesan"])
            #expect(products?["pageInfo"]?["hasNextPage"] == true)

            let token = try await logIn(server)
            _ = try await graphQL(server, #"mutation { updatePrice(input: {productId: "p-11", amount: "6.49", currency: EUR}) { id } }"#, token: token)
            let (status, product, _) = try await exchange(server.baseURL.appendingPathComponent("products/p-11"))
            #expect(status == 200)
            #expect(product?["price"]?["amount"] == "6.49")
            #expect(product?["category"]?["name"] == "Cheese")
            let (_, history, _) = try await exchange(server.baseURL.appendingPathComponent("products/p-11/price-history"))
            #expect(history?.arrayValue?.compactMap { $0["amount"]?.stringValue } == ["5.99", "6.49"])
            let (missing, _, _) = try await exchange(server.baseURL.appendingPathComponent("products/nope"))
            #expect(missing == 404)
        }
    }

    @Test("a household mutation is an event on householdChanged, over both WebSocket protocols, HTTP multipart and server-sent events",
          arguments: SubscriptionProtocol.allCases.map(\.rawValue) + ["multipart", "sse"])
    func householdEvents(_ channel: String) async throws {
        try await withDevServer { server in
            let token = try await logIn(server)
            let subscriptions = SubscriptionProtocol(rawValue: channel).map {
                SubscriptionConfiguration(url: server.webSocketURL, subprotocol: $0, transport: APICoreWebSocket.transport)
            } ?? (channel == "sse" ? .serverSentEvents(url: server.graphQLURL) : .multipartHTTP(url: server.graphQLURL))
            let client = APICoreLive.makeClient(APIClientConfiguration(restBaseURL: server.baseURL, cache: nil, subscriptions: subscriptions))
            let events = Task {
                var iterator = client.subscribe(HouseholdEventSubscription(id: "hh-1")).makeAsyncIterator()
                return try await iterator.next()
            }
            var subscribed = false
            for _ in 0..<300 where !subscribed {
                subscribed = server.householdSubscriberCount("hh-1") == 1
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(subscribed)
            _ = try await graphQL(server, #"mutation { updateHousehold(id: "hh-1", input: {name: "Cabin"}) { id } }"#, token: token)
            let event = try #require(try await events.value)
            #expect(event.householdChanged.kind == "UPDATED")
            #expect(event.householdChanged.household.name == "Cabin")
        }
    }

    @Test("switches: latency delays, a failure rate of 1 fails every request with 503")
    func switches() async throws {
        try await withDevServer { server in
            server.setSwitches(DevServer.Switches(latencyMilliseconds: 200))
            let start = ContinuousClock.now
            _ = try await exchange(server.baseURL.appendingPathComponent("products/p-1"))
            #expect(ContinuousClock.now - start >= .milliseconds(200))
            server.setSwitches(DevServer.Switches(failureRate: 1))
            let (status, _, text) = try await exchange(server.baseURL.appendingPathComponent("products/p-1"))
            #expect(status == 503)
            #expect(text.contains("on purpose"))
            let (health, _, _) = try await exchange(server.baseURL.appendingPathComponent("health"))
            #expect(health == 200)
        }
    }

    @Test("a mutation sent again with its Idempotency-Key runs once, also when the copies arrive together; a key is per user and per request")
    func idempotencyKeys() async throws {
        try await withDevServer { server in
            let alice = try await logIn(server)
            let bob = try await logIn(server, email: "bob@example.com")
            func add(_ name: String, key: String?, token: String) async throws -> (status: Int, body: String, replayed: Bool) {
                var request = URLRequest(url: server.graphQLURL)
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                if let key { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
                let query = #"mutation Add($name: String!) { addMember(input: {householdId: "hh-1", userId: "u-9", displayName: $name, role: CHILD}) { id } }"#
                request.httpBody = Data(JSONSerializer.string(["query": .string(query), "variables": ["name": .string(name)]]).utf8)
                let (data, response) = try await URLSession.shared.data(for: request)
                let http = try #require(response as? HTTPURLResponse)
                return (http.statusCode, String(decoding: data, as: UTF8.self), http.value(forHTTPHeaderField: "Idempotent-Replayed") == "true")
            }
            func memberCount() async throws -> Int {
                let answer = try await graphQL(server, #"{ household(id: "hh-1") { members { id } } }"#, token: alice)
                return try #require(answer["data"]?["household"]?["members"]?.arrayValue?.count)
            }
            let before = try await memberCount()

            let first = try await add("Guest", key: "key-1", token: alice)
            #expect(first.status == 200 && first.body.contains("addMember") && !first.replayed, "\(first)")
            let again = try await add("Guest", key: "key-1", token: alice)
            #expect(again.status == 200 && again.body == first.body && again.replayed, "\(again)")
            #expect(try await memberCount() == before + 1)

            // Another request under a used key is refused; the same key is another user's own.
            let reused = try await add("Someone else", key: "key-1", token: alice)
            #expect(reused.status == 422 && reused.body.contains("IDEMPOTENCY_KEY_REUSED"), "\(reused)")
            let bobs = try await add("Guest", key: "key-1", token: bob)
            #expect(bobs.status == 200 && !bobs.replayed && bobs.body != first.body, "\(bobs)")
            #expect(try await memberCount() == before + 2)

            // Eight copies at once: one runs, every copy gets its answer.
            let copies = try await withThrowingTaskGroup(of: (status: Int, body: String, replayed: Bool).self) { group in
                for _ in 0..<8 { group.addTask { try await add("Twin", key: "key-2", token: alice) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(copies.map(\.body)).count == 1 && copies.allSatisfy { $0.status == 200 })
            #expect(copies.filter { !$0.replayed }.count == 1)
            #expect(try await memberCount() == before + 3)

            // Without a key, every request runs.
            _ = try await add("Guest", key: nil, token: alice)
            _ = try await add("Guest", key: nil, token: alice)
            #expect(try await memberCount() == before + 5)
        }
    }
}

/// `subscription HouseholdEvent($id: ID!) { householdChanged(id: $id) { kind household { name } } }`
struct HouseholdEventSubscription: GraphQLSubscription {
    static let operationName = "HouseholdEvent"
    static let document = "subscription HouseholdEvent($id: ID!) { householdChanged(id: $id) { kind household { name } } }"
    var id: String
    var __variables: InputDict { InputDict(["id": id]) }

    struct Data: RootSelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Subscription")
        static let __selections: [Selection] = [.field(Field("householdChanged", .nonNull(.object(Event.self)), arguments: ["id": .variable("id")]))]
        var householdChanged: Event { __data["householdChanged"] }

        struct Event: SelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = ParentType.object("HouseholdEvent")
            static let __selections: [Selection] = [
                .field(Field("kind", .nonNull(.scalar(String.self)))), .field(Field("household", .nonNull(.object(Household.self)))),
            ]
            var kind: String { __data["kind"] }
            var household: Household { __data["household"] }
        }

        struct Household: SelectionSet {
            let __data: DataDict
            init(_dataDict: DataDict) { __data = _dataDict }
            static let __parentType = ParentType.object("Household")
            static let __selections: [Selection] = [.field(Field("name", .nonNull(.scalar(String.self))))]
            var name: String { __data["name"] }
        }
    }
}
