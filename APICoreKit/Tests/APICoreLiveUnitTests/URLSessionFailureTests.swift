import APICore
@testable import APICoreLive
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// FoundationNetworking reports what libcurl said: a refused certificate comes as an unknown error
/// in libcurl's words. Each row is one of libcurl's messages (lib/vtls/openssl.c, OpenSSL's verify
/// strings) and the words the failure must carry; every one is a secure connection that failed,
/// which no retry heals.
@Suite("URLSession's failures as APIErrors")
struct URLSessionFailureTests {
    static let url = URL(string: "https://127.0.0.1:8443/graphql")

    static let refusals: [(libcurl: String, says: String)] = [
        ("SSL certificate problem: certificate has expired", "certificate was refused: certificate has expired"),
        ("SSL certificate problem: self-signed certificate", "self-signed"),
        ("SSL certificate problem: self signed certificate", "self signed"),
        ("SSL certificate problem: self-signed certificate in certificate chain", "self-signed certificate in certificate chain"),
        ("SSL certificate problem: certificate is not yet valid", "not yet valid"),
        ("SSL certificate problem: unable to get local issuer certificate", "does not chain to the system's roots"),
        ("SSL: no alternative certificate subject name matches target host name 'api.example.org'", "is not for api.example.org"),
        ("SSL: no alternative certificate subject name matches target ipv4 address '127.0.0.1'", "is not for 127.0.0.1"),
        ("SSL: certificate subject name 'other.example.org' does not match target host name 'api.example.org'", "is not for api.example.org"),
        ("OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to 127.0.0.1:8443", "TLS handshake failed"),
    ]

    static func failure(_ error: APIError) -> TransportFailure? {
        if case .transport(let failure) = error { return failure }
        return nil
    }

    @Test("libcurl's certificate and handshake failures are secure connections that failed, in a sentence; recovery .fail", arguments: refusals)
    func libcurlRefusals(_ row: (libcurl: String, says: String)) throws {
        let error = URLSessionTransport.map(URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: row.libcurl]), url: Self.url)
        let failure = try #require(Self.failure(error), "\(error)")
        #expect(failure.kind == .secureConnectionFailed)
        #expect(failure.underlying.contains(row.says), "\(failure.underlying)")
        #expect(error.recovery == .fail)
        #expect(RetryPolicy.default.retries(error) == false)
    }

    @Test("the platform's own certificate codes are secure connections that failed; other unknown errors stay retryable")
    func codes() throws {
        for code in [URLError.Code.serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot, .secureConnectionFailed] {
            let error = URLSessionTransport.map(URLError(code), url: Self.url)
            #expect(Self.failure(error)?.kind == .secureConnectionFailed, "\(code)")
            #expect(error.recovery == .fail)
        }
        let unknown = URLSessionTransport.map(URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "Completion failure"]), url: Self.url)
        #expect(Self.failure(unknown)?.kind == .other)
        #expect(unknown.recovery == .retry)
        let refused = URLSessionTransport.map(URLError(.cannotConnectToHost), url: Self.url)
        #expect(Self.failure(refused)?.kind == .connectionRefused)
        #expect(RetryPolicy.default.retries(refused))
    }

    @Test("a refused or reset connection reads as one sentence naming the address, as over NIO, not in libcurl's words")
    func connectionSentences() throws {
        let url = try #require(URL(string: "http://127.0.0.1:33913/graphql"))
        let refused = URLSessionTransport.map(
            URLError(.cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey: "Failed to connect to 127.0.0.1 port 33913 after 0 ms: Couldn't connect to server"]),
            url: url)
        #expect(refused.description == "transport failure: connection refused (http://127.0.0.1:33913/graphql): nothing accepts connections at 127.0.0.1:33913")
        let reset = URLSessionTransport.map(
            URLError(.networkConnectionLost, userInfo: [NSLocalizedDescriptionKey: "Recv failure: Connection reset by peer"]), url: url)
        #expect(reset.description == "transport failure: connection lost (http://127.0.0.1:33913/graphql): 127.0.0.1:33913 reset the connection")
        #expect(RetryPolicy.default.retries(reset))
        let cut = URLSessionTransport.map(
            URLError(.networkConnectionLost, userInfo: [NSLocalizedDescriptionKey: "transfer closed with outstanding read data remaining"]), url: url)
        #expect(Self.failure(cut)?.underlying == "127.0.0.1:33913 closed the connection before the answer ended (transfer closed with outstanding read data remaining)")
    }
}
