import APICoreServerSupport
import Foundation
import GraphQL

/// Who is asking: the user of the bearer token or session cookie, if any.
struct DevContext: Sendable {
    var userID: String?
}

/// The root `schema.graphqls`, built from its SDL, with resolvers over ``DevData``. Mutations
/// publish `household:<id>` and `product` events for the subscriptions.
enum DevSchema {
    /// The root `schema.graphqls` as it was when this binary was built (`scripts/generate.sh` copies
    /// it into the target, which compiles it in): nothing is read from disk at run time.
    static let sdl = String(decoding: PackageResources.schema_graphqls, as: UTF8.self)

    static func make(state: Locked<DevState>, events: EventHub) throws -> GraphQLSchema {
        // `@defer` and `@stream` are executed as if absent (IncrementalDelivery cuts the answer);
        // declared so that they validate.
        let schema = try buildSchema(
            source: sdl + "\n" + IncrementalDelivery.deferDirectiveSDL + "\n" + IncrementalDelivery.streamDirectiveSDL)
        @Sendable func data<T>(_ body: (inout DevData) throws -> T) rethrows -> T { try state.withLock { try body(&$0.data) } }

        try resolve(schema, "Query", [
            "me": { _, _, context, _ in
                let user = try signedIn(context)
                return data { $0.users[user] }
            },
            "user": { _, args, _, _ in data { $0.users[args["id"].string ?? ""] } },
            "households": { _, _, context, _ in
                let user = try signedIn(context)
                return data { $0.households(of: user) }
            },
            "household": { _, args, context, _ in
                _ = try signedIn(context)
                return data { $0.households[args["id"].string ?? ""] }
            },
            "products": { _, args, _, _ in data { products($0, filter: args["filter"], page: args["page"], sort: args["sort"].string) } },
            "product": { _, args, _, _ in data { $0.product(args["id"].string ?? "") } },
            "categories": { _, _, _, _ in
                data { data in data.categories.keys.sorted().compactMap { data.category($0) } }
            },
            "inventory": { _, args, context, _ in
                _ = try signedIn(context)
                return data { $0.inventoryItems(args["householdId"].string ?? "") }
            },
        ])

        @Sendable func householdEvent(_ kind: String, _ id: String) {
            guard let household = data({ $0.households[id] }) else { return }
            let event: Object = ["__typename": "HouseholdEvent", "kind": kind, "household": household, "occurredAt": DevData.now()]
            events.publish("household:\(id)", event)
        }
        try resolve(schema, "Mutation", [
            "updateProfile": { _, args, context, _ in
                let user = try signedIn(context)
                return data { data -> Object? in
                    if let name = args["input"]["displayName"].string { data.users[user]?["displayName"] = name }
                    if let avatar = args["input"]["avatarURL"].string { data.users[user]?["avatarURL"] = avatar }
                    return data.users[user]
                }
            },
            "createHousehold": { _, args, context, _ in
                let user = try signedIn(context)
                let name = try nonEmpty(args["input"]["name"].string, "name")
                return data { data -> Object in
                    let id = data.makeID("hh")
                    let member: Object = [
                        "__typename": "Member", "id": data.makeID("m"), "userId": user,
                        "displayName": data.users[user]?["displayName"] as? String ?? user, "role": "OWNER", "joinedAt": DevData.now(),
                    ]
                    let household: Object = [
                        "__typename": "Household", "id": id, "name": name, "createdAt": DevData.now(), "members": [member],
                        "invitations": [Object](),
                    ]
                    data.households[id] = household
                    return household
                }
            },
            "updateHousehold": { _, args, context, _ in
                _ = try signedIn(context)
                let id = args["id"].string ?? ""
                let name = args["input"]["name"].string
                let household = try data { data -> Object in
                    guard data.households[id] != nil else { throw CodedError(code: "NOT_FOUND", message: "no household \(id)") }
                    if let name { data.households[id]?["name"] = try nonEmpty(name, "name") }
                    return data.households[id] ?? [:]
                }
                householdEvent("UPDATED", id)
                return household
            },
            "addMember": { _, args, context, _ in
                _ = try signedIn(context)
                let input = args["input"]
                let householdID = input["householdId"].string ?? ""
                let member = try data { data -> Object in
                    guard var household = data.households[householdID] else {
                        throw CodedError(code: "NOT_FOUND", message: "no household \(householdID)")
                    }
                    let member: Object = [
                        "__typename": "Member", "id": data.makeID("m"), "userId": input["userId"].string ?? "",
                        "displayName": try nonEmpty(input["displayName"].string, "displayName"), "role": input["role"].string ?? "ADULT",
                        "joinedAt": DevData.now(),
                    ]
                    household["members"] = (household["members"] as? [Object] ?? []) + [member]
                    data.households[householdID] = household
                    return member
                }
                householdEvent("MEMBER_ADDED", householdID)
                return member
            },
            "updateMember": { _, args, context, _ in
                _ = try signedIn(context)
                let input = args["input"]
                let memberID = input["memberId"].string ?? ""
                let (householdID, member) = try data { data -> (String, Object) in
                    guard let found = data.member(memberID) else {
                        throw CodedError(code: "NOT_FOUND", message: "no member \(memberID)")
                    }
                    let (householdID, index) = (found.household, found.index)
                    var members = data.households[householdID]?["members"] as? [Object] ?? []
                    if let name = input["displayName"].string { members[index]["displayName"] = try nonEmpty(name, "displayName") }
                    if let role = input["role"].string { members[index]["role"] = role }
                    data.households[householdID]?["members"] = members
                    return (householdID, members[index])
                }
                householdEvent("MEMBER_UPDATED", householdID)
                return member
            },
            "removeMember": { _, args, context, _ in
                _ = try signedIn(context)
                let memberID = args["memberId"].string ?? ""
                let householdID = try data { data -> String in
                    guard let found = data.member(memberID) else {
                        throw CodedError(code: "NOT_FOUND", message: "no member \(memberID)")
                    }
                    let (householdID, index) = (found.household, found.index)
                    var members = data.households[householdID]?["members"] as? [Object] ?? []
                    members.remove(at: index)
                    data.households[householdID]?["members"] = members
                    return householdID
                }
                householdEvent("MEMBER_REMOVED", householdID)
                return memberID
            },
            "inviteMember": { _, args, context, _ in
                _ = try signedIn(context)
                let householdID = args["householdId"].string ?? ""
                let invitation = try data { data -> Object in
                    guard data.households[householdID] != nil else { throw CodedError(code: "NOT_FOUND", message: "no household \(householdID)") }
                    let invitation: Object = [
                        "__typename": "Invitation", "id": data.makeID("inv"), "email": try nonEmpty(args["email"].string, "email"),
                        "role": args["role"].string ?? "ADULT", "status": "PENDING", "expiresAt": "2027-01-31T23:59:59Z",
                    ]
                    let invitations = data.households[householdID]?["invitations"] as? [Object] ?? []
                    data.households[householdID]?["invitations"] = invitations + [invitation]
                    return invitation
                }
                householdEvent("UPDATED", householdID)
                return invitation
            },
            "updatePrice": { _, args, context, _ in
                _ = try signedIn(context)
                let input = args["input"]
                let productID = input["productId"].string ?? ""
                let amount = input["amount"].string ?? input["amount"].int.map(String.init) ?? ""
                guard Decimal(string: amount) != nil else { throw CodedError(code: "BAD_USER_INPUT", message: "amount '\(amount)' is not a decimal") }
                let currency = input["currency"].string ?? "EUR"
                let product = try data { data -> Object in
                    guard data.products[productID] != nil else { throw CodedError(code: "NOT_FOUND", message: "no product \(productID)") }
                    let now = DevData.now()
                    data.products[productID]?["price"] = ["__typename": "Price", "amount": amount, "currency": currency] as Object
                    data.products[productID]?["updatedAt"] = now
                    data.priceHistory[productID, default: []].append(["since": now, "amount": amount, "currency": currency])
                    return data.product(productID) ?? [:]
                }
                events.publish("product", ["__typename": "ProductEvent", "product": product, "occurredAt": DevData.now()] as Object)
                return product
            },
            "setInventory": { _, args, context, _ in
                _ = try signedIn(context)
                let input = args["input"]
                let householdID = input["householdId"].string ?? ""
                let productID = input["productId"].string ?? ""
                return try data { data -> Object in
                    guard data.households[householdID] != nil, data.products[productID] != nil else {
                        throw CodedError(code: "NOT_FOUND", message: "no household \(householdID) or product \(productID)")
                    }
                    var item: Object = [
                        "__typename": "InventoryItem", "id": "inv-\(householdID)-\(productID)", "householdId": householdID,
                        "productID": productID, "quantity": input["quantity"].int ?? 0,
                    ]
                    if let expires = input["expiresAt"].string { item["expiresAt"] = expires }
                    var items = data.inventory[householdID] ?? []
                    items.removeAll { $0["productID"] as? String == productID }
                    items.append(item)
                    data.inventory[householdID] = items
                    item["product"] = data.product(productID)
                    return item
                }
            },
        ])

        let event: GraphQLFieldResolve = { source, _, _, _ in source }
        try resolve(schema, "Subscription", [
            "householdChanged": event,
            "productChanged": event,
        ], subscribe: [
            "householdChanged": { _, args, _, _ in events.stream("household:\(args["id"].string ?? "")") },
            "productChanged": { _, args, _, _ in
                let wanted = args["id"].string
                return events.stream("product") { event in
                    wanted == nil || ((event as? Object)?["product"] as? Object)?["id"] as? String == wanted
                }
            },
        ])
        return schema
    }

