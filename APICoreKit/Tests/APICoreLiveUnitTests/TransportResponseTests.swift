import APICoreLive
import Foundation
import Testing

@Suite("Transport responses")
struct TransportResponseTests {
    @Test("a transport response lowercases header names and reads the media type without parameters")
    func mediaType() {
        let response = TransportResponse(
            statusCode: 200, headers: ["Content-Type": "Application/GraphQL-Response+JSON; charset=utf-8"], body: .init(), url: nil)
        #expect(response.headers["content-type"] != nil)
        #expect(response.mediaType == "application/graphql-response+json")
        #expect(TransportResponse(statusCode: 204, headers: [:], body: .init(), url: nil).mediaType == nil)
    }
}
