@_spi(Engine) import APICore
import APICoreLive
import Foundation
import StarWarsOperations
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real engine over a transport of the app's own (`APICoreLive.makeClient(_:transport:)`):
/// middleware, checking, the normalized cache and incremental delivery run above it unchanged.
@Suite("The engine over an app's own transport")
struct CustomTransportTests {
    /// Answers every request with the same head and body chunks, and keeps the requests.
    final class MemoryTransport: HTTPTransport {
        let headers: [String: String]
        let chunks: [String]
        let sent = Mutex<[TransportRequest]>([])

        init(headers: [String: String] = ["Content-Type": "application/json"], chunks: [String]) {
            self.headers = headers
            self.chunks = chunks
        }

        func send(_ request: TransportRequest) async throws(APIError) -> StreamedResponse {
            sent.withLock { $0.append(request) }
            let head = TransportResponse(statusCode: 200, headers: headers, body: Data(), url: request.urlRequest.url)
            let chunks = self.chunks
            return StreamedResponse(head: head, body: .chunks(APIStream { continuation in
                for chunk in chunks { continuation.yield(.success(Data(chunk.utf8))) }
                continuation.finish()
            }))
        }
    }

    static func configuration() -> APIClientConfiguration {
        APIClientConfiguration(
            restBaseURL: URL(string: "http://app.invalid/")!, defaultHeaders: ["X-App": "pantry"], cache: CacheConfiguration(), retryPolicy: nil)
    }

    @Test("a query goes through the middleware to the transport; its answer, sent in pieces, is checked, cached and mapped")
    func query() async throws {
        let transport = MemoryTransport(chunks: [
            #"{"data":{"hero":{"__typename":"Droid","id":"2001","name":"R2-D2","#, #""primaryFunction":"Astromech","friends":[]}}}"#,
        ])
        let client = APICoreLive.makeClient(Self.configuration(), transport: transport)
        let fetched = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
        #expect(fetched.value.hero?.name == "R2-D2")
        #expect(fetched.source == .server)
        let sent = try #require(transport.sent.withLock { $0.first })
        #expect(sent.readsWholeBody && !sent.isOpenEnded)
        #expect(sent.urlRequest.value(forHTTPHeaderField: "X-App") == "pantry")
        #expect(sent.urlRequest.url?.absoluteString == "http://app.invalid/graphql")
        let cached = try await client.fetch(HeroNameQuery(), cachePolicy: .cacheOnly)
        #expect(cached.value.hero?.asDroid?.primaryFunction == "Astromech")
        #expect(transport.sent.withLock { $0.count } == 1)
    }

    @Test("an incremental answer is asked for as a stream and read part by part as the transport's chunks arrive")
    func incremental() async throws {
        let first = #"{"data":{"human":{"__typename":"Human","id":"1000","name":"Luke","friends":[{"__typename":"Human","id":"1002","name":"Han"}]}},"hasNext":true}"#
        let later = #"{"incremental":[{"items":[{"__typename":"Human","id":"1003","name":"Leia"}],"path":["human","friends",1]}],"hasNext":false}"#
        let part = "\r\n--graphql\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
        let transport = MemoryTransport(
            headers: ["Content-Type": #"multipart/mixed; boundary="graphql"; deferSpec=20220824"#],
            chunks: [part + first, part + later, "\r\n--graphql--\r\n"])
        let client = APICoreLive.makeClient(Self.configuration(), transport: transport)
        var names: [[String]] = []
        for await result in client.responses(GraphQLRequest(HumanFriendsStreamQuery(id: "1000")), cachePolicy: .networkOnly) {
            names.append(try result.get().value.human?.friends?.compactMap { $0?.name } ?? [])
        }
        #expect(names == [["Han"], ["Han", "Leia"]])
        let sent = try #require(transport.sent.withLock { $0.first })
        #expect(!sent.readsWholeBody)
        #expect(sent.urlRequest.value(forHTTPHeaderField: "Accept")?.hasPrefix("multipart/mixed") == true)
    }
}
