@_spi(Engine) @_spi(Tools) @_spi(Generated) import APICore
import APICoreSupport
import Foundation

/// Subscriptions over server-sent events, as graphql-sse's distinct connections mode says: one
/// POST per subscription with `Accept: text/event-stream`; the answer is `text/event-stream`,
/// each `next` event a GraphQL result as its data (errors the server found before executing come
/// this way too), `complete` when the operation is over; comments are heartbeats. Stopping the
/// subscription closes the request, which is how the server learns the client went. A stream that
/// ends without `complete` is a drop, reopened as the `reconnect` policy says.
struct EventStreamSubscriptionChannel: StreamingHTTPChannel {
    let exchange: Exchange
    let settings: SubscriptionConfiguration

    static let accept = GraphQLHTTP.acceptEventStream

    static func streams(_ head: TransportResponse) -> Bool { head.mediaType == "text/event-stream" }

    func read(
        _ chunks: APIStream<Result<Data, APIError>>, of head: TransportResponse, operation: OutgoingOperation,
        emit: (ChannelEvent) -> Void
    ) async throws(APIError) {
        var reader = ServerSentEventReader(maxEventSize: settings.maxMessageSize)
        for await chunk in chunks {
            let bytes = try chunk.get()
            let events: [ServerSentEvent]
            do throws(ServerSentEventReader.TooLarge) {
                events = try reader.append(bytes)
            } catch {
                throw ResponseBody.tooLarge(
                    error.limit, what: "a server-sent event of \(error.size) bytes or more", request: operation.name, statusCode: head.statusCode)
            }
            for event in events {
                switch event.type {
                case "next":
                    emit(.payload(try result(of: event, operation: operation, statusCode: head.statusCode)))
                case "complete":
                    return emit(.complete)
                default:
                    continue  // an event graphql-sse does not define
                }
            }
        }
        if Task.isCancelled { throw .cancelled }
        throw .transport(TransportFailure(
            kind: .connectionLost, url: head.url, underlying: "the event stream ended before its complete event"))
    }

    /// A `next` event's data: a JSON object, or an error that says what came instead.
    private func result(of event: ServerSentEvent, operation: OutgoingOperation, statusCode: Int) throws(APIError) -> ReadObject {
        let parsed: JSONTape
        do throws(JSONParseError) {
            parsed = try JSONTape(reading: event.data)
        } catch {
            throw .invalidResponse(InvalidResponse(
                kind: .notJSON(error), statusCode: statusCode, request: operation.name, bodyExcerpt: HTTPFailure.excerpt(of: event.data)))
        }
        guard let result = ReadObject(parsed) else {
            throw .invalidResponse(InvalidResponse(
                kind: .notGraphQLResponse, statusCode: statusCode, request: operation.name, bodyExcerpt: HTTPFailure.excerpt(of: event.data)))
        }
        return result
    }
}
