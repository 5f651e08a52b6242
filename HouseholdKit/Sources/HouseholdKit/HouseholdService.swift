import APICore
import Foundation
import SharedKit

/// A group of people who share a pantry.
public struct Household: Sendable, Hashable, Identifiable {
    /// The household's id.
    public var id: String
    /// Its name.
    public var name: String
    /// How many members it has.
    public var memberCount: Int

    /// Creates a household.
    public init(id: String, name: String, memberCount: Int) {
        self.id = id
        self.name = name
        self.memberCount = memberCount
    }
}

/// Where households come from.
public protocol HouseholdRepository: Sendable {
    /// The households the signed-in user belongs to.
    func households() async throws(APIError) -> [Household]
}

/// The `HouseholdRepository` backed by an `APIClient`.
public struct HouseholdService: HouseholdRepository {
    private let client: any APIClient

    /// A service that talks through `client`.
    public init(client: any APIClient) { self.client = client }

    struct HouseholdDTO: Decodable, Sendable {
        var id: String
        var name: String
        var memberIDs: [String]
    }

    /// `GET households`, sorted by name.
    public func households() async throws(APIError) -> [Household] {
        try await client.send(RESTRequest<[HouseholdDTO]>.get("households")).value
            .map { Household(id: $0.id, name: $0.name, memberCount: $0.memberIDs.count) }
            .sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
    }
}
