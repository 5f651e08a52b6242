import APICore
@testable import APICoreLive
import APICoreTestServer
import Foundation
import Testing

@Suite("Redaction of text that is logged")
struct RedactionTests {
    @Test("token-like pairs, bare values and bearer credentials are replaced; the rest is kept")
    func secretsReplaced() {
        #expect(Redaction.text(#"{"accessToken": "abc.def", "name": "Ada"}"#) == #"{"accessToken": "<redacted>", "name": "Ada"}"#)
        #expect(Redaction.text(#"refresh_token="x\"y" then"#) == #"refresh_token="<redacted>" then"#)
        #expect(Redaction.text("GET /login?user=ada&password=hunter2&x=1") == "GET /login?user=ada&password=<redacted>&x=1")
        #expect(Redaction.text("Authorization: Bearer eyJhbGciOi.J9-_~+/=") == "Authorization: Bearer <redacted>")
        #expect(Redaction.text("bearer\tabc") == "bearer\t<redacted>")
        #expect(Redaction.text("SECRET: \"s\"") == "SECRET: \"<redacted>\"")
        // Words that merely mention a secret, without a value, stay.
        #expect(Redaction.text("the token expired; log in again") == "the token expired; log in again")
        #expect(Redaction.text("a bearer of news") == "a bearer <redacted> news")  // over-redaction is the safe side
        #expect(Redaction.text("Grüße, ünïcödé stays") == "Grüße, ünïcödé stays")
    }

    @Test("text is cut to an excerpt on a character boundary; a value cut off is redacted to the end")
    func bounded() {
        let long = String(repeating: "é", count: 5_000)
        let cut = Redaction.text(long)
        #expect(cut.utf8.count < Redaction.textLimit + 40)
        #expect(cut.hasSuffix("more bytes)"))
        #expect(!cut.contains("\u{FFFD}"))

        let unterminated = String(repeating: "x", count: Redaction.textLimit - 40) + #" "token": ""# + String(repeating: "secret", count: 10)
        let redacted = Redaction.text(unterminated)
        #expect(!redacted.contains("secret"))
        #expect(redacted.contains(#""token": "<redacted>""#))
    }

    @Test("hostile text of a megabyte is redacted in time linear in its length")
    func linear() {
        // The former regular expressions backtracked on these: minutes for 100 KB.
        let inputs = [
            String(repeating: "token", count: 200_000),
            String(repeating: "token:\"", count: 150_000),
            String(repeating: "bearer ", count: 150_000),
            String(repeating: "a_", count: 500_000),
        ]
        let start = ContinuousClock.now
        for input in inputs { _ = Redaction.text(input) }
        // Milliseconds in practice; the ceiling leaves room for a loaded machine and sanitizers.
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test("a request with a 1 MB URL fails at once, logged as a bounded line")
    func hugeURLFailsFast() async throws {
        let log = LogCapture()
        let refused = RefusedPort()
        let port = refused.port
        let client = makeTestClient(APIClientConfiguration(
            restBaseURL: URL(string: "http://127.0.0.1:\(port)/")!, logger: log.logger, retryPolicy: nil))
        let start = ContinuousClock.now
        let error = await apiError { () async throws(APIError) in
            try await client.send(RESTRequest<JSONValue>.get("items/" + String(repeating: "token", count: 200_000)))
        }
        withExtendedLifetime(refused) {}
        #expect(error != nil)
        #expect(ContinuousClock.now - start < .seconds(10))
        let failure = try #require(log.all.first { $0.hasPrefix("[notice]") })
        #expect(failure.utf8.count < 3 * Redaction.textLimit)
    }
}
