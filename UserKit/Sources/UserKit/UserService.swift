import APICore

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
        try await client.perform(GraphQLRequest(UpdateProfileMutation(input: changes.input)) { data in
            try User(data.updateProfile.fragments.userDetails)
        }).value
    }
}
