@_spi(Engine) import APICore
import APICoreLive
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Redirects over any transport, as the client follows them: what needs a server that cannot run
/// here (an `https` one) or a transport that is not URLSession.
@Suite("Redirect rules over an app's own transport")
struct RedirectRuleTests {
    /// Answers the first request with a redirect to `location`, and any other with an empty 200.
    final class RedirectingOnce: HTTPTransport {
        let status: Int
        let location: String
        let sent = Mutex<[URLRequest]>([])

        init(status: Int = 301, location: String) {
            self.status = status
            self.location = location
        }

        func send(_ request: TransportRequest) async throws(APIError) -> StreamedResponse {
            let first = sent.withLock { sent in
                sent.append(request.urlRequest)
                return sent.count == 1
            }
            let head = TransportResponse(
                statusCode: first ? status : 200, headers: first ? ["Location": location] : ["Content-Type": "application/json"], body: Data(),
                url: request.urlRequest.url)
            return StreamedResponse(head: head, body: .complete(Data(first ? "moved".utf8 : "{}".utf8)))
        }
    }

    static func client(_ transport: any HTTPTransport, retryPolicy: RetryPolicy? = nil) -> any APIClient {
        APICoreLive.makeClient(APIClientConfiguration(
            restBaseURL: URL(string: "https://api.example.com/")!, defaultHeaders: ["Authorization": "Bearer secret-token"],
            retryPolicy: retryPolicy),
            transport: transport)
    }

    @Test("https to http is refused as a secure-connection failure naming both URLs, not retried, and nothing is sent over http")
    func downgradeRefused() async throws {
        let transport = RedirectingOnce(location: "http://api.example.com/v1/me?token=abc")
        let client = Self.client(transport, retryPolicy: .default)
        do {
            _ = try await client.send(RESTRequest<EmptyResponse>.get("me"))
            Issue.record("the redirect to http was followed")
        } catch {
            guard case .transport(let failure) = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
            #expect(failure.kind == .secureConnectionFailed)
            #expect(failure.underlying.contains("https://api.example.com/me") && failure.underlying.contains("http://api.example.com/v1/me"))
            #expect(!failure.underlying.contains("token=abc"))  // a query may hold a secret: not in the error
        }
        #expect(transport.sent.withLock { $0.map(\.url?.scheme) } == ["https"])
    }

    @Test("a Location relative to the request, on the same origin, keeps the app's headers; one to another host drops them")
    func relativeAndOtherHost() async throws {
        let relative = RedirectingOnce(status: 307, location: "/v2/me")
        _ = try await Self.client(relative).send(RESTRequest<EmptyResponse>.get("me"))
        let followed = try #require(relative.sent.withLock { $0.last })
        #expect(followed.url?.absoluteString == "https://api.example.com/v2/me")
        #expect(followed.value(forHTTPHeaderField: "Authorization") == "Bearer secret-token")

        let elsewhere = RedirectingOnce(status: 307, location: "https://cdn.example.net/me")
        _ = try await Self.client(elsewhere).send(RESTRequest<EmptyResponse>.get("me"))
        let away = try #require(elsewhere.sent.withLock { $0.last })
        #expect(away.url?.host == "cdn.example.net")
        #expect(away.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test("a redirect to a scheme that is not HTTP is not followed")
    func otherScheme() async throws {
        let transport = RedirectingOnce(location: "file:///etc/passwd")
        let client = Self.client(transport)
        await #expect(throws: APIError.self) { try await client.send(RESTRequest<EmptyResponse>.get("me")) }
        #expect(transport.sent.withLock { $0.count } == 1)
    }
}
