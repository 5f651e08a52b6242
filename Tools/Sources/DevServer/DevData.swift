import Foundation

/// An object as the GraphQL executor reads it: field name to value.
typealias Object = [String: any Sendable]

/// The dev server's data: seeded users, households, categories, products, price histories and
/// inventory, changed by mutations, kept in memory for the life of the process.
struct DevData: Sendable {
    var users: [String: Object] = [:]
    var passwords: [String: String] = [:]
    var households: [String: Object] = [:]
    var categories: [String: Object] = [:]
    var products: [String: Object] = [:]
    var priceHistory: [String: [Object]] = [:]
    var inventory: [String: [Object]] = [:]
    var nextID = 100

    /// The same data on every start, so that demos and tests can name it.
    static func seeded() -> DevData {
        var data = DevData()
        let created = "2026-01-15T09:00:00Z"
        for (id, email, name, roles) in [
            ("user-1", "alice@example.com", "Alice Martin", ["ADMIN", "MEMBER"]),
            ("user-2", "bob@example.com", "Bob Keller", ["MEMBER"]),
            ("user-3", "carol@example.com", "Carol Diaz", ["GUEST"]),
        ] {
            data.users[id] = ["__typename": "User", "id": id, "email": email, "displayName": name, "roles": roles, "createdAt": created]
            data.passwords[email] = "pantry"
        }
        func member(_ id: String, _ user: String, _ role: String) -> Object {
            ["__typename": "Member", "id": id, "userId": user, "displayName": data.users[user]?["displayName"] as? String ?? user,
             "role": role, "joinedAt": created]
        }
        data.households["hh-1"] = [
            "__typename": "Household", "id": "hh-1", "name": "Home", "createdAt": created,
            "monthlyBudget": ["__typename": "Budget", "amount": "450.50", "currency": "EUR"] as Object,
            "members": [member("m-1", "user-1", "OWNER"), member("m-2", "user-2", "ADULT")],
            "invitations": [["__typename": "Invitation", "id": "inv-1", "email": "carol@example.com", "role": "ADULT",
                             "status": "PENDING", "expiresAt": "2026-12-31T23:59:59Z"] as Object],
        ]
        data.households["hh-2"] = [
            "__typename": "Household", "id": "hh-2", "name": "Office kitchen", "createdAt": created,
            "members": [member("m-3", "user-1", "OWNER")], "invitations": [Object](),
        ]
        let categories: [(String, String, String?)] = [
            ("cat-1", "Pantry", nil), ("cat-2", "Dairy", nil), ("cat-3", "Produce", nil), ("cat-4", "Drinks", nil), ("cat-5", "Cheese", "cat-2"),
        ]
        for (id, name, parent) in categories {
            var category: Object = ["__typename": "Category", "id": id, "name": name]
            if let parent { category["parentID"] = parent }
            data.categories[id] = category
        }
        let products: [(String, String, String, String, [String])] = [
            ("Arborio rice", "cat-1", "3.20", "Short-grain rice for risotto.", ["grain", "italian"]),
            ("Rolled oats", "cat-1", "1.89", "Whole rolled oats.", ["grain", "breakfast"]),
            ("Olive oil", "cat-1", "8.90", "Extra virgin, cold pressed.", ["oil", "italian"]),
            ("Spaghetti", "cat-1", "1.29", "Durum wheat pasta.", ["pasta", "italian"]),
            ("Red lentils", "cat-1", "2.45", "Split red lentils.", ["legume"]),
            ("Chickpeas", "cat-1", "1.15", "Cooked, in a jar.", ["legume"]),
            ("Honey", "cat-1", "6.50", "Wildflower honey.", ["sweet", "breakfast"]),
            ("Whole milk", "cat-2", "1.19", "3.5 % fat.", ["breakfast"]),
            ("Greek yoghurt", "cat-2", "2.30", "10 % fat.", ["breakfast"]),
            ("Butter", "cat-2", "2.79", "Unsalted.", ["baking"]),
            ("Parmesan", "cat-5", "5.99", "Aged 24 months.", ["italian"]),
            ("Gruyère", "cat-5", "4.80", "Aged 12 months.", ["swiss"]),
            ("Apples", "cat-3", "2.99", "Braeburn, 1 kg.", ["fruit"]),
            ("Bananas", "cat-3", "1.69", "Fairtrade, 1 kg.", ["fruit", "breakfast"]),
            ("Tomatoes", "cat-3", "3.49", "Vine tomatoes, 500 g.", ["vegetable", "italian"]),
            ("Spinach", "cat-3", "2.19", "Baby spinach, 200 g.", ["vegetable"]),
            ("Onions", "cat-3", "1.09", "Yellow onions, 1 kg.", ["vegetable"]),
            ("Sparkling water", "cat-4", "0.59", "1.5 l.", ["water"]),
            ("Orange juice", "cat-4", "2.49", "Not from concentrate, 1 l.", ["fruit", "breakfast"]),
            ("Coffee beans", "cat-4", "11.90", "Espresso roast, 1 kg.", ["coffee", "italian"]),
            ("Green tea", "cat-4", "3.99", "Sencha, 20 bags.", ["tea"]),
        ]
        for (index, (name, category, price, description, tags)) in products.enumerated() {
            let id = "p-\(index + 1)"
            data.products[id] = [
                "__typename": "Product", "id": id, "sku": String(format: "SKU-%04d", index + 1), "name": name, "description": description,
                "categoryID": category, "price": ["__typename": "Price", "amount": price, "currency": "EUR"] as Object,
                "tags": tags, "updatedAt": created,
            ]
            data.priceHistory[id] = [["since": created, "amount": price, "currency": "EUR"]]
        }
        data.inventory["hh-1"] = [
            ["__typename": "InventoryItem", "id": "inv-hh-1-p-1", "householdId": "hh-1", "productID": "p-1", "quantity": 2,
             "expiresAt": "2027-06-01T00:00:00Z"],
            ["__typename": "InventoryItem", "id": "inv-hh-1-p-8", "householdId": "hh-1", "productID": "p-8", "quantity": 1,
             "expiresAt": "2026-12-01T00:00:00Z"],
        ]
        return data
    }

    mutating func makeID(_ prefix: String) -> String {
        nextID += 1
        return "\(prefix)-\(nextID)"
    }

    /// A product with its category resolved, as GraphQL and REST return it.
    func product(_ id: String) -> Object? {
        guard var product = products[id] else { return nil }
        product["category"] = category(product["categoryID"] as? String ?? "")
        return product
    }

    func category(_ id: String) -> Object? {
        guard var category = categories[id] else { return nil }
        if let parent = category["parentID"] as? String { category["parent"] = self.category(parent) }
        return category
    }

    func inventoryItems(_ householdID: String) -> [Object] {
        (inventory[householdID] ?? []).map { item in
            var item = item
            item["product"] = product(item["productID"] as? String ?? "")
            return item
        }
    }

    /// Households `userID` belongs to.
    func households(of userID: String) -> [Object] {
        households.values
            .filter { ($0["members"] as? [Object] ?? []).contains { $0["userId"] as? String == userID } }
            .sorted { ($0["id"] as? String ?? "") < ($1["id"] as? String ?? "") }
    }

    /// The household holding member `memberID`, and the member's index in it.
    func member(_ memberID: String) -> (household: String, index: Int)? {
        for (id, household) in households {
            if let index = (household["members"] as? [Object] ?? []).firstIndex(where: { $0["id"] as? String == memberID }) {
                return (id, index)
            }
        }
        return nil
    }

    static func now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date())
    }
}
