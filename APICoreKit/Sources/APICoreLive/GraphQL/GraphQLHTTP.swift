@_spi(Engine) @_spi(Tools) @_spi(Generated) import APICore
import APICoreSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// GraphQL over HTTP, as the GraphQL-over-HTTP specification describes it: how a request is
/// written (POST with JSON, or GET for queries) and how a response is read, status codes and
/// media types included.
enum GraphQLHTTP {
    static let graphQLResponseMediaType = "application/graphql-response+json"
    static let accept = "application/graphql-response+json, application/json;q=0.9"
    /// For an operation with `@defer` or `@stream`: incremental delivery first (the 2022 format's media type
    /// parameter, which servers of the newer format accept too), a whole answer otherwise.
    static let acceptIncremental = "multipart/mixed;deferSpec=20220824, application/graphql-response+json, application/json;q=0.9"
    /// For a subscription over HTTP multipart (Apollo's protocol); a server that cannot stream
    /// answers once, as JSON.
    static let acceptMultipartSubscription = "multipart/mixed;subscriptionSpec=1.0, application/graphql-response+json, application/json;q=0.9"

    /// For a subscription over server-sent events (graphql-sse); a server that cannot stream
    /// answers once, as JSON.
    static let acceptEventStream = "text/event-stream, application/graphql-response+json;q=0.9, application/json;q=0.8"

    /// Whether a document asks for incremental delivery (`@defer`, `@stream`).
    static func isIncremental(_ document: String) -> Bool { document.contains("@defer") || document.contains("@stream") }

    /// What of the document a request carries.
    enum Document {
        /// The document.
        case full
        /// Only the persisted-query hash.
        case hashOnly(String)
        /// The hash and the document, so the server can remember it.
        case hashAndDocument(String)
    }

    /// What a client adds to each of its GraphQL requests.
    struct Conventions: Sendable {
        /// Headers for a request that is not a JSON `POST`.
        var csrfPrevention: CSRFPrevention
        /// The app's name and version.
        var clientAwareness: ClientAwareness?

        init(_ configuration: APIClientConfiguration) {
            csrfPrevention = configuration.csrfPrevention
            clientAwareness = configuration.clientAwareness
        }
    }

    /// A request for an operation given by its name and document text: a JSON `POST`, a `GET`
    /// (`useGET`, no files) or a multipart `POST` (files), with the client's ``Conventions``.
    static func makeRequest(
        url: URL, operationName: String, document text: String, variables: JSONObject, files: [(path: [String], file: GraphQLFile)] = [],
        useGET: Bool, sending document: Document = .full, accept: String = accept, conventions: Conventions
    ) throws(APIError) -> URLRequest {
        var body: JSONObject = ["operationName": .string(operationName)]
        if !variables.isEmpty { body["variables"] = .object(variables) }
        switch document {
        case .full:
            body["query"] = .string(text)
        case .hashOnly(let hash):
            body["extensions"] = ["persistedQuery": ["version": 1, "sha256Hash": .string(hash)]]
        case .hashAndDocument(let hash):
            body["query"] = .string(text)
            body["extensions"] = ["persistedQuery": ["version": 1, "sha256Hash": .string(hash)]]
        }
        var request: URLRequest
        if !files.isEmpty {
            request = URLRequest(url: url)
            request.httpMethod = "POST"
            let boundary = "apicore-\(UUID().uuidString)"
            request.httpBody = try multipartBody(operations: .object(body), files: files, boundary: boundary)
            request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        } else if useGET {
            var parameters: [(String, String)] = []
            if let query = body["query"]?.stringValue { parameters.append(("query", query)) }
            parameters.append(("operationName", operationName))
            if !variables.isEmpty { parameters.append(("variables", JSONSerializer.string(.object(variables)))) }
            if let extensions = body["extensions"] { parameters.append(("extensions", JSONSerializer.string(extensions))) }
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw .invalidRequest("the GraphQL endpoint \(url) is not a valid URL")
            }
            let existing = components.percentEncodedQuery.map { $0 + "&" } ?? ""
            components.percentEncodedQuery = existing + QueryEncoding.encode(parameters)
            guard let getURL = components.url else { throw .invalidRequest("the GraphQL endpoint \(url) is not a valid URL") }
            request = URLRequest(url: getURL)
            request.httpMethod = "GET"
        } else {
            request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.httpBody = JSONSerializer.data(.object(body))
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        request.setValue(accept, forHTTPHeaderField: "Accept")
        if request.value(forHTTPHeaderField: "Content-Type") != "application/json" {
            // A GET or a multipart POST: what a web page can send without a preflight.
            for (name, value) in conventions.csrfPrevention.headers(operationName: operationName) {
                request.setValue(value, forHTTPHeaderField: name)
            }
        }
        for (name, value) in conventions.clientAwareness?.headers ?? [:] {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }

    /// The GraphQL multipart request: `operations` (the usual JSON, files as `null`), `map` (which
    /// part fills which variable path), then one part per file.
    static func multipartBody(operations: JSONValue, files: [(path: [String], file: GraphQLFile)], boundary: String) throws(APIError) -> Data {
        var body = Data()
        func part(name: String, filename: String? = nil, contentType: String, contents: Data) {
            body.append(Data("--\(boundary)\r\n".utf8))
            var disposition = "Content-Disposition: form-data; name=\"\(name)\""
            if let filename { disposition += "; filename=\"\(filename.replacingOccurrences(of: "\"", with: "%22"))\"" }
            body.append(Data("\(disposition)\r\nContent-Type: \(contentType)\r\n\r\n".utf8))
            body.append(contents)
            body.append(Data("\r\n".utf8))
        }
        part(name: "operations", contentType: "application/json", contents: JSONSerializer.data(operations))
        var map = JSONObject()
        for (index, file) in files.enumerated() {
            map[String(index)] = .array([.string((["variables"] + file.path).joined(separator: "."))])
        }
        part(name: "map", contentType: "application/json", contents: JSONSerializer.data(.object(map)))
        for (index, file) in files.enumerated() {
            let contents: Data
            do {
                contents = try file.file.contents()
            } catch {
                throw .invalidRequest("the upload '\(file.file.filename)' at \((["variables"] + file.path).joined(separator: ".")) cannot be read: \(error.localizedDescription)")
            }
            part(name: String(index), filename: file.file.filename, contentType: file.file.mimeType, contents: contents)
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return body
    }

