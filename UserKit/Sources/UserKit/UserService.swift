import APICore
import Foundation
import SharedKit

/// A person who uses the app.
public struct User: Sendable, Hashable, Identifiable {
    /// The user's id.
    public var id: String
    /// The e-mail address the user signs in with.
    public var email: String
    /// The name shown to others.
    public var displayName: String
    /// What the user may do.
    public var roles: [Role]
    /// A picture of the user, if they chose one.
    public var avatarURL: URL?
    /// When the account was created.
    public var createdAt: DateTime

    /// What a user may do.
    public enum Role: Sendable, Hashable {
        /// Manages the whole app.
        case admin
        /// Uses the app.
        case member
        /// Can only look.
        case guest
        /// A role this version of the app does not know, as the server named it.
        case other(String)
    }

    /// Creates a user.
    public init(id: String, email: String, displayName: String, roles: [Role], avatarURL: URL?, createdAt: DateTime) {
        self.id = id
        self.email = email
        self.displayName = displayName
        self.roles = roles
        self.avatarURL = avatarURL
        self.createdAt = createdAt
    }
}

/// Changes to the signed-in user's profile.
public struct ProfileChanges: Sendable, Hashable {
    /// What to do with the avatar.
    public enum Avatar: Sendable, Hashable {
        /// Leave it as it is.
        case keep
        /// Remove it.
        case remove
        /// Use this picture.
        case set(URL)
    }

    /// A new display name, or `nil` to keep the current one.
    public var displayName: String?
    /// What to do with the avatar.
    public var avatar: Avatar

    /// Describes the changes; by default, none.
    public init(displayName: String? = nil, avatar: Avatar = .keep) {
        self.displayName = displayName
        self.avatar = avatar
    }
}

/// Where users come from.
public protocol UserRepository: Sendable {
    /// The signed-in user, or `nil` when nobody is signed in.
    func currentUser() async throws(APIError) -> User?
    /// The user with this id, or `nil` when there is none.
    func user(id: String) async throws(APIError) -> User?
    /// Changes the signed-in user's profile and returns it as it now is.
    func updateProfile(_ changes: ProfileChanges) async throws(APIError) -> User
}

/// The `UserRepository` backed by an `APIClient`.
public struct UserService: UserRepository {
    private let client: any APIClient

    /// A service that talks through `client`.
    public init(client: any APIClient) { self.client = client }

    /// `query CurrentUser`.
    public func currentUser() async throws(APIError) -> User? {
        try await client.fetch(GraphQLRequest(CurrentUserQuery()) { data in try data.me.map { try User($0.fragments.userDetails) } }).value
    }

    /// `query UserByID`.
    public func user(id: String) async throws(APIError) -> User? {
        try await client.fetch(GraphQLRequest(UserByIDQuery(id: id)) { data in try data.user.map { try User($0.fragments.userDetails) } }).value
    }

    /// `mutation UpdateProfile`: only what `changes` names is sent; removing the avatar sends `null`.
    public func updateProfile(_ changes: ProfileChanges) async throws(APIError) -> User {
        let avatar: GraphQLNullable<String>
        switch changes.avatar {
        case .keep: avatar = .none
        case .remove: avatar = .null
        case .set(let url): avatar = .some(url.absoluteString)
        }
        let input = UserAPI.UpdateProfileInput(displayName: GraphQLNullable(changes.displayName), avatarURL: avatar)
        return try await client.perform(GraphQLRequest(UpdateProfileMutation(input: input)) { data in
            try User(data.updateProfile.fragments.userDetails)
        }).value
    }
}

extension User {
    init(_ details: UserDetails) throws {
        var avatarURL: URL?
        if let text = details.avatarURL {
            guard let url = URL(string: text), url.scheme != nil else {
                throw APIError.mapping("User \(details.id) avatarURL: '\(text)' is not a URL")
            }
            avatarURL = url
        }
        self.init(
            id: details.id, email: details.email, displayName: details.displayName,
            roles: details.roles.map(Role.init), avatarURL: avatarURL, createdAt: details.createdAt)
    }
}

extension User.Role {
    init(_ role: GraphQLEnum<UserAPI.UserRole>) {
        switch role {
        case .case(.admin): self = .admin
        case .case(.member): self = .member
        case .case(.guest): self = .guest
        case .unknown(let raw): self = .other(raw)
        }
    }
}
