import APICore
import APICoreAsyncHTTPClient
import APICoreLive
import APICoreSQLite
import APICoreWebSocket
import ArgumentParser
import DevServer
import Foundation
import HouseholdKit
import InMemoryTracing
import Logging
import ProductKit
import UserKit

/// The composition root: the one place that knows the engine. It builds one `APIClient` and
/// hands it to every kit's service; the kits see only `APIClient`.
public struct AppEnvironment: Sendable {
    /// The client every kit shares.
    public let client: any APIClient
    /// Users.
    public let users: any UserRepository
    /// Products.
    public let products: any ProductRepository
    /// Households.
    public let households: any HouseholdRepository

    /// Wires the kits to `client`; ProductKit reads single products over REST when `productSource`
    /// says so.
    public init(client: any APIClient, productSource: @escaping @Sendable () -> ProductSource = { .graphQL }) {
        self.client = client
        users = UserService(client: client)
        products = ProductService(client: client, productSource: productSource)
        households = HouseholdService(client: client)
        // What an earlier launch queued reaches the cache when it is sent.
        HouseholdService.registerQueuedMutations(with: client.offlineQueue)
    }
}

/// The options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A server to talk to, such as http://127.0.0.1:4000/ (from `swift run --package-path Tools dev-server`). Without it, an embedded dev server starts on a free loopback port.", valueName: "url"))
    var endpoint: String?

    @Option(help: ArgumentHelp("The SQLite cache file (default: pantry/cache.sqlite under the user's cache directory).", valueName: "path"))
    var cache: String?

    @Flag(name: .customLong("read-only"), help: "Open the cache file read-only, as an app's widget or extension does: read and watch it, never write it (commands that change data are refused).")
    var readOnly = false

    @Option(help: ArgumentHelp("Seconds to wait for each request before giving up.", valueName: "seconds"))
    var timeout: Double = 15

    @Flag(help: "Print JSON for scripts instead of text for people.")
    var json = false

    @Flag(name: .customLong("no-color"), help: "No colour, even on a terminal.")
    var noColor = false

    @Flag(help: "After the command, print the spans of its operations on standard error: where the time went.")
    var trace = false

    @Option(help: ArgumentHelp("The HTTP client underneath: asynchttpclient (SwiftNIO: HTTP/2, connection pool) or urlsession (the platform's).", valueName: "name"))
    var transport: HTTPClientChoice = .asynchttpclient

    @Flag(help: "The embedded dev server speaks HTTPS and WSS, with a certificate made for this run by an authority the client trusts for this run only.")
    var tls = false

    /// The HTTP clients the app can run over.
    enum HTTPClientChoice: String, ExpressibleByArgument, CaseIterable {
        case asynchttpclient, urlsession
    }

    /// A client for `configuration` over the chosen HTTP client, trusting `trust` over TLS.
    func makeClient(_ configuration: APIClientConfiguration, trust: TLSTrust = .system) -> any APIClient {
        switch transport {
        case .asynchttpclient: APICoreLive.makeClient(configuration, transport: AsyncHTTPClientTransport(trust: trust))
        // `validate()` refuses --tls with URLSession, which would refuse each request.
        case .urlsession: APICoreLive.makeClient(configuration, trust: trust)
        }
    }

    /// The current console, set for these options (JSON, colour).
    func console() -> Console {
        let console = Console.current
        console.json = json
        if noColor || json { console.colors = false }
        return console
    }

    func validate() throws {
        guard timeout > 0, timeout <= 3600 else {
            throw ValidationError("--timeout must be a number of seconds above 0 and at most 3600, not \(timeout)")
        }
        if tls, endpoint != nil {
            throw ValidationError("--tls is for the embedded dev server; leave out --endpoint (a server of your own is trusted by the system's roots)")
        }
        if tls, transport == .urlsession {
            throw ValidationError("--tls needs --transport asynchttpclient: URLSession cannot trust the dev server's own certificate authority")
        }
        if let endpoint {
            guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("--endpoint must be an http(s) URL, such as http://127.0.0.1:4000/ (got '\(endpoint)')")
            }
        }
    }

    /// The cache file.
    var cacheURL: URL {
        if let cache { return URL(fileURLWithPath: (cache as NSString).expandingTildeInPath) }
        let base = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSTemporaryDirectory())
        return base.appendingPathComponent("pantry/cache.sqlite")
    }
}

/// One run of the CLI: the server (embedded or not), the client with its SQLite cache, the kits.
final class Session: @unchecked Sendable {
    let options: GlobalOptions
    let console: Console
    let endpoint: URL
    let embedded: DevServer?
    let tokens: any TokenStore
    let recorder: RecordingClient
    let environment: AppEnvironment
    /// Where single products come from (the demo switches it to show REST).
    let productSource = LockedBox(ProductSource.graphQL)
    /// The embedded server after the demo restarted it, if it did.
    let restarted = LockedBox<DevServer?>(nil)
    /// The spans of this run, with `--trace`.
    let tracer: InMemoryTracer?

