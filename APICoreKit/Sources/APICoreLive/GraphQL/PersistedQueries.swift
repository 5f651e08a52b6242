@_spi(Generated) import APICore
import Foundation

/// What servers answer about persisted queries, read the same way for automatic persisted queries
/// (the operation stage) and persisted-only mode (the exchange).
enum PersistedQueryAnswers {
    static func isPersistedQueryNotFound(_ error: GraphQLError) -> Bool {
        error.message == "PersistedQueryNotFound" || error.code == "PERSISTED_QUERY_NOT_FOUND"
    }

    /// What a failure of an operation sent by id alone means: an id the server does not know (APQ's
    /// `PersistedQueryNotFound`, Apollo Router's `PERSISTED_QUERY_NOT_IN_LIST`) or a server without
    /// persisted queries is an invalid request that names the operation and the id; anything else
    /// is the operation's own failure.
    static func persistedOnlyFailure(_ error: APIError, operationName: String, id: String) -> APIError {
        if case .graphQL(let failure) = error,
            failure.errors.contains(where: { isPersistedQueryNotFound($0) || $0.code == "PERSISTED_QUERY_NOT_IN_LIST" })
        {
            return .invalidRequest(
                "\(operationName): the server does not know the persisted operation id \(id) (persisted-only mode sends ids, never "
                    + "documents: add the generated operation manifest to the server's safelist)")
        }
        if let reason = persistedQueriesUnsupported(by: error) {
            return .invalidRequest(
                "\(operationName): the server \(reason) and persisted-only mode "
                    + "never sends documents (PersistedQueries.persistedOnly)")
        }
        return error
    }

    /// Why the answer to a request that carried an id and no document says the server does not do persisted queries, or
    /// `nil` when it says something else (an error of the operation, an outage, credentials):
    /// - `PersistedQueryNotSupported` (message or code), as APQ servers say when it is off;
    /// - an error without data about the request having no query, as servers that never heard of
    ///   APQ say ("No GraphQL query found in the request", "The query must be a string.", "Must
    ///   provide query string.", "… must contain a non-empty `query` …"), with any status;
    /// - HTTP 400, 404, 405, 415 or 422 whose body is not a GraphQL response, or a body that is not
    ///   JSON at all (an HTML page answering a GET).
    static func persistedQueriesUnsupported(by error: APIError) -> String? {
        switch error {
        case .graphQL(let failure):
            if failure.errors.contains(where: { $0.message == "PersistedQueryNotSupported" || $0.code == "PERSISTED_QUERY_NOT_SUPPORTED" }) {
                return "answered PersistedQueryNotSupported"
            }
            guard failure.partialData == nil, let missing = failure.errors.first(where: { isMissingQuery($0.message) }) else { return nil }
            return "does not know persisted queries (it answered a request without a document with \"\(missing.message.prefix(100))\")"
        case .httpStatus(let failure) where [400, 404, 405, 415, 422].contains(failure.statusCode):
            return "does not know persisted queries (it answered a request without a document with HTTP \(failure.statusCode))"
        case .invalidResponse(let failure):
            switch failure.kind {
            case .notJSON, .notGraphQLResponse: break
            case .wrongShape, .noData, .notBatchAnswer, .tooLarge: return nil
            }
            return "does not know persisted queries (it answered a request without a document with a body that is not JSON"
                + (failure.statusCode.map { ", HTTP \($0)" } ?? "") + ")"
        default:
            return nil
        }
    }

    /// A request-level error that says the request carried no query.
    static func isMissingQuery(_ message: String) -> Bool {
        let text = message.lowercased()
        guard text.contains("query") else { return false }
        return ["no graphql query", "must be a string", "must provide", "non-empty", "missing", "no query", "not provided", "is required"]
            .contains { text.contains($0) }
    }
}
