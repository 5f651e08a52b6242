import Foundation

/// Which servers a connection over TLS (`https://`, `wss://`) trusts: the system's roots, roots of
/// the app's own (a private CA), and optionally the server keys it must present (pinning).
///
/// Give the same value to the HTTP transport and the WebSocket transport:
///
/// ```swift
/// let trust = TLSTrust(roots: [companyCAPEM], pinnedKeys: [currentKeyPin, backupKeyPin])
/// let client = APICoreLive.makeClient(configuration, transport: AsyncHTTPClientTransport(trust: trust))
/// configuration.subscriptions = SubscriptionConfiguration(url: socketURL, transport: APICoreWebSocket.transport(trusting: trust))
/// ```
///
/// A certificate the trust refuses (another host's, an expired one, a self-signed one, one whose
/// key matches no pin) fails the request with `APIError.transport(.secureConnectionFailed)` naming
/// the reason, before any byte of the request is sent; the failure is never retried, and never
/// over plain HTTP.
///
/// Which transports honour it: `AsyncHTTPClientTransport` (module `APICoreAsyncHTTPClient`) and
/// `APICoreWebSocket` do, on every platform. URLSession's transport does not: it refuses every
/// request when given a trust other than ``system`` rather than ignore it (FoundationNetworking on
/// Linux has no way to add a root or check a key).
public struct TLSTrust: Sendable, Hashable {
    /// Certificates (PEM, `-----BEGIN CERTIFICATE-----`) trusted as roots.
    public var roots: [String]
    /// Whether the system's roots are trusted too (beside ``roots``).
    public var trustsSystemRoots: Bool
    /// When not empty, the server's certificate must carry one of these keys: each is the SHA-256
    /// of a SubjectPublicKeyInfo (DER), base64, as `pin-sha256` values are written
    /// (`openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`).
    /// Name a backup key beside the current one, so that a key rotation does not lock the app out.
    /// The server's own (leaf) certificate is checked, after the chain is verified.
    public var pinnedKeys: Set<String>

    /// The system's roots, no pins: what a connection trusts by default.
    public static let system = TLSTrust()

    /// A trust of `roots` (besides the system's unless `trustsSystemRoots` is false), requiring
    /// one of `pinnedKeys` when any are named.
    public init(roots: [String] = [], trustsSystemRoots: Bool = true, pinnedKeys: Set<String> = []) {
        self.roots = roots
        self.trustsSystemRoots = trustsSystemRoots
        self.pinnedKeys = pinnedKeys
    }

    /// Whether this is the platform's own trust, with nothing added.
    public var isSystem: Bool { roots.isEmpty && trustsSystemRoots && pinnedKeys.isEmpty }
}
