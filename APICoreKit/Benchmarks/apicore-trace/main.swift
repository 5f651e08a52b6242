// Which source files one operation crosses, measured (scripts/trace.sh): run twice from a
// coverage build, once up to the operation (`fetch` or `event`: a client with a normalized cache,
// and one operation that warms what is made once) and once with the operation (`fetch --measure`),
// the functions whose execution counts grew are those the operation ran. Over an in-memory
// transport: the engine above the transport as an app runs it.
@_spi(Engine) import APICore
import APICoreLive
import Foundation
import StarWarsOperations

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Answers every request with one head and a body whose chunks the program pushes.
final class MemoryTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private let contentType: String
    private var continuations: [AsyncStream<Result<Data, APIError>>.Continuation] = []
    private var answers: [String]

    init(contentType: String, answers: [String] = []) {
        self.contentType = contentType
        self.answers = answers
    }

    func send(_ request: TransportRequest) async throws(APIError) -> StreamedResponse {
        let head = TransportResponse(statusCode: 200, headers: ["Content-Type": contentType], body: Data(), url: request.urlRequest.url)
        if request.readsWholeBody {
            let answer = lock.withLock { answers.isEmpty ? "{}" : answers.removeFirst() }
            return StreamedResponse(head: head, body: .complete(Data(answer.utf8)))
        }
        return StreamedResponse(head: head, body: .chunks(APIStream { continuation in lock.withLock { continuations.append(continuation) } }))
    }

    /// Sends `text` down the streams open now; answers whether there was one.
    func push(_ text: String) -> Bool {
        lock.withLock {
            for continuation in continuations { continuation.yield(.success(Data(text.utf8))) }
            return !continuations.isEmpty
        }
    }
}

func event(_ name: String) -> String {
    "event: next\ndata: {\"data\":{\"characterRenamed\":{\"__typename\":\"Human\",\"id\":\"1000\",\"name\":\"\(name)\"}}}\n\n"
}

/// Sets up `operation` and warms it; with `measure`, runs it once more.
func run(_ operation: String, measure: Bool) async throws {
    var configuration = APIClientConfiguration(
        restBaseURL: URL(string: "http://app.invalid/")!, cache: CacheConfiguration(), retryPolicy: .default)
    switch operation {
    case "fetch":
        // fetch(.networkOnly) with a cache.
        let hero = #"{"data":{"hero":{"__typename":"Droid","id":"2001","name":"R2-D2","primaryFunction":"Astromech","friends":[{"__typename":"Human","name":"Luke"}]}}}"#
        let client = APICoreLive.makeClient(configuration, transport: MemoryTransport(contentType: "application/graphql-response+json", answers: [hero, hero]))
        _ = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        guard measure else { return }
        let response = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        precondition(response.value.hero?.name == "R2-D2")
    case "event":
        // A subscription event (graphql-sse), written to the cache and yielded.
        configuration.subscriptions = .serverSentEvents(url: URL(string: "http://app.invalid/graphql")!, keepAlive: nil)
        let events = MemoryTransport(contentType: "text/event-stream")
        let client = APICoreLive.makeClient(configuration, transport: events)
        var iterator = client.subscribe(CharacterRenamedSubscription()).makeAsyncIterator()
        while !events.push(event("Luke")) { try await Task.sleep(for: .milliseconds(5)) }
        _ = try await iterator.next()
        guard measure else { return }
        _ = events.push(event("Luke S."))
        let renamed = try await iterator.next()
        precondition(renamed?.characterRenamed.name == "Luke S.")
    default:
        print("usage: apicore-trace fetch|event [--measure]")
        exit(2)
    }
}

try await run(CommandLine.arguments.dropFirst().first ?? "", measure: CommandLine.arguments.contains("--measure"))
