@_spi(Engine) @_spi(Tools) import APICore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTP batching (``HTTPBatching``), innermost in the chain: each operation's request has been
/// through the middleware already; requests that could travel together (JSON `POST`s to the same
/// URL with the same headers and timeout) wait up to the window for company, then go as one `POST`
/// whose body is the array of their bodies. The answer's array is handed back one element each, as
/// the response to that caller's own request.
final class HTTPBatcher: Sendable {
    private let options: HTTPBatching
    private let transport: any HTTPTransport
    /// The most bytes read of an answer (`APIClientConfiguration.maxResponseSize`).
    private let maxResponseSize: Int
    /// Adds what every request sent carries (the trace context of the caller that sends it).
    private let prepare: @Sendable (URLRequest) -> URLRequest

    /// What requests must share to travel together.
    private struct Key: Hashable {
        var url: URL?
        var headers: [String: String]
        var timeout: Duration
    }

    /// A batch still gathering operations.
    private struct Gathering {
        var id: UInt64
        var request: URLRequest
        /// The callers, by id, with their bodies, in the order they came.
        var members: [(id: UInt64, body: Data)] = []
    }

    private typealias Waiter = CheckedContinuation<Result<TransportResponse, APIError>, Never>

    private struct State {
        var nextID: UInt64 = 0
        var gathering: [Key: Gathering] = [:]
        /// Every caller not answered yet: whoever takes one out answers it.
        var waiters: [UInt64: Waiter] = [:]
    }

    private let state = Locked(State())

    init(
        options: HTTPBatching, transport: any HTTPTransport, maxResponseSize: Int = .max,
        prepare: @escaping @Sendable (URLRequest) -> URLRequest = { $0 }
    ) {
        self.maxResponseSize = maxResponseSize
        self.options = options
        self.transport = transport
        self.prepare = prepare
    }

    /// Whether a request can travel in a batch: a JSON `POST` whose body is one object.
    static func batchable(_ request: URLRequest) -> Bool {
        guard request.httpMethod == "POST", request.value(forHTTPHeaderField: "Content-Type") == "application/json",
            let body = request.httpBody, body.first == UInt8(ascii: "{")
        else { return false }
        return true
    }

    /// The answer to `request`, sent in a batch with others when it can be.
    func send(_ request: URLRequest, timeout: Duration, operationName: String) async throws(APIError) -> TransportResponse {
        guard Self.batchable(request), let body = request.httpBody else { return try await transport.whole(prepare(request), timeout: timeout, limit: maxResponseSize) }
        if Task.isCancelled { throw .cancelled }
        let key = Key(url: request.url, headers: request.allHTTPHeaderFields ?? [:], timeout: timeout)
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: Waiter) in
                join(id: id, body: body, waiter: waiter, key: key, request: request)
            }
        } onCancel: {
            // Still gathering: leaves the batch. Sent already: the batch goes on for the others.
            let waiter = state.withLock { state -> Waiter? in
                if var batch = state.gathering[key], let index = batch.members.firstIndex(where: { $0.id == id }) {
                    batch.members.remove(at: index)
                    state.gathering[key] = batch.members.isEmpty ? nil : batch
                }
                return state.waiters.removeValue(forKey: id)
            }
            waiter?.resume(returning: .failure(.cancelled))
        }
        do {
            return try result.get()
        } catch {
            guard case .invalidResponse(var failure) = error else { throw error }
            failure.request = operationName
            throw .invalidResponse(failure)
        }
    }

    private func join(id: UInt64, body: Data, waiter: Waiter, key: Key, request: URLRequest) {
        let (joined, full, opened) = state.withLock { state -> (Bool, Gathering?, UInt64?) in
            // Cancelled before it got here (the cancellation handler found nothing to answer).
            if Task.isCancelled { return (false, nil, nil) }
            state.waiters[id] = waiter
            var opened: UInt64?
            if state.gathering[key] == nil {
                state.nextID += 1
                state.gathering[key] = Gathering(id: state.nextID, request: request)
                opened = state.nextID
            }
            state.gathering[key]!.members.append((id, body))
            guard state.gathering[key]!.members.count >= options.maxOperations else { return (true, nil, opened) }
            return (true, state.gathering.removeValue(forKey: key), nil)
        }
        guard joined else { return waiter.resume(returning: .failure(.cancelled)) }
        if let full {
            Task { await self.dispatch(full, timeout: key.timeout) }
        } else if let opened {
            let window = options.window
            Task {
                try? await Task.sleep(for: window)
                let due = self.state.withLock { state -> Gathering? in
                    guard state.gathering[key]?.id == opened else { return nil }
                    return state.gathering.removeValue(forKey: key)
                }
                if let due { await self.dispatch(due, timeout: key.timeout) }
            }
        }
    }

    /// Sends a batch and answers each of its callers still waiting.
    private func dispatch(_ batch: Gathering, timeout: Duration) async {
        let members = batch.members
        guard !members.isEmpty else { return }
        var request = prepare(batch.request)
        var results: [Result<TransportResponse, APIError>]
        if members.count == 1 {
            request.httpBody = members[0].body
            results = [await Result.of { () async throws(APIError) in try await transport.whole(request, timeout: timeout, limit: maxResponseSize) }]
        } else {
            var body = Data("[".utf8)
            for (index, member) in members.enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                body.append(member.body)
            }
            body.append(UInt8(ascii: "]"))
            request.httpBody = body
            switch await Result.of({ () async throws(APIError) in try await transport.whole(request, timeout: timeout, limit: maxResponseSize) }) {
            case .success(let response): results = Self.split(response, into: members.count)
            case .failure(let error): results = Array(repeating: .failure(error), count: members.count)
            }
        }
        let waiters = state.withLock { state in members.map { state.waiters.removeValue(forKey: $0.id) } }
        for (waiter, result) in zip(waiters, results) { waiter?.resume(returning: result) }
    }

    /// A batch's answer, one response per operation: the array's elements in order, each with the
    /// batch's status and headers. An answer that is not such an array is every operation's error
    /// when it says the server does not batch (a 2xx, or the 400s, 404s, 405s, 415s and 422s of a
    /// server that refuses an array); any other (401, 429, 5xx) is every operation's own answer, for
    /// its middleware to act on (refresh a token, retry).
    static func split(_ response: TransportResponse, into count: Int) -> [Result<TransportResponse, APIError>] {
        if case .array(let elements)? = try? JSONParser.parse(response.body), elements.count == count {
            return elements.map { element in
                .success(TransportResponse(
                    statusCode: response.statusCode, headers: response.headers, body: JSONSerializer.data(element), url: response.url))
            }
        }
        guard (200..<300).contains(response.statusCode) || [400, 404, 405, 415, 422].contains(response.statusCode) else {
            return Array(repeating: .success(response), count: count)
        }
        let error = APIError.invalidResponse(InvalidResponse(
            kind: .notBatchAnswer(operations: count), statusCode: response.statusCode, request: nil,
            bodyExcerpt: HTTPFailure.excerpt(of: response.body)))
        return Array(repeating: .failure(error), count: count)
    }
}