    /// The demo user of the embedded server.
    static let demoEmail = "alice@example.com"

    private init(
        options: GlobalOptions, console: Console, endpoint: URL, embedded: DevServer?, tokens: any TokenStore, client: any APIClient,
        tracer: InMemoryTracer?
    ) {
        self.options = options
        self.tracer = tracer
        self.console = console
        self.endpoint = endpoint
        self.embedded = embedded
        self.tokens = tokens
        recorder = RecordingClient(client)
        let toggle = productSource
        environment = AppEnvironment(client: recorder, productSource: { toggle.withLock { $0 } })
    }

    /// Runs `body` in a session and turns failures into one line on standard error and exit code 1.
    static func run(_ options: GlobalOptions, signIn: Bool = true, _ body: (Session) async throws -> Void) async throws {
        let console = options.console()
        var session: Session?
        do {
            session = try await open(options, console: console, signIn: signIn)
            try await body(session!)
            await session?.close()
        } catch let error as ExitCode {
            await session?.close()
            throw error
        } catch {
            await session?.close()
            throw failure(error, on: console)
        }
    }

    /// Says `error` in one line on standard error; answers the exit code that goes with it.
    static func failure(_ error: any Error, on console: Console) -> ExitCode {
        console.note(console.red("error: ") + describe(error))
        return .failure
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? CLIError { return error.message }
        guard let error = error as? APIError else {
            let domain = (error as NSError).domain
            let isFileSystem = domain == NSCocoaErrorDomain || domain == NSPOSIXErrorDomain
            return isFileSystem ? FileProblem.sentence(for: error, path: nil, doing: "go on") : "\(error)"
        }
        switch error.recovery {
        case .reauthenticate: return "\(error) (log in again: pantry login)"
        default: return error.description
        }
    }

    private static func open(_ options: GlobalOptions, console: Console, signIn: Bool) async throws -> Session {
        let embedded: DevServer?
        let endpoint: URL
        if let given = options.endpoint {
            embedded = nil
            // `validate()` parsed `given` as an http(s) URL with a host; a trailing "/" keeps it one.
            endpoint = URL(string: given.hasSuffix("/") ? given : given + "/")!
        } else {
            let server = try await console.step("starting the embedded dev server" + (options.tls ? " (HTTPS, a certificate made for this run)" : "")) {
                try await DevServer.start(DevServer.Options(tls: options.tls))
            }
            console.note(console.dim("  embedded dev server at \(server.baseURL.absoluteString)"))
            embedded = server
            endpoint = server.baseURL
        }
        let cacheURL = options.cacheURL
        let folder = cacheURL.deletingLastPathComponent()
        do {
            // Owner-only, as the files the client writes in it: the cache holds users' names and addresses.
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIError(FileProblem.sentence(for: error, path: folder.path, doing: "create the cache folder") + " (choose another --cache)")
        }
        // The embedded server is new on every run, so its tokens live in memory; a real server's in a file.
        let tokens: any TokenStore
        if embedded == nil {
            let file = FileTokenStore(url: Self.tokenURL(options))
            do {
                _ = try await file.load()
            } catch {
                console.note("warning: " + FileProblem.sentence(for: error, path: Self.tokenURL(options).path, doing: "read the saved token")
                    + "; log in again: pantry login")
            }
            tokens = file
        } else {
            tokens = InMemoryTokenStore()
        }
        let logger = Logger(label: "pantry") { _ in ConsoleLogHandler(console: console) }
        // A valid http(s) URL with its scheme swapped for ws(s) is a valid URL: neither `!` can fire.
        var webSocket = URLComponents(url: endpoint.appendingPathComponent("graphql"), resolvingAgainstBaseURL: false)!
        webSocket.scheme = endpoint.scheme == "https" ? "wss" : "ws"
        // With --tls, the dev server's authority, made for this run, is trusted for this run only.
        let trust = embedded?.certificateAuthorityPEM.map { TLSTrust(roots: [$0]) } ?? .system
        let tracer = options.trace ? InMemoryTracer(recordInjections: false, recordExtractions: false) : nil
        var configuration = APIClientConfiguration(
            restBaseURL: endpoint, timeout: .milliseconds(Int(options.timeout * 1000)),
            cache: CacheConfiguration(
                storage: options.readOnly ? SQLiteCache.readOnlyStorage(at: cacheURL, logger: logger) : SQLiteCache.storage(at: cacheURL, logger: logger)),
            logger: logger,
            authentication: .bearer(BearerAuthentication(store: tokens) { stale, client throws(APIError) in
                guard let refreshToken = stale.refreshToken else { throw .unauthorized(HTTPFailure(statusCode: 401, headers: [:], body: Data(), url: nil)) }
                return try await client.send(RESTRequest<TokenDTO>.post("auth/refresh", body: ["refreshToken": refreshToken])).value.token
            }),
            subscriptions: SubscriptionConfiguration(url: webSocket.url!, transport: APICoreWebSocket.transport(trusting: trust)))
        configuration.tracer = tracer
        let session = Session(
            options: options, console: console, endpoint: endpoint, embedded: embedded, tokens: tokens,
            client: options.makeClient(configuration, trust: trust), tracer: tracer)
        if signIn, embedded != nil {
            try await console.step("logging in to the embedded server as \(demoEmail)") {
                try await session.logIn(email: demoEmail, password: DevServer.password)
            }
        }
        return session
    }

