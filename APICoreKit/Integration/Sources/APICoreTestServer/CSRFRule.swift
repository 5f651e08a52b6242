import HTTPTypes

/// Apollo Server's CSRF prevention (on by default in Apollo Server 4 and Apollo Router): a request
/// a web page could send without a CORS preflight — no `Content-Type`, or one of the three
/// CORS-safelisted ones — is refused unless it carries a non-empty `X-Apollo-Operation-Name` or
/// `Apollo-Require-Preflight`.
enum CSRFRule {
    /// The content types a browser sends without a preflight (the Fetch standard's safelist).
    static let simpleContentTypes: Set<String> = ["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"]
    /// The headers that show a request was preflighted, by Apollo's recommended list.
    static let preflightHeaders = ["x-apollo-operation-name", "apollo-require-preflight"]
    /// Apollo Server's words for a refused request.
    static let message =
        "This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Please either specify a 'content-type' header "
        + "(with a type that is not one of application/x-www-form-urlencoded, multipart/form-data, text/plain) or provide a non-empty "
        + "value for one of the following headers: x-apollo-operation-name, apollo-require-preflight"

    /// Whether the rule refuses a request with these headers.
    static func refuses(_ headers: HTTPFields) -> Bool {
        if let contentType = headers[.contentType] {
            // Parameters (`; boundary=…`, `; charset=…`) aside; a type that does not parse would be
            // preflighted, so only a well-formed safelisted one needs a header.
            let essence = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            guard essence.contains("/"), simpleContentTypes.contains(essence) else { return false }
        }
        return !preflightHeaders.contains { name in
            guard let field = HTTPField.Name(name), let value = headers[field] else { return false }
            return !value.isEmpty
        }
    }
}
