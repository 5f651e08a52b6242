@_spi(Engine) @_spi(Tools) @_spi(Generated) import APICore
import Foundation

/// The payloads of a `multipart/mixed` answer (incremental delivery, multipart subscriptions),
/// parsed as they arrive: a stream of JSON objects that ends after the closing boundary, or with
/// the error that stopped it (a part that is not a JSON object, a body cut off before its closing
/// boundary, a part larger than `maxPartSize`, a timeout). Parts with an empty object or no body
/// (heartbeats) are skipped, or with `heartbeats`, delivered as empty objects. Stopping the
/// stream stops the exchange.
enum IncrementalParts {
    static func payloads(
        of chunks: APIStream<Result<Data, APIError>>, boundary: String, operationName: String, heartbeats: Bool = false,
        maxPartSize: Int = .max
    ) -> APIStream<Result<JSONObject, APIError>> {
        APIStream { continuation in
            let task = Task {
                var reader = MultipartReader(boundary: boundary)
                do throws(APIError) {
                    reading: for await chunk in chunks {
                        for part in reader.append(try chunk.get()) {
                            guard part.body.count <= maxPartSize else { throw tooLarge(part.body.count, limit: maxPartSize, operationName) }
                            if let payload = try payload(of: part, operationName: operationName) {
                                continuation.yield(.success(payload))
                            } else if heartbeats {
                                continuation.yield(.success([:]))
                            }
                        }
                        if reader.isClosed { break reading }
                        if reader.unreadCount > maxPartSize { throw tooLarge(reader.unreadCount, limit: maxPartSize, operationName) }
                    }
                    if Task.isCancelled { throw .cancelled }
                    try reader.finish()
                } catch {
                    continuation.yield(.failure(error))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private static func tooLarge(_ size: Int, limit: Int, _ operationName: String) -> APIError {
        ResponseBody.tooLarge(limit, what: "a multipart part of \(size) bytes or more", request: operationName)
    }

    private static func payload(of part: MultipartPart, operationName: String) throws(APIError) -> JSONObject? {
        if part.body.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 || $0 == 10 }) { return nil }
        let parsed: JSONValue
        do throws(JSONParseError) {
            parsed = try JSONParser.parse(Data(part.body))
        } catch {
            throw .invalidResponse(InvalidResponse(
                kind: .notJSON(error), statusCode: nil, request: operationName, bodyExcerpt: HTTPFailure.excerpt(of: Data(part.body))))
        }
        guard case .object(let object) = parsed else {
            throw .invalidResponse(InvalidResponse(
                kind: .notGraphQLResponse, statusCode: nil, request: operationName, bodyExcerpt: HTTPFailure.excerpt(of: Data(part.body))))
        }
        return object.isEmpty ? nil : object
    }
}
