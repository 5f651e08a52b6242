@_spi(Engine) @_spi(Tools) @_spi(Generated) import APICore
import Foundation

/// Subscriptions over HTTP multipart, the protocol of Apollo Router (`subscriptionSpec=1.0`): one
/// POST per subscription; the answer is `multipart/mixed`, each part a JSON object: `{}` is a
/// heartbeat, `{"payload": {"data": …, "errors": […]}}` an event, and `{"payload": null, "errors":
/// […]}` an error that ends the subscription. The closing boundary completes it. A plain GraphQL
/// result as a part is read as an event too.
struct MultipartSubscriptionChannel: StreamingHTTPChannel {
    let exchange: Exchange
    let settings: SubscriptionConfiguration

    static let accept = GraphQLHTTP.acceptMultipartSubscription

    static func streams(_ head: TransportResponse) -> Bool { GraphQLHTTP.multipartBoundary(of: head) != nil }

    func read(
        _ chunks: APIStream<Result<Data, APIError>>, of head: TransportResponse, operation: OutgoingOperation,
        emit: (ChannelEvent) -> Void
    ) async throws(APIError) {
        guard let boundary = GraphQLHTTP.multipartBoundary(of: head) else { return }
        let parts = IncrementalParts.payloads(
            of: chunks, boundary: boundary, operationName: operation.name, maxPartSize: settings.maxMessageSize)
        for await next in parts {
            let part = try next.get()
            guard let payload = part["payload"] else {
                emit(.payload(.tree(part)))  // a plain result
                continue
            }
            guard case .object(let result) = payload else {
                // The server ends the subscription, with errors that say why.
                let errors = (part["errors"]?.arrayValue ?? []).map(GraphQLError.init(json:))
                guard !errors.isEmpty else {
                    throw .invalidResponse(InvalidResponse(
                        kind: .noData, statusCode: head.statusCode, request: operation.name, bodyExcerpt: JSONSerializer.string(.object(part))))
                }
                return emit(.error(.graphQL(GraphQLFailure(errors: errors, partialData: nil, statusCode: head.statusCode, operationName: operation.name))))
            }
            emit(.payload(.tree(result)))
        }
        if Task.isCancelled { throw .cancelled }
        emit(.complete)
    }
}
