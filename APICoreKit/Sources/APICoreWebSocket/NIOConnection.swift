@_spi(Engine) import APICore
import APICoreLive
import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import X509

/// Connections on SwiftNIO, for the WebSocket here and the AsyncHTTPClient transport: TLS as a
/// `TLSTrust` says, and their failures as `APIError`s. What the trust refuses fails with
/// `APIError.transport(.secureConnectionFailed)` naming why: another host's certificate, an
/// expired one, a self-signed one, an unknown issuer, a key that matches no pin.
@_spi(Engine) public enum NIOConnection {
    /// The client configuration that trusts what `trust` names.
    public static func configuration(for trust: TLSTrust) throws(APIError) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        guard !trust.roots.isEmpty else {
            guard trust.trustsSystemRoots else {
                throw .invalidRequest("the TLSTrust trusts no root: it names no roots and leaves out the system's")
            }
            return configuration
        }
        var certificates: [NIOSSLCertificate] = []
        for (index, pem) in trust.roots.enumerated() {
            let parsed = try? NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
            guard let parsed, !parsed.isEmpty else {
                throw .invalidRequest("TLSTrust.roots[\(index)] is not a PEM certificate (-----BEGIN CERTIFICATE-----)")
            }
            certificates += parsed
        }
        if trust.trustsSystemRoots {
            configuration.additionalTrustRoots = [.certificates(certificates)]
        } else {
            configuration.trustRoots = .certificates(certificates)
        }
        return configuration
    }

    /// The pin of `certificate`'s key: the SHA-256 of its SubjectPublicKeyInfo, base64.
    public static func pin(of certificate: NIOSSLCertificate) throws -> String {
        Data(SHA256.hash(data: try certificate.extractPublicKey().toSPKIBytes())).base64EncodedString()
    }

    /// Why `certificate` (the server's own, verified) fails `trust`'s pins, or `nil` when it
    /// passes (or nothing is pinned).
    public static func pinRefusal(_ certificate: NIOSSLCertificate?, trust: TLSTrust) -> PinMismatch? {
        guard !trust.pinnedKeys.isEmpty else { return nil }
        guard let certificate, let pin = try? pin(of: certificate) else {
            return PinMismatch(description: "the server presented no certificate whose key could be checked against the pinned keys")
        }
        guard !trust.pinnedKeys.contains(pin) else { return nil }
        return PinMismatch(description: "the server's key (pin-sha256 \(pin)) matches none of the \(trust.pinnedKeys.count) pinned keys")
    }

    /// A server key that matches no pin.
    public struct PinMismatch: Error, CustomStringConvertible {
        /// What the server presented and what was pinned.
        public let description: String
    }

    /// `error`, from connecting to `url` or exchanging on the connection, as an `APIError`: a TLS
    /// failure is `.transport(.secureConnectionFailed)` naming the reason (a certificate that
    /// failed verification is looked at once more, in a second handshake that sends nothing, to
    /// say why).
    public static func failure(_ error: any Error, url: URL, trust: TLSTrust) async -> APIError {
        let reason: String
        if let mismatch = error as? PinMismatch {
            reason = mismatch.description
        } else if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            let names = await presentedLeaf(url, trust: trust).map(names(of:)) ?? []
            reason = "the server's certificate is not for \(url.host ?? "the host")" + (names.isEmpty ? "" : "; it names \(names.joined(separator: ", "))")
        } else if let error = error as? NIOSSLError {
            if case .handshakeFailed(let inner) = error, String(describing: inner).contains("CERTIFICATE_VERIFY_FAILED") {
                reason = await diagnose(url, trust: trust) ?? "the server's certificate was not trusted (\(inner))"
            } else {
                reason = "the TLS handshake failed: \(error)"
            }
        } else if error is BoringSSLError || error is NIOSSLExtraError {
            reason = "the TLS handshake failed: \(error)"
        } else {
            return failure(error, url: url)
        }
        return .transport(TransportFailure(kind: .secureConnectionFailed, url: url, underlying: reason))
    }

    /// Why the certificate `url`'s server presents is not trusted: takes its chain in a handshake
    /// that refuses it (nothing is sent) and looks at the server's own certificate.
    static func diagnose(_ url: URL, trust: TLSTrust) async -> String? {
        guard let host = url.host, let leaf = await presentedLeaf(url, trust: trust) else { return nil }
        return reason(leaf, host: host, trust: trust)
    }

    /// The DNS names and IP addresses a certificate is for (its subject alternative names).
    static func names(of leaf: NIOSSLCertificate) -> [String] {
        guard let der = try? leaf.toDERBytes(), let certificate = try? Certificate(derEncoded: der),
            let names = try? certificate.extensions.subjectAlternativeNames
        else { return [] }
        return names.compactMap { name in
            switch name {
            case .dnsName(let dns): return dns
            case .ipAddress(let address):
                let bytes = Array(address.bytes)
                if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
                return stride(from: 0, to: bytes.count - 1, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                    .joined(separator: ":")
            default: return nil
            }
        }
    }

    /// The certificate `url`'s server presents, taken in a handshake that refuses it (nothing is sent).
    static func presentedLeaf(_ url: URL, trust: TLSTrust) async -> NIOSSLCertificate? {
        guard let host = url.host else { return nil }
        let port = url.port ?? 443
        let presented = NIOLockedValueBox<[NIOSSLCertificate]>([])
        do {
            let context = try NIOSSLContext(configuration: configuration(for: trust))
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(5))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = try NIOSSLClientHandler(context: context, serverHostname: serverName(host)) { chain, promise in
                            presented.withLockedValue { $0 = chain }
                            promise.succeed(NIOSSLVerificationResult.failed)
                        }
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                }
                .connect(host: host, port: port).get()
            try? await channel.closeFuture.get()
        } catch {}
        return presented.withLockedValue({ $0 }).first
    }

    /// Why `leaf` fails for `host`: its dates, its names, or its issuer.
    static func reason(_ leaf: NIOSSLCertificate, host: String, trust: TLSTrust) -> String {
        let now = time(nil)
        let format = Date.ISO8601FormatStyle()
        if leaf.notValidAfter < now {
            return "the server's certificate expired on \(Date(timeIntervalSince1970: Double(leaf.notValidAfter)).formatted(format))"
        }
        if leaf.notValidBefore > now {
            return "the server's certificate is not valid before \(Date(timeIntervalSince1970: Double(leaf.notValidBefore)).formatted(format))"
        }
        guard let der = try? leaf.toDERBytes(), let certificate = try? Certificate(derEncoded: der) else {
            return "the server's certificate was not trusted"
        }
        if certificate.issuer == certificate.subject {
            return "the server's certificate is self-signed (\(certificate.subject)) and not among the trusted roots"
        }
        let roots = trust.roots.isEmpty ? "the system's roots" : "the \(trust.roots.count) added roots" + (trust.trustsSystemRoots ? " or the system's" : "")
        return "the server's certificate, issued by \(certificate.issuer), does not chain to \(roots)"
    }

    /// The name to send as SNI and check the certificate against: `nil` for an IP address (SNI
    /// carries host names only).
    public static func serverName(_ host: String) -> String? {
        host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
    }

    /// A connection error as an `APIError`, by what it says (NIO's errors have no common type).
    public static func failure(_ error: any Error, url: URL) -> APIError {
        if let error = error as? APIError { return error }
        if let error = error as? NIOConnectionError, error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
            return .transport(TransportFailure(kind: .cannotFindHost, url: url, underlying: "\(error.host) did not resolve"))
        }
        let text = String(describing: error)
        let lowered = text.lowercased()
        let kind: TransportFailure.Kind =
            if lowered.contains("refused") { .connectionRefused }
            else if lowered.contains("timeout") || lowered.contains("timed out") { .timedOut }
            else if lowered.contains("resolve") || lowered.contains("nxdomain") || lowered.contains("getaddrinfo") { .cannotFindHost }
            else if lowered.contains("ssl") || lowered.contains("tls") || lowered.contains("certificate") { .secureConnectionFailed }
            else if lowered.contains("reset") || lowered.contains("eof") || lowered.contains("closed") { .connectionLost }
            else { .other }
        // NIO's own words nest causes ("connection reset (error set): Connection refused) (errno: 111)").
        let address = "\(url.host ?? "the host"):\(url.port ?? (url.scheme == "https" || url.scheme == "wss" ? 443 : 80))"
        let underlying =
            switch kind {
            case .connectionRefused: "nothing accepts connections at \(address)"
            case .connectionLost: lowered.contains("reset") ? "\(address) reset the connection" : "\(address) closed the connection"
            default: text
            }
        return .transport(TransportFailure(kind: kind, url: url, underlying: underlying))
    }
}