    /// Sets the resolvers of a root type's fields (the schema was built from SDL, without any).
    static func resolve(
        _ schema: GraphQLSchema, _ typeName: String, _ resolvers: [String: GraphQLFieldResolve], subscribe: [String: GraphQLFieldResolve] = [:]
    ) throws {
        guard let type = schema.getType(name: typeName) as? GraphQLObjectType else {
            throw CodedError(code: "INTERNAL_SERVER_ERROR", message: "schema.graphqls has no type \(typeName)")
        }
        let fields = try type.fields()
        for (name, field) in fields {
            if let resolver = resolvers[name] { field.resolve = resolver }
            if let subscriber = subscribe[name] { field.subscribe = subscriber }
        }
        type.fields = { fields }
    }

    static func signedIn(_ context: any Sendable) throws -> String {
        guard let user = (context as? DevContext)?.userID else {
            throw CodedError(code: "UNAUTHENTICATED", message: "log in first (POST /auth/login, or a session cookie)")
        }
        return user
    }

    static func nonEmpty(_ value: String?, _ field: String) throws -> String {
        guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CodedError(code: "BAD_USER_INPUT", message: "\(field) must not be empty")
        }
        return value
    }

    /// `products(filter:page:sort:)`: search in name, description and tags; category; maximum
    /// price; sorted by name; `first`/`after` pages with the index as cursor.
    static func products(_ data: DevData, filter: Map, page: Map, sort: String?) -> Object {
        let search = filter["search"].string?.lowercased()
        let category = filter["categoryId"].string
        let maxPrice = filter["maxPrice"].string.flatMap { Decimal(string: $0) }
        var matching = data.products.keys.compactMap { data.product($0) }.filter { product in
            if let search {
                let text = [product["name"], product["description"]].compactMap { $0 as? String }.joined(separator: " ").lowercased()
                    + " " + (product["tags"] as? [String] ?? []).joined(separator: " ")
                guard text.contains(search) else { return false }
            }
            if let category, product["categoryID"] as? String != category { return false }
            if let maxPrice, let price = ((product["price"] as? Object)?["amount"] as? String).flatMap({ Decimal(string: $0) }), price > maxPrice {
                return false
            }
            return true
        }
        matching.sort { ($0["name"] as? String ?? "") < ($1["name"] as? String ?? "") }
        if sort == "DESCENDING" { matching.reverse() }
        let first = max(0, min(page["first"].int ?? 20, 100))
        let start = page["after"].string.flatMap { Int($0.replacingOccurrences(of: "cursor-", with: "")) }.map { $0 + 1 } ?? 0
        let slice = Array(matching.dropFirst(start).prefix(first))
        let end = start + slice.count
        var pageInfo: Object = ["__typename": "PageInfo", "hasNextPage": end < matching.count]
        if !slice.isEmpty { pageInfo["endCursor"] = "cursor-\(end - 1)" }
        return ["__typename": "ProductConnection", "nodes": slice, "pageInfo": pageInfo, "totalCount": matching.count]
    }
}
