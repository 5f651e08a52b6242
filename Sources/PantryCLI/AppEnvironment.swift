import APICore
import APICoreLive
import Foundation
import HouseholdKit
import ProductKit
import UserKit

/// The composition root: the one place that knows the engine. It builds one `APIClient` and
/// hands it to every kit's service; the kits see only `APIClient`.
public struct AppEnvironment: Sendable {
    /// The client every kit shares.
    public let client: any APIClient
    /// Users.
    public let users: any UserRepository
    /// Products.
    public let products: any ProductRepository
    /// Households.
    public let households: any HouseholdRepository

    /// Wires the kits to `client`.
    public init(client: any APIClient) {
        self.client = client
        users = UserService(client: client)
        products = ProductService(client: client)
        households = HouseholdService(client: client)
    }

    /// An environment talking to the server at `endpoint` (REST under it, GraphQL at `graphql`).
    public static func live(endpoint: URL) -> AppEnvironment {
        AppEnvironment(client: APICoreLive.makeClient(APIClientConfiguration(restBaseURL: endpoint)))
    }
}
