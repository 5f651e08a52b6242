@_spi(Engine) import APICore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// REST through the exchange: the request made from the client's base URL and default headers, run
/// through the middleware chain, its answer decoded.
extension Exchange {
    /// A REST request through the chain, in a span of its own: the answer decoded as the request
    /// says, with the exchange's metadata.
    func send<Value>(_ request: RESTRequest<Value>) async throws(APIError) -> Response<Value> {
        try await spans.traced(
            request.summary, kind: .client, attributes: { $0["http.request.method"] = request.method.rawValue }
        ) { span throws(APIError) in
            let response = try await sendUntraced(request)
            Spans.note(response.metadata, on: span)
            return response
        }
    }

    private func sendUntraced<Value>(_ request: RESTRequest<Value>) async throws(APIError) -> Response<Value> {
        let start = ContinuousClock.now
        let urlRequest = try makeURLRequest(request)
        let context = RequestContext(kind: .rest, operationName: request.summary, isIdempotent: request.isIdempotent, values: request.values)
        let response: TransportResponse
        do {
            response = try await chain.run(urlRequest, context: context, exchange: restExchange(timeout: request.timeout))
        } catch {
            // With `acceptsAnyStatus`, the answer the chain (refresh, retry) ended with a status
            // error for is the response: the error carries it, body and all.
            switch error {
            case .httpStatus(let failure) where request.acceptsAnyStatus, .unauthorized(let failure) where request.acceptsAnyStatus:
                response = TransportResponse(statusCode: failure.statusCode, headers: failure.headers, body: failure.body, url: failure.url)
            default: throw error
            }
        }
        let value: Value
        do {
            value = try request.decode(response.body)
        } catch {
            throw APIError.decodingFailure(error, body: response.body, statusCode: response.statusCode, request: request.summary)
        }
        return Response(value: value, metadata: Self.metadata(for: response, operationName: request.summary, since: start))
    }

    private func makeURLRequest<Value>(_ request: RESTRequest<Value>) throws(APIError) -> URLRequest {
        let path = request.path.hasPrefix("/") ? String(request.path.dropFirst()) : request.path
        let base = configuration.restBaseURL.absoluteString.hasSuffix("/")
            ? configuration.restBaseURL.absoluteString : configuration.restBaseURL.absoluteString + "/"
        let isAbsolute = ["http://", "https://"].contains { request.path.lowercased().hasPrefix($0) }
        guard var components = URLComponents(string: isAbsolute ? request.path : base + path) else {
            throw .invalidRequest("the path '\(request.path)' does not make a valid URL with \(configuration.restBaseURL)")
        }
        if !request.queryItems.isEmpty {
            components.percentEncodedQuery = QueryEncoding.encode(request.queryItems.map { ($0.name, $0.value ?? "") })
        }
        guard let url = components.url else {
            throw .invalidRequest("the path '\(request.path)' does not make a valid URL with \(configuration.restBaseURL)")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        switch (request.body, request.rawBody) {
        case (_?, _?):
            throw .invalidRequest("\(request.summary) has both a JSON body and a raw body; give one")
        case (let body?, nil):
            do {
                urlRequest.httpBody = try configuration.makeJSONEncoder().encode(body)
            } catch {
                throw .invalidRequest("the body of \(request.summary) could not be encoded as JSON: \(error)")
            }
            urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        case (nil, let raw?):
            urlRequest.httpBody = raw.data
            urlRequest.setValue(raw.contentType, forHTTPHeaderField: "Content-Type")
        case (nil, nil):
            break
        }
        applyHeaders(request.headers, to: &urlRequest)
        return urlRequest
    }

    private static func checkRESTStatus(_ response: TransportResponse) throws(APIError) {
        switch response.statusCode {
        case 200..<300: return
        case 401: throw .unauthorized(HTTPFailure(statusCode: 401, headers: response.headers, body: response.body, url: response.url))
        default:
            throw .httpStatus(HTTPFailure(statusCode: response.statusCode, headers: response.headers, body: response.body, url: response.url))
        }
    }

    /// The innermost step for REST: the answer whole, a status outside 2xx as an error that
    /// carries it.
    private func restExchange(timeout: Duration?) -> MiddlewareNext {
        let timeout = timeout ?? configuration.timeout
        return { [self] request throws(APIError) in
            let response = try await transport.whole(spans.withTraceContext(request), timeout: timeout, limit: configuration.maxResponseSize)
            try Self.checkRESTStatus(response)
            return response
        }
    }
}
