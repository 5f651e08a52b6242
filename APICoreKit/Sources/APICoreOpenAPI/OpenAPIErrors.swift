import APICore
import Foundation
import HTTPTypes
import OpenAPIRuntime

extension ClientError {
    /// The client's error under this one, when the transport threw it: what `APIClient` says about
    /// a connection, a timeout or credentials that could not be refreshed.
    public var apiError: APIError? { underlyingError as? APIError }
}

extension APIError {
    /// What a client that swift-openapi-generator wrote threw, as an `APIError`, so that a kit's
    /// methods throw one error type whichever way they call:
    ///
    /// - the client's own error where the transport threw one (no connection, a timeout,
    ///   credentials that could not be refreshed);
    /// - `invalidResponse`, naming the operation, with the answer's status and the start of its
    ///   body, where an answer came that the generated code could not read as the document says;
    /// - `invalidRequest` where the input could not be encoded, before anything was sent.
    ///
    /// ```swift
    /// do {
    ///     output = try await products.getProduct(path: .init(id: id))
    /// } catch {
    ///     throw await APIError(openAPI: error)
    /// }
    /// ```
    public init(openAPI error: any Error) async {
        guard let clientError = error as? ClientError else {
            self = error as? APIError ?? .invalidRequest("\(error)")
            return
        }
        if let apiError = clientError.apiError {
            self = apiError
            return
        }
        let operation = clientError.operationID
        guard let response = clientError.response else {
            self = .invalidRequest("\(operation): \(clientError.causeDescription): \(clientError.underlyingError)")
            return
        }
        let body = await Self.bytes(of: clientError.responseBody)
        let underlying = clientError.underlyingError is DecodingError ? clientError.underlyingError : OpenAPIReadError(clientError)
        self = .decodingFailure(underlying, body: body, statusCode: response.status.code, request: operation)
    }

    /// An answer a kit takes as a failure (a status the document does not list, or an error status
    /// it does) as the error the client would have thrown for it: `unauthorized` for a 401,
    /// `httpStatus` otherwise, with its headers and the start of its body.
    ///
    /// ```swift
    /// case .undocumented(let status, let payload):
    ///     throw await APIError(status: status, headers: payload.headerFields, body: payload.body)
    /// ```
    public init(status statusCode: Int, headers fields: HTTPFields = [:], body: HTTPBody?) async {
        let headers = APIClientTransport.headers(fields.filter { $0.name != .contentLength })
        let failure = HTTPFailure(statusCode: statusCode, headers: headers, body: await Self.bytes(of: body), url: nil)
        self = statusCode == 401 ? .unauthorized(failure) : .httpStatus(failure)
    }

    /// The first bytes of a body (enough for an error's excerpt), or none when it cannot be read again.
    private static func bytes(of body: HTTPBody?) async -> Data {
        guard let body else { return Data() }
        var data = Data()
        do {
            for try await chunk in body {
                data.append(contentsOf: chunk)
                if data.count >= 4096 { break }
            }
        } catch {
            // What came before the failure is the excerpt.
        }
        return data
    }
}

/// What the generated code said when it could not read an answer (a content type the document
/// does not list, say), for `APIError`'s description.
private struct OpenAPIReadError: Error, CustomStringConvertible {
    let description: String

    init(_ error: ClientError) {
        description = "\(error.causeDescription): \(error.underlyingError)"
    }
}
