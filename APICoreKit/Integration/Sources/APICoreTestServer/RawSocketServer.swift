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

    /// Reads one request head (up to the blank line, at most 64 KB) from a connected socket.
    static func readHead(_ client: Int32) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 65536 {
            let count = read(client, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
            if received.count >= 4, received.suffix(4) == [13, 10, 13, 10] { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// A port on 127.0.0.1 where nothing listens (bound once, then released).
    public static func unusedPort() -> Int {
        let fd = makeListeningSocket()
        let port = boundPort(fd)
        close(fd)
        return port
    }

    static func makeListeningSocket() -> Int32 {
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

    static func boundPort(_ fd: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A TCP listener on 127.0.0.1 that answers every request with the same bytes, whatever it asked,
/// and records each request head as it came (header lines, duplicates and case as sent). For
/// answers no real server gives on demand: a WebSocket upgrade refused with a status, an HTML error
/// page. It serves at most `limit` connections, then stops by itself.
public final class ScriptedHTTPServer: @unchecked Sendable {
    /// The port it listens on.
    public let port: Int
    private let socket: Int32
    private let heads = Locked<[String]>([])

    /// Listens on a free loopback port and answers with `answer` (a whole HTTP response).
    public init(answer: String, limit: Int = 32) throws {
        let fd = ClosingServer.makeListeningSocket()
        guard fd >= 0 else { throw TestServerError.couldNotStart }
        socket = fd
        port = ClosingServer.boundPort(fd)
        let heads = self.heads
        let bytes = Array(answer.utf8)
        Thread {
            for _ in 0..<limit {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                let head = ClosingServer.readHead(client)
                heads.withLock { $0.append(head) }
                _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                shutdown(client, Int32(SHUT_RDWR))
                close(client)
            }
        }.start()
    }

    /// A response with this status line (`"403 Forbidden"`), content type and body.
    public static func response(status: String, contentType: String = "text/plain", body: String = "") -> String {
        "HTTP/1.1 \(status)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    }

    /// Every request head received so far, in order.
    public var requests: [String] { heads.withLock { $0 } }

    /// The values of header `name` (any case) in request `index`, in the order sent.
    public func headerValues(_ name: String, inRequest index: Int = 0) -> [String] {
        guard requests.indices.contains(index) else { return [] }
        return requests[index].split(separator: "\r\n").dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name.lowercased() else { return nil }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }

    /// Stops listening.
    public func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }
}
