@_spi(Tools) @_spi(Generated) import APICore
import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

@Suite("Uploads (GraphQL multipart request)")
struct UploadTests {
    @Test("two files, from memory and from disk, one in a list and one inside an input object, arrive byte for byte")
    func twoFiles() async throws {
        let server = try await TestServer.start()
        let client = makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, graphQLURL: server.baseURL.appendingPathComponent("upload"), retryPolicy: nil))
        let binary = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })  // every byte value, CRLFs included
        let onDisk = FileManager.default.temporaryDirectory.appendingPathComponent("apicore-upload-\(UUID().uuidString).txt")
        let text = Data("a text file\r\n--not a boundary--\r\n".utf8)
        try text.write(to: onDisk)
        defer { try? FileManager.default.removeItem(at: onDisk) }

        let mutation = UploadFilesMutation(
            files: [GraphQLFile(data: binary, filename: "photo.bin", mimeType: "image/png")],
            input: AttachmentInput(label: "receipt", attachment: .some(GraphQLFile(fileURL: onDisk, mimeType: "text/plain"))))
        #expect(mutation.__variables.files.map(\.path) == [["files", "0"], ["input", "attachment"]])
        let response = try await client.perform(mutation)
        #expect(response.value.upload.map(\.path) == ["variables.files.0", "variables.input.attachment"])
        #expect(response.value.upload.map(\.size) == [binary.count, text.count])
        #expect(server.uploadedFiles["variables.files.0"] == binary)
        #expect(server.uploadedFiles["variables.input.attachment"] == text)
        let operations = try JSONParser.parse(try #require(server.uploadOperations))
        #expect(operations["variables"] == ["files": [nil], "input": ["label": "receipt", "attachment": nil]])
        // A multipart POST is what a web page can send without a preflight: it names its operation (CSRF prevention).
        #expect(server.requests(to: "upload").first?.headers["x-apollo-operation-name"] == "UploadFiles")
        await server.stop()
    }

    @Test("a file that cannot be read is an invalid request, and nothing is sent")
    func unreadable() async throws {
        let server = try await TestServer.start()
        let client = makeTestClient(APIClientConfiguration(
            restBaseURL: server.baseURL, graphQLURL: server.baseURL.appendingPathComponent("upload"), retryPolicy: nil))
        let missing = GraphQLFile(fileURL: URL(fileURLWithPath: "/nonexistent/apicore.bin"))
        do {
            _ = try await client.perform(UploadFilesMutation(files: [missing], input: AttachmentInput(label: "x")))
            Issue.record("expected an error")
        } catch {
            guard case .invalidRequest(let reason) = error else {
                Issue.record("expected invalidRequest, got \(error)")
                await server.stop()
                return
            }
            #expect(reason.contains("apicore.bin") && reason.contains("variables.files.0"))
        }
        #expect(server.requests(to: "upload").isEmpty)
        await server.stop()
    }
}
