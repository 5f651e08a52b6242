import APICore
import APICoreLive
import APICoreTesting
import DevServer
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// The client's trace and the dev server's log meet: the server logs the W3C `traceparent` it
/// received, whose trace id is the client's span's.
@Suite("Trace context across client and dev server")
struct TraceContextTests {
    /// An in-memory tracer with W3C ids (32 and 16 hex digits) that propagates `traceparent`, as
    /// an OpenTelemetry tracer does.
    struct W3CTracer: Tracer {
        let spans = InMemoryTracer(idGenerator: .init(nextTraceID: { Self.hex(16) }, nextSpanID: { Self.hex(8) }))

        static func hex(_ bytes: Int) -> String {
            (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        }

        func startSpan<Instant: TracerInstant>(
            _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind, at instant: @autoclosure () -> Instant,
            function: String, file fileID: String, line: UInt
        ) -> InMemorySpan {
            spans.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
        }

        func forceFlush() { spans.forceFlush() }

        func inject<Carrier, Inject: Injector>(_ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject)
        where Carrier == Inject.Carrier {
            guard let span = context.inMemorySpanContext else { return }
            injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
        }

        func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract)
        where Carrier == Extract.Carrier {}
    }

    @Test("a query's HTTP attempt and the dev server's log line carry the same trace")
    func joined() async throws {
        let captured = LogCapture()
        let server = try await DevServer.start(DevServer.Options(logger: captured.logger))
        let tracer = W3CTracer()
        let client = APICoreLive.makeClient(APIClientConfiguration(restBaseURL: server.baseURL, cache: nil, tracer: tracer, retryPolicy: nil))
        _ = try await client.send(RESTRequest<EmptyResponse>.get("health"))
        await server.stop()
        let attempt = try #require(tracer.spans.finishedSpans.first { $0.operationName == "HTTP GET" })
        let logged = captured.all.filter { $0.contains("trace context received") }
        #expect(logged.contains { $0.contains("traceparent=00-\(attempt.traceID)-\(attempt.spanID)-01") }, "\(logged)")
        #expect(attempt.traceID.count == 32)
    }
}