    /// `POST auth/login`; the token is kept for the next requests (and runs, with a real server:
    /// a token file that cannot be written is an error that names it).
    func logIn(email: String, password: String) async throws {
        let credentials = ["email": email, "password": password]
        let token = try await recorder.send(RESTRequest<TokenDTO>.post("auth/login", body: credentials)).value.token
        await tokens.setToken(token)
        if let file = tokens as? FileTokenStore {
            do {
                try await file.save(token)
            } catch {
                let path = Self.tokenURL(options).path
                throw CLIError(FileProblem.sentence(for: error, path: path, doing: "save the token") + "; the log-in lasts for this command only")
            }
        }
    }

    /// Where a real server's token is kept: beside the cache.
    static func tokenURL(_ options: GlobalOptions) -> URL {
        options.cacheURL.deletingLastPathComponent().appendingPathComponent("token.json")
    }

    /// Waits for the cache's writes to reach its file (they are written behind), stops the
    /// embedded server, if any; with `--trace`, prints the spans.
    func close() async {
        await recorder.cacheMaintenance?.persisted()
        await embedded?.stop()
        await restarted.withLock { $0 }?.stop()
        if let tracer { for line in SpanTree.lines(tracer.finishedSpans) { console.note(line) } }
    }

    /// Where the last results came from.
    func sources() -> String { console.sources(recorder.drain()) }
}

/// The answer of `auth/login` and `auth/refresh`.
struct TokenDTO: Decodable, Sendable {
    var accessToken: String
    var refreshToken: String?
    var expiresIn: Double?

    var token: AuthToken {
        AuthToken(accessToken: accessToken, refreshToken: refreshToken, expiresAt: expiresIn.map { Date().addingTimeInterval($0) })
    }
}

/// A failure of the CLI's own, already in words for a person.
struct CLIError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// File-system failures in one sentence that names the path and what to do, never Foundation's
/// `Error Domain=…` text.
enum FileProblem {
    static func sentence(for error: any Error, path: String?, doing action: String) -> String {
        let nsError = error as NSError
        let path = path ?? (nsError.userInfo[NSFilePathErrorKey] as? String) ?? (nsError.userInfo[NSURLErrorKey] as? URL)?.path
        let at = path.map { " at \($0)" } ?? ""
        if error is DecodingError { return "could not \(action)\(at): the file is damaged" }
        guard nsError.domain == NSCocoaErrorDomain || nsError.domain == NSPOSIXErrorDomain else {
            return "could not \(action)\(at): \(error)"
        }
        let reason: String
        switch CocoaError.Code(rawValue: nsError.code) {
        case .fileWriteFileExists: reason = "a file is in the way where a folder is needed"
        case .fileWriteNoPermission, .fileReadNoPermission: reason = "permission denied; check the owner and permissions"
        case .fileWriteOutOfSpace: reason = "the disk is full"
        case .fileWriteVolumeReadOnly: reason = "the volume is read-only"
        case .fileReadCorruptFile, .coderReadCorrupt, .coderValueNotFound, .coderInvalidValue: reason = "the file is damaged"
        case .fileNoSuchFile, .fileReadNoSuchFile: reason = "it does not exist"
        case .fileWriteUnknown, .fileReadUnknown: reason = posixReason(nsError) ?? "it cannot be written or read there (is it a folder?)"
        default: reason = nsError.localizedFailureReason ?? nsError.localizedDescription
        }
        return "could not \(action)\(at): \(reason)"
    }

    /// The reason the system gave, for the errors Foundation reports only as "unknown".
    private static func posixReason(_ error: NSError) -> String? {
        let underlying = (error.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        let code = error.domain == NSPOSIXErrorDomain ? error.code : underlying?.domain == NSPOSIXErrorDomain ? underlying?.code : nil
        switch code.flatMap({ POSIXErrorCode(rawValue: Int32($0)) }) {
        case .ELOOP?: return "it is a link that cannot be followed (a loop of links?)"
        case .EISDIR?: return "it is a folder"
        case .EACCES?, .EPERM?: return "permission denied; check the owner and permissions"
        case .ENOSPC?: return "the disk is full"
        case .EROFS?: return "the volume is read-only"
        default: return nil
        }
    }
}
