import Foundation

extension APIError {
    /// The error for a REST body that `JSONDecoder` (or a custom decode) rejected: not JSON at all
    /// (with the parser's position), or JSON of the wrong shape (with the coding path).
    package static func decodingFailure(_ error: any Error, body: Data, statusCode: Int?, request: String) -> APIError {
        if let apiError = error as? APIError { return apiError }
        let excerpt = HTTPFailure.excerpt(of: body)
        let status = statusCode
        guard let decodingError = error as? DecodingError else {
            return .invalidResponse(InvalidResponse(
                kind: .wrongShape(GraphQLDecodingError(message: String(describing: error))),
                statusCode: status, request: request, bodyExcerpt: excerpt))
        }
        do throws(JSONParseError) {
            try JSONTape.validate(body)
        } catch {
            return .invalidResponse(InvalidResponse(kind: .notJSON(error), statusCode: status, request: request, bodyExcerpt: excerpt))
        }
        let (codingPath, message): ([any CodingKey], String)
        switch decodingError {
        case .keyNotFound(let key, let context):
            (codingPath, message) = (context.codingPath + [key], "missing field '\(key.stringValue)'")
        case .valueNotFound(let type, let context):
            (codingPath, message) = (context.codingPath, "null where \(type) was expected")
        case .typeMismatch(let type, let context):
            (codingPath, message) = (context.codingPath, "expected \(type): \(context.debugDescription)")
        case .dataCorrupted(let context):
            (codingPath, message) = (context.codingPath, context.debugDescription)
        @unknown default:
            (codingPath, message) = ([], String(describing: decodingError))
        }
        let path = ResponsePath(codingPath.map { key in key.intValue.map { .index($0) } ?? .field(key.stringValue) })
        return .invalidResponse(InvalidResponse(
            kind: .wrongShape(GraphQLDecodingError(path: path, message: message)),
            statusCode: status, request: request, bodyExcerpt: excerpt))
    }
}
