import APICore

/// Where users come from.
public protocol UserRepository: Sendable {
    /// The signed-in user, or `nil` when nobody is signed in.
    func currentUser() async throws(APIError) -> User?
    /// The user with this id, or `nil` when there is none.
    func user(id: String) async throws(APIError) -> User?
    /// Changes the signed-in user's profile and returns it as it now is.
    func updateProfile(_ changes: ProfileChanges) async throws(APIError) -> User
}
