@_spi(Tools) @_spi(Generated) import APICore
import Foundation

/// An operation as it goes to the server, without its Swift type: what each way into the exchange
/// hands it (a fetch or a mutation, a queued mutation replayed from its stored text, a subscription
/// opened over a channel), so that the exchange is one function for all of them.
struct OutgoingOperation: Sendable {
    /// The operation's name.
    var name: String
    /// Query, mutation or subscription.
    var type: GraphQLOperationType
    /// The document.
    var document: String
    /// The generator's persisted-operation id, else the document's SHA-256.
    var documentID: String
    /// The variables as sent (left-out ones absent).
    var variables: JSONObject
    /// Files among the variables (a multipart upload).
    var files: [(path: [String], file: GraphQLFile)] = []
    /// Headers of the request, over the client's defaults.
    var headers: [String: String] = [:]
    /// The app's values for its middleware.
    var values = RequestValues()
    /// The request's timeout, else the client's.
    var timeout: Duration?
    /// Whether sending it twice is safe (retries).
    var isIdempotent: Bool
    /// Whether it may share an HTTP request with others (the client's batcher).
    var allowsBatching = false
    /// The selections whose `@catch` fields catch errors; empty when none do.
    var catching: [Selection] = []
    /// What of the document the request carries. Persisted-only mode sends the id whatever this says.
    var sending: GraphQLHTTP.Document = .full
    /// Whether a query goes as a GET.
    var useGET = false

    /// A typed request as it goes out: its document, id, variables as sent, files and options.
    init<Operation: GraphQLOperation, Value>(_ request: GraphQLRequest<Operation, Value>, useGET: Bool = false) {
        name = Operation.operationName
        type = Operation.operationType
        document = Operation.document
        documentID = OutgoingOperation.documentID(of: Operation.self)
        variables = request.operation.variablesJSON
        files = request.operation.__variables.files
        headers = request.headers
        values = request.values
        timeout = request.timeout
        isIdempotent = request.isIdempotent
        allowsBatching = request.allowsBatching
        catching = Operation.Data.__selections
        self.useGET = useGET
    }

    /// An operation known by its text (a queued mutation as it was stored).
    init(name: String, type: GraphQLOperationType, document: String, variables: JSONObject, headers: [String: String], isIdempotent: Bool) {
        self.name = name
        self.type = type
        self.document = document
        documentID = OutgoingOperation.documentID(ofText: document)
        self.variables = variables
        self.headers = headers
        self.isIdempotent = isIdempotent
    }

    /// Whether the document asks for incremental delivery (`@defer`, `@stream`).
    var isIncremental: Bool { GraphQLHTTP.isIncremental(document) }

    /// `query` (or for an id alone, `extensions.persistedQuery`), `operationName` and `variables`,
    /// as a WebSocket `subscribe` message carries them.
    var payload: JSONObject {
        var payload: JSONObject = ["operationName": .string(name)]
        switch sending {
        case .hashOnly(let id): payload["extensions"] = ["persistedQuery": ["version": 1, "sha256Hash": .string(id)]]
        case .full, .hashAndDocument: payload["query"] = .string(document)
        }
        if !variables.isEmpty { payload["variables"] = .object(variables) }
        return payload
    }

    /// An operation's document id: the generator's persisted-query id, else the SHA-256 of its
    /// document, worked out once per operation type.
    static func documentID<Operation: GraphQLOperation>(of _: Operation.Type) -> String {
        if let known = documentIDs.withLock({ $0[Operation.document] }) { return known }
        let id = Operation.operationIdentifier ?? SHA256.hexDigest(Operation.document)
        documentIDs.withLock { $0[Operation.document] = id }
        return id
    }

    /// The id of a document as text (a queued mutation's, stored without its type): the id its
    /// operation type gave, once worked out, else its SHA-256.
    static func documentID(ofText document: String) -> String {
        documentIDs.withLock { $0[document] } ?? SHA256.hexDigest(document)
    }

    /// Ids by document text.
    private static let documentIDs = Locked<[String: String]>([:])
}
