import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP listener on 127.0.0.1 that misbehaves on purpose: it reads the request and closes the
/// connection without answering. It serves at most `limit` connections, then stops by itself.
public final class ClosingServer: @unchecked Sendable {
    /// The port it listens on.
    public let port: Int
    private let socket: Int32
    private let thread: Thread

    /// Listens on a free loopback port.
    public init(limit: Int = 16) throws {
        let fd = Self.makeListeningSocket()
        guard fd >= 0 else { throw TestServerError.couldNotStart }
        socket = fd
        port = Self.boundPort(fd)
        thread = Thread {
            for _ in 0..<limit {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = read(client, &buffer, buffer.count)
                close(client)
            }
        }
        thread.start()
    }

    /// Stops listening.
    public func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }

    /// A port on 127.0.0.1 where nothing listens (bound once, then released).
    public static func unusedPort() -> Int {
        let fd = makeListeningSocket()
        let port = boundPort(fd)
        close(fd)
        return port
    }

    private static func makeListeningSocket() -> Int32 {
        #if canImport(Glibc)
            let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    private static func boundPort(_ fd: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
