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
