#if canImport(Security)
    import APICore
    import Foundation
    import Security

    /// A token kept in the Keychain (Apple platforms), as one generic-password item per service
    /// and account, readable after the first unlock.
    public actor KeychainTokenStore: TokenStore {
        private let service: String
        private let account: String

        /// A store for the item `service`/`account`.
        public init(service: String, account: String = "default") {
            self.service = service
            self.account = account
        }

        private var query: [String: Any] {
            [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
        }

        /// The token in the Keychain, if any.
        public func token() -> AuthToken? {
            var item: CFTypeRef?
            var lookup = query
            lookup[kSecReturnData as String] = true
            lookup[kSecMatchLimit as String] = kSecMatchLimitOne
            guard SecItemCopyMatching(lookup as CFDictionary, &item) == errSecSuccess, let data = item as? Data else { return nil }
            return try? JSONDecoder().decode(AuthToken.self, from: data)
        }

        /// Stores the token, replacing any earlier one.
        public func setToken(_ token: AuthToken) {
            guard let data = try? JSONEncoder().encode(token) else { return }
            SecItemDelete(query as CFDictionary)
            var item = query
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
            SecItemAdd(item as CFDictionary, nil)
        }

        /// Removes the token.
        public func clear() {
            SecItemDelete(query as CFDictionary)
        }
    }
#endif
