import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A port on 127.0.0.1 where nothing listens, for as long as this value lives: a socket bound to
/// it, without `SO_REUSEADDR`, that never listens. A connection to it is refused, and no server
/// can take the port meanwhile (a port bound and released at once was taken by a test server
/// started beside it, which then answered the request meant to be refused).
public final class RefusedPort: Sendable {
    /// The port.
    public let port: Int
    private let socket: Int32

    /// Binds a free port.
    public init() {
        #if canImport(Glibc)
            let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        socket = fd
        port = ClosingServer.boundPort(fd)
    }

    deinit { close(socket) }
}

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


    /// A TCP socket, and `operation` (bind, connect) applied to it with 127.0.0.1:`port`; the socket,
    /// or -1 when either failed.
    static func loopbackSocket(port: Int, _ operation: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        #if canImport(Glibc)
            let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return -1 }
        // Another listener may have had the port a moment ago (its connections in TIME_WAIT).
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { operation(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    /// A socket listening on 127.0.0.1 at `port` (0: a free one), or -1.
    static func makeListeningSocket(port: Int = 0) -> Int32 {
        let fd = loopbackSocket(port: port) { bind($0, $1, $2) }
        guard fd >= 0 else { return -1 }
        guard listen(fd, 16) == 0 else {
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

    /// A response with this status line (`"403 Forbidden"`), content type, extra headers and body.
    public static func response(status: String, contentType: String = "text/plain", headers: [String: String] = [:], body: String = "") -> String {
        let extra = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" }.joined()
        return "HTTP/1.1 \(status)\r\nContent-Type: \(contentType)\r\n\(extra)Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
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

/// A TCP proxy on 127.0.0.1 in front of a loopback server, for failures of the path rather than
/// of the server: with `cutAfter`, it resets each connection (RST) once it has passed that many
/// bytes of the server's side to the client, a connection lost mid-body whatever the protocol on
/// it; ``kill()`` closes every connection and the port, as a server process killed does, and
/// ``restart()`` listens on the same port again. Each connection is counted; at most `limit` are
/// served, and one idle for 10 s is closed.
public final class LoopbackProxy: @unchecked Sendable {
    /// The port it listens on.
    public let port: Int
    private let upstream: Int
    private let cutAfter: Int?
    private let state = Locked<(listener: Int32, accepted: Int, open: Set<Int32>)>((-1, 0, []))
    private let limit: Int

    /// Listens on a free loopback port, forwarding to `upstream` on 127.0.0.1.
    public init(to upstream: Int, cutAfter: Int? = nil, limit: Int = 32) throws {
        self.upstream = upstream
        self.cutAfter = cutAfter
        self.limit = limit
        let fd = ClosingServer.makeListeningSocket()
        guard fd >= 0 else { throw TestServerError.couldNotStart }
        port = ClosingServer.boundPort(fd)
        listen(on: fd)
    }

    /// How many connections it accepted.
    public var connectionCount: Int { state.withLock { $0.accepted } }

    /// Closes the port and every connection through it (each side gets an end of stream, as from a
    /// process that died): nothing accepts connections until ``restart()``.
    public func kill() {
        state.withLock { state in
            shutdown(state.listener, Int32(SHUT_RDWR))
            close(state.listener)
            state.listener = -1
            for fd in state.open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Listens on the same port again.
    public func restart() throws {
        let fd = ClosingServer.makeListeningSocket(port: port)
        guard fd >= 0 else { throw TestServerError.couldNotStart }
        listen(on: fd)
    }

    /// Stops listening (connections being forwarded end by themselves).
    public func stop() { kill() }

    private func listen(on fd: Int32) {
        state.withLock { $0.listener = fd }
        Thread { [self] in
            while state.withLock({ $0.accepted < limit }) {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                guard let server = connectUpstream() else {
                    close(client)
                    continue
                }
                state.withLock { state in
                    state.accepted += 1
                    state.open.formUnion([client, server])
                }
                Thread { [self] in forward(client, server) }.start()
            }
        }.start()
    }

    private func connectUpstream() -> Int32? {
        let fd = ClosingServer.loopbackSocket(port: upstream) { connect($0, $1, $2) }
        return fd >= 0 ? fd : nil
    }

    private func forward(_ client: Int32, _ server: Int32) {
        var cut = false
        defer {
            state.withLock { state in
                if cut {
                    // SO_LINGER with a zero timeout: close sends RST.
                    var option = linger(l_onoff: 1, l_linger: 0)
                    setsockopt(client, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
                }
                state.open.subtract([client, server])
                close(client)
                close(server)
            }
        }
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var passed = 0
        var fds = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
        while poll(&fds, 2, 10_000) > 0 {
            for (index, from, to) in [(0, client, server), (1, server, client)] where fds[index].revents != 0 {
                let room = index == 1 ? min(buffer.count, (cutAfter ?? .max) - passed) : buffer.count
                let count = read(from, &buffer, room)
                guard count > 0, Self.writeAll(to, buffer[0..<count]) else { return }
                if index == 1 { passed += count }
                if let cutAfter, passed >= cutAfter {
                    cut = true
                    return
                }
            }
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let count = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count <= 0 { return false }
            offset += count
        }
        return true
    }
}
