@_spi(Engine) import APICore
import APICoreSupport
import Foundation
import Logging

/// The one WebSocket a client's subscriptions share: opened on the first subscription, closed after
/// the last (or, when it carries queries and mutations too, once it has been idle for
/// ``idleLinger``), reopened with backoff when it drops, with every active operation subscribed
/// again.
///
/// Each socket gets a new generation; an operation remembers the generation it was subscribed on,
/// so it is subscribed exactly once per socket, and nothing from an old socket is read once it is
/// gone: after a reconnect no event arrives twice.
actor SubscriptionConnection {
    /// Where an operation's events go.
    typealias Sink = @Sendable (ChannelEvent) -> Void

    private struct Operation {
        let name: String
        let payload: JSONObject
        let sink: Sink
        var subscribedOn: UInt64?
    }

    /// How one socket's life ended.
    private enum Outcome {
        /// No operations are left; stop.
        case idle
        /// Reconnect (after backoff). `acknowledged` says whether the socket had got as far as the
        /// ack, which resets the count of failures in a row.
        case dropped(APIError, acknowledged: Bool)
        /// Give up: fail every operation with this error.
        case fatal(APIError)
        /// The server wants new credentials (4401, 4403, or an upgrade refused with 401 or 403):
        /// refresh them once and reconnect, else give up with this error.
        case unauthorized(APIError)
    }

    /// Close codes after which reconnecting cannot help (as in graphql-ws); 4401 and 4403 are for
    /// new credentials.
    static let fatalCloseCodes: Set<Int> = [4400, 4406, 4409, 4429, 4500]
    static let unauthorizedCloseCodes: Set<Int> = [4401, 4403]

    private let configuration: SubscriptionConfiguration
    private let transport: WebSocketTransport
    private let upgradeHeaders: @Sendable () async -> [String: String]
    /// The `connection_init` payload, asked for on each connection.
    private let connectionPayload: @Sendable () async -> JSONObject?
    /// Gets new credentials (bearer authentication's single-flight refresh); `nil` when there is
    /// nothing to refresh.
    private let reauthenticate: (@Sendable () async throws(APIError) -> Void)?
    private let logger: Logger

    private var operations: [UInt64: Operation] = [:]
    /// How many operations are open on the channel.
    var operationCount: Int { operations.count }
    private var nextID: UInt64 = 1
    /// Counts the times the socket fell idle, so that a late close finds out whether it still is.
    private var idleMark: UInt64 = 0

    /// How long a socket that carries queries and mutations stays open without operations, so that
    /// operations in a row share it.
    static let idleLinger = Duration.seconds(30)
    private var runner: Task<Void, Never>?
    private var channel: (any WebSocketChannel)?
    private var generation: UInt64 = 0
    private var acknowledged = false
    /// Set when a socket is acknowledged; `run` resets it.
    private var acknowledgedOnce = false
    /// A result arrived since the last look: the socket works.
    private var deliveredOnce = false
    /// When the current socket was acknowledged.
    private var acknowledgedAt = ContinuousClock.now
    /// Set when the client itself ends a socket for a reason (ack timeout, invalid message, silence).
    private var pendingOutcome: Outcome?
    private var lastReceived = ContinuousClock.now

    init(
        configuration: SubscriptionConfiguration,
        transport: WebSocketTransport,
        upgradeHeaders: @escaping @Sendable () async -> [String: String],
        connectionPayload: @escaping @Sendable () async -> JSONObject?,
        reauthenticate: (@Sendable () async throws(APIError) -> Void)? = nil,
        logger: Logger
    ) {
        self.configuration = configuration
        self.transport = transport
        self.upgradeHeaders = upgradeHeaders
        self.connectionPayload = connectionPayload
        self.reauthenticate = reauthenticate
        self.logger = logger
    }

    // MARK: Operations

    /// Adds an operation; its events go to `sink` until it fails, completes or is removed.
    func subscribe(name: String, payload: JSONObject, sink: @escaping Sink) async -> UInt64 {
        let id = nextID
        nextID += 1
        idleMark += 1
        operations[id] = Operation(name: name, payload: payload, sink: sink)
        if let channel, acknowledged {
            sink(.connected)
            await send(id, on: channel)
        } else {
            if runner == nil { runner = Task { await self.run() } }
        }
        return id
    }

    /// Removes an operation, telling the server when it knows of it, and closes the socket when it
    /// was the last one.
    func unsubscribe(_ id: UInt64) async {
        guard let operation = operations.removeValue(forKey: id) else { return }
        if let channel, acknowledged, operation.subscribedOn == generation {
            try? await channel.send(SubscriptionWire.complete(id: String(id), protocol: configuration.subprotocol))
        }
        await closeIfIdle()
    }

    private func send(_ id: UInt64, on channel: any WebSocketChannel) async {
        guard var operation = operations[id], operation.subscribedOn != generation else { return }
        operation.subscribedOn = generation
        operations[id] = operation
        try? await channel.send(SubscriptionWire.subscribe(id: String(id), payload: operation.payload, protocol: configuration.subprotocol))
    }

    private func closeIfIdle() async {
        guard operations.isEmpty, let channel else { return }
        if configuration.carriesQueriesAndMutations {
            idleMark += 1
            let mark = idleMark
            Task { [weak self] in
                try? await Task.sleep(for: Self.idleLinger)
                await self?.closeIfStillIdle(since: mark)
            }
            return
        }
        await channel.close(code: 1000, reason: "no active subscriptions")
    }

    private func closeIfStillIdle(since mark: UInt64) async {
        guard mark == idleMark, operations.isEmpty, let channel else { return }
        await channel.close(code: 1000, reason: "no active operations")
    }

    private func broadcast(_ event: ChannelEvent) {
        for operation in operations.values { operation.sink(event) }
    }

    private func failAll(_ error: APIError) {
        broadcast(.error(error))
        operations.removeAll()
    }

    // MARK: Connection

    /// Opens sockets while there are operations, with backoff between failures.
    private func run() async {
        var attempts = ReconnectAttempts()
        // Credentials are refreshed at most once between two acknowledged sockets.
        var refreshed = false
        while !operations.isEmpty {
            let outcome = await connectOnce()
            if acknowledgedOnce {
                refreshed = false
                acknowledgedOnce = false
            }
            if deliveredOnce {
                attempts.delivered()
                deliveredOnce = false
            }
            switch outcome {
            case .idle:
                continue
            case .fatal(let error):
                logger.warning("subscriptions stopped: \(error)")
                failAll(error)
            case .unauthorized(let error):
                guard let reauthenticate, !refreshed else {
                    logger.warning("subscriptions stopped: \(error)")
                    failAll(error)
                    continue
                }
                refreshed = true
                logger.notice("subscription socket: \(error); refreshing the credentials and reconnecting")
                do throws(APIError) {
                    try await reauthenticate()
                } catch let refreshError {
                    logger.warning("subscriptions stopped: \(error); the refresh failed: \(refreshError)")
                    failAll(error)
                    continue
                }
                if !operations.isEmpty { broadcast(.state(.connecting)) }
            case .dropped(let error, let acknowledged):
                guard !operations.isEmpty else { continue }
                if acknowledged { attempts.connected(at: acknowledgedAt) }
                guard let policy = configuration.reconnect, policy.retries(error) else {
                    failAll(error)
                    continue
                }
                guard let delay = attempts.failed(error, under: policy) else {
                    failAll(.webSocket(WebSocketFailure(
                        kind: .gaveUp(attempts: attempts.failures, lastFailure: error.description), url: configuration.url)))
                    continue
                }
                logger.info("subscription socket lost (\(error)); reconnecting in \(delay), attempt \(attempts.failures)")
                broadcast(.state(.reconnecting(attempt: attempts.failures, delay: delay, reason: error.description)))
                try? await Task.sleep(for: delay)
                if !operations.isEmpty { broadcast(.state(.connecting)) }
            }
        }
        runner = nil
    }

    /// One socket, from opening to closing.
    private func connectOnce() async -> Outcome {
        generation += 1
        let current = generation
        acknowledged = false
        pendingOutcome = nil
        let request = WebSocketRequest(
            url: configuration.url, subprotocol: configuration.subprotocol.rawValue, headers: await upgradeHeaders(),
            maxMessageSize: configuration.maxMessageSize, handshakeTimeout: configuration.ackTimeout, logger: logger)
        let channel: any WebSocketChannel
        do throws(APIError) {
            channel = try await transport.connect(request)
        } catch {
            // The failure says whether another attempt can help, as it does for HTTP: a refused
            // certificate or pin, or an upgrade refused with a 4xx, is the same next time; refused
            // credentials may be refreshed once; a network blip or a 5xx may pass.
            switch error.recovery {
            case .fail: return .fatal(error)
            case .reauthenticate: return .unauthorized(error)
            case .retry: return .dropped(error, acknowledged: false)
            }
        }
        if operations.isEmpty {
            await channel.close(code: 1000, reason: "no active subscriptions")
            return .idle
        }
        self.channel = channel
        defer {
            self.channel = nil
            acknowledged = false
        }
        let payload = await connectionPayload()
        do throws(APIError) {
            try await channel.send(SubscriptionWire.connectionInit(payload: payload))
        } catch {
            return .dropped(error, acknowledged: false)
        }
        lastReceived = .now
        let ackTimeout = configuration.ackTimeout
        let timer = Task {
            try? await Task.sleep(for: ackTimeout)
            if !Task.isCancelled { await self.ackTimedOut(generation: current) }
        }
        var keepAlive: Task<Void, Never>?
        defer {
            timer.cancel()
            keepAlive?.cancel()
        }
        for await event in channel.events {
            switch event {
            case .message(let text):
                lastReceived = .now
                if let outcome = await handle(text, on: channel) { return outcome }
                if acknowledged, keepAlive == nil, configuration.subprotocol == .graphQLTransportWS, let interval = configuration.keepAlive {
                    timer.cancel()
                    keepAlive = Task { await self.keepAlive(every: interval, generation: current) }
                }
            case .closed(let code, let reason):
                return outcomeOfClose(code: code, reason: reason)
            case .failed(let error):
                return pendingOutcome ?? .fatal(error)
            }
        }
        return outcomeOfClose(code: nil, reason: "")
    }

    private func outcomeOfClose(code: Int?, reason: String) -> Outcome {
        if let pendingOutcome { return pendingOutcome }
        if operations.isEmpty { return .idle }
        let code = code ?? 1006
        logger.debug("subscription socket closed by the server with \(code)")
        let error = APIError.webSocket(WebSocketFailure(kind: .closed(code: code, reason: reason), url: configuration.url))
        if Self.unauthorizedCloseCodes.contains(code) { return .unauthorized(error) }
        return Self.fatalCloseCodes.contains(code) ? .fatal(error) : .dropped(error, acknowledged: acknowledged)
    }

    /// Acts on one message; an outcome ends the socket.
    private func handle(_ text: String, on channel: any WebSocketChannel) async -> Outcome? {
        let message: ServerMessage
        switch SubscriptionWire.parse(text, protocol: configuration.subprotocol) {
        case .success(let parsed): message = parsed
        case .failure(let invalid): return await endSocket(code: 4400, .fatal(invalidMessage(invalid.description)), on: channel)
        }
        switch message {
        case .connectionAck:
            guard !acknowledged else { return nil }
            acknowledged = true
            acknowledgedOnce = true
            acknowledgedAt = .now
            logger.debug("subscription socket acknowledged")
            for id in operations.keys.sorted() {
                operations[id]?.sink(.connected)
                await send(id, on: channel)
            }
            await closeIfIdle()
        case .ping:
            try? await channel.send(SubscriptionWire.pong)
        case .keepAlive:
            break
        case .connectionError(let reason):
            return await endSocket(
                code: 1000, .fatal(.webSocket(WebSocketFailure(kind: .connectionRejected(reason), url: configuration.url))), on: channel)
        case .next(let id, let payload):
            guard acknowledged else { return await endSocket(code: 4400, .fatal(invalidMessage("a result before connection_ack")), on: channel) }
            // Results for an operation already removed (the consumer stopped) are dropped.
            deliveredOnce = true
            if let id = UInt64(id), let operation = operations[id] { operation.sink(.payload(payload)) }
        case .error(let id, let errors):
            if let id = UInt64(id), let operation = operations.removeValue(forKey: id) {
                operation.sink(.error(.graphQL(GraphQLFailure(errors: errors, partialData: nil, statusCode: nil, operationName: operation.name))))
                await closeIfIdle()
            }
        case .complete(let id):
            if let id = UInt64(id), let operation = operations.removeValue(forKey: id) {
                operation.sink(.complete)
                await closeIfIdle()
            }
        }
        return nil
    }

    private func invalidMessage(_ description: String) -> APIError {
        .webSocket(WebSocketFailure(kind: .invalidMessage(description), url: configuration.url))
    }

    /// Closes the socket for a reason of the client's own; the socket's outcome is `outcome`.
    private func endSocket(code: Int, _ outcome: Outcome, on channel: any WebSocketChannel) async -> Outcome {
        pendingOutcome = outcome
        // A close reason is at most 123 bytes.
        var reason = ""
        if case .fatal(let error) = outcome { reason = String(decoding: Array(error.description.utf8.prefix(120)), as: UTF8.self) }
        await channel.close(code: code, reason: reason)
        return outcome
    }

    private func ackTimedOut(generation: UInt64) async {
        guard generation == self.generation, !acknowledged, pendingOutcome == nil, let channel else { return }
        let error = APIError.webSocket(WebSocketFailure(kind: .ackTimeout(configuration.ackTimeout), url: configuration.url))
        logger.warning("subscription socket: \(error)")
        pendingOutcome = .fatal(error)
        await channel.close(code: 4504, reason: "Connection acknowledgement timeout")
    }

    /// Pings after each quiet interval; a socket that stays quiet for another interval is dropped.
    private func keepAlive(every interval: Duration, generation: UInt64) async {
        var pingedAt: ContinuousClock.Instant?
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard !Task.isCancelled, generation == self.generation, let channel, pendingOutcome == nil else { return }
            if let pingedAt, lastReceived < pingedAt {
                let error = APIError.transport(TransportFailure(
                    kind: .timedOut, url: configuration.url, underlying: "no message from the server for \(interval * 2)"))
                pendingOutcome = .dropped(error, acknowledged: true)
                await channel.close(code: 4499, reason: "keep-alive timeout")
                return
            }
            if ContinuousClock.now - lastReceived >= interval {
                pingedAt = .now
                try? await channel.send(SubscriptionWire.ping)
            } else {
                pingedAt = nil
            }
        }
    }
}

/// The shared WebSocket as a subscription channel: each operation is one id on the socket. The
/// socket reconnects itself (every operation is subscribed again) and reports how that goes as
/// states; it gives up with an error, never a drop.
struct SocketSubscriptionChannel: SubscriptionChannel {
    let connection: SubscriptionConnection

    func open(_ operation: OutgoingOperation) -> EventQueue<ChannelEvent> {
        let events = EventQueue<ChannelEvent>()
        let registration = Task {
            await connection.subscribe(name: operation.name, payload: operation.payload) { event in
                events.yield(event)
                switch event {
                case .error, .complete, .dropped: events.finish()
                case .connected, .payload, .state: break
                }
            }
        }
        events.onStop { Task { await connection.unsubscribe(await registration.value) } }
        return events
    }
}
