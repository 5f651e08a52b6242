import CodegenKit
import DevServer
import Foundation
import Hummingbird
import Testing

/// `fetch-schema` against the dev server and against servers that do not give a schema.
@Suite("fetch-schema")
struct FetchSchemaTests {
    /// A folder for the downloaded files, removed after.
    final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-schema-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }

        func download(_ method: SchemaDownload.Method, to path: String, format: SchemaDownload.OutputFormat = .sdl, timeout: Double = 30) -> SchemaDownload {
            var download = SchemaDownload(method: method, outputPath: path, baseURL: url)
            download.outputFormat = format
            download.timeout = timeout
            return download
        }

        func read(_ path: String) throws -> Data { try Data(contentsOf: url.appendingPathComponent(path)) }
        func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: url.appendingPathComponent(path).path) }
    }

    @Test("SDL and JSON by introspection, and SDL from a registry address: checked, byte-identical on a second run")
    func fromDevServer() async throws {
        let folder = try Folder()
        try await withDevServer { server in
            let endpoint = server.graphQLURL
            for (method, path, format) in [
                (SchemaDownload.Method.introspection(endpoint, .post), "schema.graphqls", SchemaDownload.OutputFormat.sdl),
                (.introspection(endpoint, .get(queryParameterName: "query")), "schema.json", .json),
                (.sdl(server.baseURL.appendingPathComponent("schema.graphqls")), "registry.graphqls", .sdl),
            ] {
                let download = folder.download(method, to: path, format: format)
                #expect(try await download.run(environment: [:]))
                let first = try folder.read(path)
                #expect(try await download.run(environment: [:]) == false, "\(path): a second download changed the file")
                #expect(try folder.read(path) == first)
            }
            let sdl = String(decoding: try folder.read("schema.graphqls"), as: UTF8.self)
            #expect(sdl.contains("type Household implements Node {"))
            // Sorted: types by name, fields by name.
            let types = sdl.split(separator: "\n").filter { $0.hasPrefix("type ") }.map { $0.split(separator: " ")[1] }
            #expect(types == types.sorted())
            let json = try #require(try JSONSerialization.jsonObject(with: folder.read("schema.json")) as? [String: Any])
            #expect((json["__schema"] as? [String: Any])?["types"] is [Any])
            // The registry's file is the schema without the `@defer` and `@stream` the server adds when it runs.
            let registry = String(decoding: try folder.read("registry.graphqls"), as: UTF8.self)
            let served = sdl.replacingOccurrences(of: "directive @defer(if: Boolean! = true, label: String) on FRAGMENT_SPREAD | INLINE_FRAGMENT\n\n", with: "")
                .replacingOccurrences(of: "directive @stream(if: Boolean! = true, initialCount: Int! = 0, label: String) on FIELD\n\n", with: "")
            #expect(served == registry)

            // The file a generator reads: a config over it generates.
            let project = folder.url.appendingPathComponent("kit")
            try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
            try sdl.write(to: project.appendingPathComponent("schema.graphqls"), atomically: true, encoding: .utf8)
            try "query Health { __typename }".write(to: project.appendingPathComponent("Health.graphql"), atomically: true, encoding: .utf8)
            var initial = InitialConfiguration(namespace: "KitAPI", outputPath: "Generated")
            initial.targetName = "Kit"
            initial.operationSearchPaths = ["*.graphql"]
            initial.schemaSearchPaths = ["schema.graphqls"]
            try initial.json().write(to: project.appendingPathComponent("apollo-codegen-config.json"), atomically: true, encoding: .utf8)
            let report = try Codegen.run(configURL: project.appendingPathComponent("apollo-codegen-config.json"))
            #expect(report.produced > 0)
        }
    }

    @Test("a server that refuses introspection, one that times out, one that answers HTML, one that is not there: one line, nothing written")
    func failures() async throws {
        let folder = try Folder()
        let refusing = try await DevServer.start(DevServer.Options(introspection: false))
        let slow = try await DevServer.start(DevServer.Options(switches: DevServer.Switches(latencyMilliseconds: 5_000)))
        let html = try await HTMLServer.start()
        let gone = try await DevServer.start()
        await gone.stop()
        var messages: [String] = []
        for download in [
            folder.download(.introspection(refusing.graphQLURL, .post), to: "a.graphqls"),
            folder.download(.introspection(slow.graphQLURL, .post), to: "a.graphqls", timeout: 0.5),
            folder.download(.introspection(html.url, .post), to: "a.graphqls"),
            folder.download(.sdl(html.url), to: "a.graphqls"),
            folder.download(.introspection(gone.graphQLURL, .post), to: "a.graphqls"),
        ] {
            do {
                _ = try await download.run(environment: [:])
                Issue.record("expected a failure from \(download.method)")
            } catch {
                messages.append(error.message)
            }
        }
        await refusing.stop()
        await slow.stop()
        await html.stop()
        #expect(messages.count == 5)
        #expect(messages.allSatisfy { !$0.contains("\n") })
        #expect(messages[0] == "\(refusing.graphQLURL.absoluteString) refused the introspection query: GraphQL introspection has been disabled, but the requested query contained the field __schema")
        #expect(messages[1] == "\(slow.graphQLURL.absoluteString) did not answer within 0.5 s (schemaDownload.downloadTimeout)")
        #expect(messages[2].contains("answered something that is not JSON (text/html), not an introspection result: \"<!DOCTYPE html>"), "\(messages[2])")
        #expect(messages[3].contains("did not answer with a schema in SDL (text/html)"), "\(messages[3])")
        #expect(messages[4].hasPrefix("cannot reach \(gone.graphQLURL.absoluteString)"), "\(messages[4])")
        #expect(!folder.exists("a.graphqls"))

    }
}

/// A server that answers every request with a web page, as a proxy or a login page would.
struct HTMLServer {
    let url: URL
    let task: Task<Void, any Error>

    static func start() async throws -> HTMLServer {
        let router = Router()
        let page = "<!DOCTYPE html>\n<html><body><h1>Sign in</h1></body></html>"
        @Sendable func answer(_: Request, _: BasicRequestContext) -> Response {
            var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: page)))
            response.headers[.contentType] = "text/html; charset=utf-8"
            return response
        }
        router.get("/graphql", use: answer)
        router.post("/graphql", use: answer)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            })
        let task = Task { try await app.run() }
        var port = 0
        for await value in ports { port = value }
        return HTMLServer(url: URL(string: "http://127.0.0.1:\(port)/graphql")!, task: task)
    }

    func stop() async {
        task.cancel()
        _ = await task.result
    }
}
