import APICore
import Foundation

// From the generated data to the app's values, and the app's profile changes to the schema's input.

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

extension ProfileChanges {
    /// The mutation's input: only what the changes name is sent; removing the avatar sends `null`.
    var input: UserAPI.UpdateProfileInput {
        let avatar: GraphQLNullable<String>
        switch self.avatar {
        case .keep: avatar = .none
        case .remove: avatar = .null
        case .set(let url): avatar = .some(url.absoluteString)
        }
        return UserAPI.UpdateProfileInput(displayName: GraphQLNullable(displayName), avatarURL: avatar)
    }
}
