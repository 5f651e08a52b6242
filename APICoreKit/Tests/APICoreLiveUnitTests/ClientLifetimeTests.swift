@_spi(Tools) @_spi(Engine) import APICore
@_spi(Engine) @testable import APICoreLive
import Foundation
import StarWarsOperations
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client's parts hold each other one way: when the app lets the client go, every part goes,
/// and with them the transport (whose connections a server may be waiting on).
@Suite("Client lifetime")
struct ClientLifetimeTests {
    /// Answers every request with HeroName's data, and says when it goes away.
    final class Transport: HTTPTransport {
        let gone: @Sendable () -> Void

        init(gone: @escaping @Sendable () -> Void) { self.gone = gone }

        deinit { gone() }

        func send(_ request: TransportRequest) async throws(APIError) -> StreamedResponse {
            let body = Data(#"{"data":{"hero":{"__typename":"Droid","id":"2001","name":"R2-D2","primaryFunction":"Astromech","friends":[]}}}"#.utf8)
            let head = TransportResponse(statusCode: 200, headers: ["content-type": "application/json"], body: Data(), url: request.urlRequest.url)
            return StreamedResponse(head: head, body: .chunks(APIStream { $0.yield(.success(body)); $0.finish() }))
        }
    }

    @Test("a client with a cache, batching, retries, bearer authentication and a queued mutation's listener goes away once used and let go")
    func clientGoesAway() async throws {
        let (gone, signal) = AsyncStream.makeStream(of: Void.self)
        do {
            var configuration = APIClientConfiguration(restBaseURL: URL(string: "http://127.0.0.1:1")!, cache: CacheConfiguration())
            configuration.batching = HTTPBatching(window: .milliseconds(1), maxOperations: 2)
            configuration.authentication = .bearer(
                BearerAuthentication(store: InMemoryTokenStore(), refresh: { _, _ throws(APIError) in throw .invalidRequest("no refresh") }))
            let client = APICoreLive.makeClient(configuration, transport: Transport { signal.finish() })
            #expect(try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly).value.hero?.name == "R2-D2")
            let activity = await APICoreLive.activity(of: client)
            #expect(activity?.backgroundTasks == 0)
        }
        // The transport says when it goes; a client that outlived its last reference would keep it
        // (a ceiling of 10 s, for a loaded machine: it goes at once).
        let released = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in gone {}
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(released, "the client (and its transport) outlived the last reference to it")
    }
}
