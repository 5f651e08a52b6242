import APICore
import Foundation
import SharedKit

/// A person who uses the app.
public struct User: Sendable, Hashable, Identifiable {
    /// The user's id.
    public var id: String
    /// The name shown to others.
    public var displayName: String
    /// The e-mail address the user signs in with.
    public var email: String
    /// When the account was created.
    public var createdAt: DateTime

    /// Creates a user.
    public init(id: String, displayName: String, email: String, createdAt: DateTime) {
        self.id = id
        self.displayName = displayName
        self.email = email
        self.createdAt = createdAt
    }
}

/// Where users come from.
public protocol UserRepository: Sendable {
    /// The signed-in user.
    func currentUser() async throws(APIError) -> User
}

/// The `UserRepository` backed by an `APIClient`.
public struct UserService: UserRepository {
    private let client: any APIClient

    /// A service that talks through `client`.
    public init(client: any APIClient) { self.client = client }

    struct UserDTO: Decodable, Sendable {
        var id: String
        var displayName: String
        var email: String
        var createdAt: String
    }

    /// `GET users/me`, mapped to a ``User``; a bad `createdAt` is a mapping error naming it.
    public func currentUser() async throws(APIError) -> User {
        let dto = try await client.send(RESTRequest<UserDTO>.get("users/me")).value
        do {
            return User(id: dto.id, displayName: dto.displayName, email: dto.email, createdAt: try DateTime(iso8601: dto.createdAt))
        } catch {
            throw .mapping("users/me createdAt: \(error)")
        }
    }
}