    /// Whether an answer's body streams in parts that are read as they arrive: `multipart/mixed`
    /// (incremental delivery, multipart subscriptions) or `text/event-stream` (graphql-sse).
    static func streams(_ response: TransportResponse) -> Bool {
        multipartBoundary(of: response) != nil || response.mediaType == "text/event-stream"
    }

    /// The boundary of a `multipart/mixed` answer.
    static func multipartBoundary(of response: TransportResponse) -> String? {
        guard response.mediaType == "multipart/mixed", let type = response.headers["content-type"] else { return nil }
        return MultipartReader.boundary(ofContentType: type)
    }

    /// Classifies one raw response, innermost in the chain, and answers its payload. A
    /// well-formed GraphQL response with errors becomes ``APIError/graphQL(_:)`` whatever its
    /// status; any other status outside 2xx becomes an HTTP error; 2xx bodies that are not GraphQL
    /// responses, or that have no data, are invalid.
    /// Errors that fields of `catching` (the operation's selections) catch are not failures: the
    /// payload has the data with each in its place, and the errors.
    static func classify(_ response: TransportResponse, operationName: String, catching selections: [Selection] = []) throws(APIError)
        -> GraphQLPayload
    {
        let status = response.statusCode
        let success = (200..<300).contains(status)
        if status == 401 {
            throw .unauthorized(HTTPFailure(statusCode: status, headers: response.headers, body: response.body, url: response.url))
        }
        let parsed: JSONTape
        do throws(JSONParseError) {
            parsed = try JSONTape(reading: response.body)
        } catch {
            if success {
                throw .invalidResponse(InvalidResponse(
                    kind: .notJSON(error), statusCode: status, request: operationName,
                    bodyExcerpt: HTTPFailure.excerpt(of: response.body)))
            }
            throw httpError(response)
        }
        let extensions = parsed.root["extensions"]?.jsonValue.objectValue
        switch try GraphQLResponseReading.read(parsed.root, statusCode: status, operationName: operationName, catching: selections) {
        case .caught(let data, let errors):
            guard success else { throw httpError(response) }
            return GraphQLPayload(data: .tree(data), caughtErrors: errors, extensions: extensions)
        case .notGraphQL:
            guard success else { throw httpError(response) }
            throw .invalidResponse(InvalidResponse(
                kind: .notGraphQLResponse, statusCode: status, request: operationName,
                bodyExcerpt: HTTPFailure.excerpt(of: response.body)))
        case .data(let data):
            guard success else { throw httpError(response) }
            guard let data else {
                throw .invalidResponse(InvalidResponse(
                    kind: .noData, statusCode: status, request: operationName, bodyExcerpt: HTTPFailure.excerpt(of: response.body)))
            }
            return GraphQLPayload(data: data, extensions: extensions)
        }
    }

    static func httpError(_ response: TransportResponse) -> APIError {
        .httpStatus(HTTPFailure(statusCode: response.statusCode, headers: response.headers, body: response.body, url: response.url))
    }
}

/// Query strings with every reserved character escaped (`+` and `&` included), which
/// `URLComponents.queryItems` does not do.
enum QueryEncoding {
    private static let allowed: CharacterSet = {
        CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    }()

    static func encode(_ items: [(String, String)]) -> String {
        items.map { name, value in escape(name) + "=" + escape(value) }.joined(separator: "&")
    }

    static func escape(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: allowed) ?? string
    }
}
