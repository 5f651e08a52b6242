import APICore
import Foundation
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Distributed tracing (swift-distributed-tracing), a value each part of the client keeps: a span
/// per operation (`query HeroName`, `GET items`), and inside it a span per HTTP attempt (so a retry
/// is its own span: ``AttemptSpans``, the chain's innermost step), per cache write and per
/// incremental part, and per subscription event; the trace's context goes out with each HTTP
/// request and WebSocket connection through the tracer's own propagation
/// (`traceparent`/`tracestate` with an OpenTelemetry tracer). With no tracer configured or
/// bootstrapped, the no-op tracer makes each of these a few allocations at most.
struct Spans: Sendable {
    /// The configuration's tracer, if it names one.
    let configured: (any Tracer)?

    /// The configuration's tracer, else the process's (`InstrumentationSystem.tracer`).
    var tracer: any Tracer { Self.tracer(configured) }

    /// `configured`, else the process's tracer, asked for each time (an app may bootstrap late).
    static func tracer(_ configured: (any Tracer)?) -> any Tracer { configured ?? InstrumentationSystem.tracer }

    /// Runs `body` in a span of its own, a child of the current one; the span ends when `body`
    /// does, with the error recorded and an error status when it throws. `tracer` is the one to
    /// use when the caller asked for it already (once for many spans); with the no-op tracer,
    /// whose spans record nothing and carry the context they were given, `body` runs as it is.
    func traced<T>(
        _ name: @autoclosure () -> String, kind: SpanKind = .internal, tracer given: (any Tracer)? = nil,
        attributes: (inout SpanAttributes) -> Void = { _ in }, _ body: (any Span) async throws(APIError) -> T
    ) async throws(APIError) -> T {
        let tracer = given ?? self.tracer
        if tracer is NoOpTracer { return try await body(NoOpTracer.NoOpSpan(context: InstrumentationContext.current ?? .topLevel)) }
        let span = tracer.startSpan(name(), context: InstrumentationContext.current ?? .topLevel, ofKind: kind)
        defer { span.end() }
        if span.isRecording { attributes(&span.attributes) }
        let result = await InstrumentationContext.$current.withValue(span.context) {
            await Result.of { () async throws(APIError) in try await body(span) }
        }
        if case .failure(let error) = result {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error, message: error.description))
        }
        return try result.get()
    }

    /// The span of a GraphQL operation: named as OpenTelemetry's GraphQL conventions say, with the
    /// cache policy, and once answered where the answer came from and its status.
    func tracedOperation<Operation: GraphQLOperation, Value>(
        _: Operation.Type, cachePolicy: CachePolicy?, _ body: () async throws(APIError) -> Response<Value>
    ) async throws(APIError) -> Response<Value> {
        try await traced(
            "\(Operation.operationType.rawValue) \(Operation.operationName)", kind: .client,
            attributes: { attributes in
                attributes["graphql.operation.name"] = Operation.operationName
                attributes["graphql.operation.type"] = Operation.operationType.rawValue
                if let cachePolicy { attributes["apicore.cache_policy"] = "\(cachePolicy)" }
            }
        ) { span throws(APIError) in
            let response = try await body()
            Self.note(response.metadata, on: span)
            return response
        }
    }

    /// Where an answer came from, and its HTTP status, on its span.
    static func note(_ metadata: ResponseMetadata, on span: any Span) {
        guard span.isRecording else { return }
        span.attributes["apicore.source"] = metadata.source == .cache ? "cache" : "server"
        if let status = metadata.statusCode { span.attributes["http.response.status_code"] = status }
        if metadata.isOfflineFallback { span.attributes["apicore.offline_fallback"] = true }
    }

    /// `request` with the current trace context in its headers, as the tracer propagates it.
    func withTraceContext(_ request: URLRequest) -> URLRequest {
        Self.withTraceContext(request, using: URLRequestInjector(), tracer: configured)
    }

    /// `carrier` (a request, headers, a `connection_init` payload) with the current trace context
    /// injected by `configured` (else the process's tracer); as it was outside any span.
    static func withTraceContext<Inject: Injector>(_ carrier: Inject.Carrier, using injector: Inject, tracer configured: (any Tracer)?)
        -> Inject.Carrier
    {
        guard let context = InstrumentationContext.current else { return carrier }
        var carrier = carrier
        tracer(configured).inject(context, into: &carrier, using: injector)
        return carrier
    }
}

/// The chain's innermost step: each attempt (a retry is one more) in a span of its own, with the
/// method, host and path, and once answered the status and body size. The exchange under it
/// injects the trace's context into what it sends (`withTraceContext`).
struct AttemptSpans: Middleware {
    let spans: Spans

    func intercept(_ request: URLRequest, context: RequestContext, next: MiddlewareNext) async throws(APIError) -> TransportResponse {
        try await spans.traced(
            "HTTP \(request.httpMethod ?? "GET")", kind: .client,
            attributes: { attributes in
                attributes["http.request.method"] = request.httpMethod ?? "GET"
                if let url = request.url {
                    attributes["server.address"] = url.host ?? ""
                    attributes["url.path"] = url.path
                }
            }
        ) { span throws(APIError) in
            let response = try await next(request)
            if span.isRecording {
                span.attributes["http.response.status_code"] = response.statusCode
                span.attributes["http.response.body.size"] = response.body.count
            }
            return response
        }
    }
}

/// Headers for the tracer's propagation.
struct URLRequestInjector: Injector {
    func inject(_ value: String, forKey key: String, into request: inout URLRequest) {
        request.setValue(value, forHTTPHeaderField: key)
    }
}

/// Dictionary entries for the tracer's propagation (WebSocket upgrade headers, `connection_init`).
struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}
