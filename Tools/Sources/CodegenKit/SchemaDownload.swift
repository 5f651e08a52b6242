import Foundation
import GraphQL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where `fetch-schema` gets a schema and where it writes it (a config's `schemaDownload`).
public struct SchemaDownload: Sendable, Equatable {
    /// How the schema is asked for.
    public enum Method: Sendable, Equatable {
        /// The introspection query, sent to a GraphQL endpoint.
        case introspection(URL, HTTPMethod)
        /// A `GET` of an address that serves the schema's SDL (a schema registry).
        case sdl(URL)
    }

    /// How the introspection query is sent.
    public enum HTTPMethod: Sendable, Equatable {
        /// As a JSON body.
        case post
        /// In the URL's query, under this parameter name.
        case get(queryParameterName: String)
    }

    /// What the file holds.
    public enum OutputFormat: String, Sendable, Equatable {
        /// Schema definition language.
        case sdl = "SDL"
        /// An introspection result, `{"__schema": …}`.
        case json = "JSON"
    }

    /// A request header; `${NAME}` in the value is the environment variable `NAME`, so that
    /// tokens stay out of config files.
    public struct Header: Sendable, Equatable {
        /// The header's name.
        public var name: String
        /// Its value, `${NAME}` references included.
        public var value: String

        /// A header.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Why a download failed, in one line.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The line.
        public var message: String
        /// The line.
        public var description: String { message }
    }

    /// Where to get it.
    public var method: Method
    /// Seconds to wait for the whole answer.
    public var timeout: Double = 30
    /// Sent with the request.
    public var headers: [Header] = []
    /// The file, relative to the config's folder.
    public var outputPath: String
    /// SDL or JSON.
    public var outputFormat: OutputFormat = .sdl
    /// Whether the query asks for deprecated arguments and input fields too (servers that do not
    /// know the argument refuse it, hence off by default).
    public var includeDeprecatedInputValues = false
    /// The config's folder.
    public var baseURL: URL

    /// A download by `method` into `outputPath` (relative to `baseURL`), as SDL, within 30 s.
    public init(method: Method, outputPath: String, baseURL: URL) {
        self.method = method
        self.outputPath = outputPath
        self.baseURL = baseURL
    }

    /// The file written.
    public var outputURL: URL { Glob.resolve(outputPath, in: baseURL) }

    /// Downloads the schema, checks that it is one, and writes it sorted and stable (types,
    /// fields, arguments, values and directives by name), so that two downloads of the same
    /// schema are byte-identical. Nothing is written unless all of that succeeded. Answers
    /// whether the file changed.
    public func run(environment: [String: String] = ProcessInfo.processInfo.environment) async throws(Failure) -> Bool {
        let introspection: [String: Any]
        switch method {
        case .introspection(let url, let httpMethod):
            let (status, type, body) = try await fetch(try request(url, httpMethod, environment), from: url)
            introspection = try Self.schema(inAnswer: body, status: status, contentType: type, from: url)
        case .sdl(let url):
            var request = URLRequest(url: url)
            request.setValue("application/graphql, text/plain;q=0.9, */*;q=0.1", forHTTPHeaderField: "Accept")
            try apply(headers, to: &request, environment)
            let (status, type, body) = try await fetch(request, from: url)
            guard (200..<300).contains(status) else { throw Failure(message: "\(url.absoluteString) answered HTTP \(status): \(Self.excerpt(body))") }
            introspection = try await Self.introspect(sdl: String(decoding: body, as: UTF8.self), from: url, contentType: type)
        }
        let sorted = Self.sorted(introspection)
        let output: Data
        do {
            let json = try JSONSerialization.data(withJSONObject: ["__schema": sorted], options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            let sdl = try IntrospectionSDL.sdl(fromIntrospection: json)
            // What is written must be a schema the generator reads.
            _ = try Compilation.schema(from: [(source, sdl)])
            output = outputFormat == .sdl ? Data((sdl.hasSuffix("\n") ? sdl : sdl + "\n").utf8) : json + Data("\n".utf8)
        } catch let failure as CodegenFailure {
            throw Failure(message: "\(source) answered a schema that is not valid: \(failure.diagnostics.first.map(\.message) ?? "\(failure)")")
        } catch let failure as IntrospectionSDL.Failure {
            throw Failure(message: "\(source) did not answer with a schema: \(failure.message)")
        } catch {
            throw Failure(message: "\(source) did not answer with a schema: \(error.localizedDescription)")
        }
        let url = outputURL
        if (try? Data(contentsOf: url)) == output { return false }
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try output.write(to: url, options: .atomic)
        } catch {
            throw Failure(message: "cannot write \(outputPath): \(error.localizedDescription)")
        }
        return true
    }

    private var source: String {
        switch method {
        case .introspection(let url, _), .sdl(let url): return url.absoluteString
        }
    }

    // MARK: Request

    private func request(_ url: URL, _ httpMethod: HTTPMethod, _ environment: [String: String]) throws(Failure) -> URLRequest {
        let query = Self.introspectionQuery(includeDeprecatedInputValues: includeDeprecatedInputValues)
        var request: URLRequest
        switch httpMethod {
        case .post:
            request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try? JSONSerialization.data(withJSONObject: ["query": query, "operationName": "IntrospectionQuery"])
        case .get(let name):
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            let items = components?.queryItems ?? []
            components?.queryItems = items + [URLQueryItem(name: name, value: query)]
            guard let address = components?.url else { throw Failure(message: "cannot put the introspection query in \(url.absoluteString)") }
            request = URLRequest(url: address)
        }
        request.setValue("application/graphql-response+json, application/json;q=0.9", forHTTPHeaderField: "Accept")
        try apply(headers, to: &request, environment)
        return request
    }

    private func apply(_ headers: [Header], to request: inout URLRequest, _ environment: [String: String]) throws(Failure) {
        for header in headers {
            request.setValue(try Self.expand(header, environment), forHTTPHeaderField: header.name)
        }
    }

    /// A header's value with its `${NAME}` references replaced from the environment.
    static func expand(_ header: Header, _ environment: [String: String]) throws(Failure) -> String {
        var result = ""
        var rest = Substring(header.value)
        while let start = rest.range(of: "${") {
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else { break }
            let name = String(rest[start.upperBound..<end])
            guard let value = environment[name] else {
                throw Failure(message: "header '\(header.name)' uses ${\(name)}, but the environment variable \(name) is not set")
            }
            result += rest[..<start.lowerBound] + value
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }

    private func fetch(_ request: URLRequest, from url: URL) async throws(Failure) -> (status: Int, contentType: String, body: Data) {
        var request = request
        request.timeoutInterval = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let outcome: Result<(Data, URLResponse), any Error> = await withCheckedContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let data, let response {
                    continuation.resume(returning: .success((data, response)))
                } else {
                    continuation.resume(returning: .failure(error ?? URLError(.badServerResponse)))
                }
            }.resume()
        }
        switch outcome {
        case .success(let (data, response)):
            let http = response as? HTTPURLResponse
            return (http?.statusCode ?? 200, http?.value(forHTTPHeaderField: "Content-Type") ?? "", data)
        case .failure(let error as URLError) where error.code == .timedOut:
            throw Failure(message: "\(url.absoluteString) did not answer within \(Self.seconds(timeout)) (schemaDownload.downloadTimeout)")
        case .failure(let error):
            throw Failure(message: "cannot reach \(url.absoluteString): \(error.localizedDescription)")
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    // MARK: Answer

    /// The `__schema` of an introspection answer, or why there is none.
    static func schema(inAnswer body: Data, status: Int, contentType: String, from url: URL) throws(Failure) -> [String: Any] {
        let address = url.absoluteString
        guard let answer = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            let kind = contentType.isEmpty ? "" : " (\(contentType.split(separator: ";").first ?? ""))"
            let reply = (200..<300).contains(status) ? "answered something that is not JSON\(kind)" : "answered HTTP \(status)\(kind)"
            throw Failure(message: "\(address) \(reply), not an introspection result: \(excerpt(body))")
        }
        if let schema = (answer["data"] as? [String: Any])?["__schema"] as? [String: Any] { return schema }
        let messages = (answer["errors"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        if !messages.isEmpty {
            let more = messages.count > 1 ? " (and \(messages.count - 1) more error\(messages.count == 2 ? "" : "s"))" : ""
            throw Failure(message: "\(address) refused the introspection query: \(messages[0])\(more)")
        }
        if !(200..<300).contains(status) { throw Failure(message: "\(address) answered HTTP \(status): \(excerpt(body))") }
        throw Failure(message: "\(address) answered JSON without data.__schema: \(excerpt(body))")
    }

    /// The introspection of a schema served as SDL: built, then asked the introspection query.
    static func introspect(sdl: String, from url: URL, contentType: String) async throws(Failure) -> [String: Any] {
        let address = url.absoluteString
        let schema: GraphQLSchema
        do {
            schema = try buildSchema(source: sdl)
        } catch {
            let kind = contentType.isEmpty ? "" : " (\(contentType.split(separator: ";").first ?? ""))"
            let first = "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
            throw Failure(message: "\(address) did not answer with a schema in SDL\(kind): \(first); it begins \(excerpt(Data(sdl.utf8)))")
        }
        do {
            let result = try await graphql(schema: schema, request: introspectionQuery(includeDeprecatedInputValues: false))
            let json = try JSONSerialization.jsonObject(with: GraphQLJSONEncoder().encode(result)) as? [String: Any]
            if let introspection = (json?["data"] as? [String: Any])?["__schema"] as? [String: Any] { return introspection }
            throw Failure(message: "\(result.errors.map(\.message).joined(separator: "; "))")
        } catch {
            throw Failure(message: "\(address) answered SDL that does not introspect: \(error)")
        }
    }

    /// The first 120 characters of an answer, on one line.
    static func excerpt(_ body: Data) -> String {
        let text = String(decoding: body.prefix(400), as: UTF8.self).split(whereSeparator: \.isNewline).joined(separator: " ")
        let short = text.count > 120 ? text.prefix(120) + "…" : Substring(text)
        return short.isEmpty ? "(empty body)" : "\"\(short)\""
    }

    /// The introspection result with everything that has a name in name order.
    static func sorted(_ schema: [String: Any]) -> [String: Any] {
        func byName(_ value: Any?, _ inner: (([String: Any]) -> [String: Any])? = nil) -> Any? {
            guard let list = value as? [[String: Any]] else { return value }
            return list.map { inner?($0) ?? $0 }.sorted { ($0["name"] as? String ?? "") < ($1["name"] as? String ?? "") }
        }
        func withArguments(_ object: [String: Any]) -> [String: Any] {
            var object = object
            object["args"] = byName(object["args"])
            return object
        }
        var result = schema
        result["types"] = byName(schema["types"]) { type in
            var type = type
            type["fields"] = byName(type["fields"], withArguments)
            type["inputFields"] = byName(type["inputFields"])
            type["enumValues"] = byName(type["enumValues"])
            type["interfaces"] = byName(type["interfaces"])
            type["possibleTypes"] = byName(type["possibleTypes"])
            return type
        }
        result["directives"] = byName(schema["directives"]) { directive in
            var directive = withArguments(directive)
            directive["locations"] = (directive["locations"] as? [String])?.sorted()
            return directive
        }
        return result
    }

    /// The introspection query of the October 2021 spec (descriptions, deprecations, repeatable
    /// directives, `specifiedByURL`), with deprecated input values when asked.
    static func introspectionQuery(includeDeprecatedInputValues: Bool) -> String {
        let deprecatedInputs = includeDeprecatedInputValues ? "(includeDeprecated: true)" : ""
        let inputExtras = includeDeprecatedInputValues ? " isDeprecated deprecationReason" : ""
        let typeRef = "kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }"
        return """
            query IntrospectionQuery {
              __schema {
                queryType { name } mutationType { name } subscriptionType { name }
                types { ...FullType }
                directives { name description isRepeatable locations args\(deprecatedInputs) { ...InputValue } }
              }
            }
            fragment FullType on __Type {
              kind name description specifiedByURL
              fields(includeDeprecated: true) { name description args\(deprecatedInputs) { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
              inputFields\(deprecatedInputs) { ...InputValue }
              interfaces { ...TypeRef }
              enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
              possibleTypes { ...TypeRef }
            }
            fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue\(inputExtras) }
            fragment TypeRef on __Type { \(typeRef) }
            """
    }
}
