import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A certificate authority made on the spot, for servers that speak TLS on loopback: the engine's
/// TLS tests and `pantry demo --tls`. Nothing it makes is written to disk unless the caller does.
///
/// ```swift
/// let authority = try CertificateAuthority()
/// let server = try authority.issue(for: ["localhost", "127.0.0.1"])
/// // serve with server.chainPEM / server.privateKeyPEM; trust authority.certificatePEM
/// ```
public struct CertificateAuthority: Sendable {
    /// A certificate and the private key of its subject.
    public struct Issued: Sendable {
        /// The certificate.
        public let certificate: Certificate
        /// The subject's private key, PEM (`BEGIN PRIVATE KEY`).
        public let privateKeyPEM: String
        /// The certificate, PEM.
        public let certificatePEM: String
        /// The certificate then its issuer's, PEM: what a server presents.
        public let chainPEM: String

        /// A server's TLS configuration presenting ``chainPEM`` with the key.
        public func serverConfiguration() throws -> TLSConfiguration {
            try CertificateAuthority.serverConfiguration(chainPEM: chainPEM, privateKeyPEM: privateKeyPEM)
        }

        /// The SHA-256 of the certificate's SubjectPublicKeyInfo, base64: its key's pin.
        public var publicKeyPin: String {
            CertificateAuthority.pin(of: certificate.publicKey)
        }
    }

    /// The authority's own certificate: the root a client adds to trust what it issues.
    public let certificate: Certificate
    /// ``certificate``, PEM.
    public let certificatePEM: String
    private let key: P256.Signing.PrivateKey

    /// A new authority named `name`, valid from an hour ago for a year.
    public init(name: String = "APICoreKit Test CA") throws {
        key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(name) }
        let now = Date()
        certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 365 * 86400,
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(key))
        certificatePEM = try certificate.serializeAsPEM().pemString
    }

    /// A server certificate for `hosts` (DNS names and IP addresses), signed by this authority and
    /// valid from `notBefore` to `notAfter` (by default from an hour ago for a day).
    public func issue(for hosts: [String], notBefore: Date = Date() - 3600, notAfter: Date = Date() + 86400) throws -> Issued {
        let subjectKey = P256.Signing.PrivateKey()
        let issued = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(subjectKey.publicKey),
            notValidBefore: notBefore, notValidAfter: notAfter,
            issuer: certificate.subject, subject: try DistinguishedName { CommonName(hosts.first ?? "server") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Self.serverExtensions(hosts),
            issuerPrivateKey: .init(key))
        let pem = try issued.serializeAsPEM().pemString
        return Issued(certificate: issued, privateKeyPEM: subjectKey.pemRepresentation, certificatePEM: pem, chainPEM: pem + "\n" + certificatePEM)
    }

    /// A server certificate for `hosts` that signs itself: no authority vouches for it.
    public static func selfSigned(for hosts: [String]) throws -> Issued {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(hosts.first ?? "server") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86400,
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try serverExtensions(hosts), issuerPrivateKey: .init(key))
        let pem = try certificate.serializeAsPEM().pemString
        return Issued(certificate: certificate, privateKeyPEM: key.pemRepresentation, certificatePEM: pem, chainPEM: pem)
    }

    /// A server's TLS configuration presenting `chainPEM` (its own certificate first) with
    /// `privateKeyPEM`.
    public static func serverConfiguration(chainPEM: String, privateKeyPEM: String) throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(chainPEM.utf8)).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
    }

    /// The SHA-256 of `key`'s SubjectPublicKeyInfo (DER), base64, as `pin-sha256` values are written.
    public static func pin(of key: Certificate.PublicKey) -> String {
        var serializer = DER.Serializer()
        // A public key taken from a certificate always serializes.
        try! serializer.serialize(key)
        return Data(SHA256.hash(data: serializer.serializedBytes)).base64EncodedString()
    }

    private static func serverExtensions(_ hosts: [String]) throws -> Certificate.Extensions {
        let names: [GeneralName] = hosts.map { host in
            if let address = ipv4Bytes(host) { return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(address))) }
            return .dnsName(host)
        }
        return try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(names)
        }
    }
}

/// The four bytes of a dotted IPv4 address.
private func ipv4Bytes(_ text: String) -> [UInt8]? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4 else { return nil }
    let bytes = parts.compactMap { UInt8($0) }
    return bytes.count == 4 ? bytes : nil
}
