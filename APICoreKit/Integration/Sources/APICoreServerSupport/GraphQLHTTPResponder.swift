import Foundation
import GraphQL
import HTTPTypes
import Hummingbird

/// An error a resolver throws to give the response an `extensions.code` (such as `UNAUTHENTICATED`).
public struct CodedError: Error, CustomStringConvertible {
    /// The code, in `extensions.code`.
    public var code: String
    /// The message.
    public var message: String

    /// An error with a code.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// GraphQL over HTTP for the test and dev servers: executes a request and answers as the spec says.
public enum GraphQLHTTPResponder {
    /// Executes `query` and answers: with `application/graphql-response+json` accepted, a request
    /// error (no data at all) is a 400; with `application/json`, every well-formed response is a 200.
    /// Errors thrown as ``CodedError`` get their `extensions.code`. A document with `@defer`, from
    /// a client that accepts `multipart/mixed`, is answered in parts as `incremental` says; a
    /// subscription, from a client that accepts multipart subscriptions or `text/event-stream`
    /// (graphql-sse), streams as `subscriptions` says.
    public static func execute(
        schema: GraphQLSchema, query: String, operationName: String?, variablesJSON: Data?, accept: String, context: any Sendable,
        incremental: IncrementalDelivery.Options = IncrementalDelivery.Options(),
        subscriptions: StreamedSubscriptions.Options = StreamedSubscriptions.Options()
    ) async throws -> Response {
        let streamed = StreamedSubscriptions.format(accepting: accept)
        if accept.contains("multipart/mixed") || streamed != nil, let (document, operation) = Self.operation(in: query, named: operationName) {
            if operation.operation == .subscription, let streamed {
                return try await StreamedSubscriptions.respond(
                    schema: schema, query: query, operationName: operationName, variablesJSON: variablesJSON, context: context, format: streamed,
                    options: subscriptions)
            }
            if accept.contains("multipart/mixed"), let parts = try await IncrementalDelivery.respond(
                schema: schema, document: document, operation: operation, query: query, operationName: operationName,
                variablesJSON: variablesJSON, context: context, options: incremental)
            {
                return parts
            }
        }
        let answer = try await single(schema: schema, query: query, operationName: operationName, variablesJSON: variablesJSON, accept: accept, context: context)
        return Responses.body(answer.status, answer.body, contentType: answer.contentType)
    }

    /// One answer, in one body, as a server that does not stream answers (`@defer` delivered in
    /// the first and only payload): what a server stores to answer a retried request again.
    public static func single(
        schema: GraphQLSchema, query: String, operationName: String?, variablesJSON: Data?, accept: String, context: any Sendable
    ) async throws -> (status: Int, contentType: String, body: Data) {
        let variables = try variablesJSON.map { try JSONDecoder().decode([String: Map].self, from: $0) } ?? [:]
        let wantsGraphQLResponse = accept.contains("application/graphql-response+json")
        var result = try await execute(schema: schema, query: query, context: context, variables: variables, operationName: operationName)
        result.errors = result.errors.map(withExtensions)
        let status = wantsGraphQLResponse && result.data == nil && !result.errors.isEmpty ? 400 : 200
        let contentType = wantsGraphQLResponse ? "application/graphql-response+json; charset=utf-8" : "application/json; charset=utf-8"
        return (status, contentType, try GraphQLJSONEncoder().encode(result))
    }

    /// Executes `query`, parsed and validated once per schema and text, as Apollo Server's document
    /// store and other production servers keep them; a document that does not parse throws, one
    /// that does not validate answers its errors (neither is kept).
    static func execute(schema: GraphQLSchema, query: String, context: any Sendable, variables: [String: Map], operationName: String?)
        async throws -> GraphQLResult
    {
        let key = "\(ObjectIdentifier(schema))\n\(query)"
        let document: Document
        if let known = documents.withLock({ $0[key] }) {
            document = known.document
        } else {
            document = try parse(source: Source(body: query, name: "request"))
            let errors = validate(schema: schema, ast: document)
            guard errors.isEmpty else { return GraphQLResult(errors: errors) }
            documents.withLock { cache in
                // Bounded: a server fed ever new documents forgets them all and starts again.
                if cache.count >= 1_000 { cache.removeAll() }
                cache[key] = KnownDocument(document: document)
            }
        }
        return try await GraphQL.execute(
            schema: schema, documentAST: document, rootValue: (), context: context, variableValues: variables, operationName: operationName)
    }

    /// A parsed, validated document, read only once cached.
    struct KnownDocument: @unchecked Sendable {
        let document: Document
    }

    private static let documents = Locked<[String: KnownDocument]>([:])

    /// The parsed document and the operation a request names (the only one when it names none);
    /// `nil` when the document does not parse or has no such operation (execution will say so).
    public static func operation(in query: String, named operationName: String?) -> (Document, OperationDefinition)? {
        guard let document = try? parse(source: Source(body: query, name: "request")) else { return nil }
        let operations = document.definitions.compactMap { $0 as? OperationDefinition }
        guard let operation = operations.first(where: { operationName == nil || $0.name?.value == operationName }) else { return nil }
        return (document, operation)
    }

    /// Gives an error raised by a ``CodedError`` its `extensions.code`, keeping its path and locations.
    public static func withExtensions(_ error: GraphQLError) -> GraphQLError {
        guard let coded = error.originalError as? CodedError else { return error }
        return GraphQLError(message: coded.message, locations: error.locations, path: error.path, extensions: ["code": .string(coded.code)])
    }
}
