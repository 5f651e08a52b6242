import InMemoryTracing
import Tracing

/// `pantry --trace`: the finished spans of a run as an indented tree, each with its duration and
/// the attributes that say what happened (status, where the answer came from).
enum SpanTree {
    static func lines(_ spans: [FinishedInMemorySpan]) -> [String] {
        guard !spans.isEmpty else { return ["trace: no spans"] }
        let ids = Set(spans.map(\.spanID))
        var children: [String: [FinishedInMemorySpan]] = [:]
        var roots: [FinishedInMemorySpan] = []
        for span in spans {
            if let parent = span.parentSpanID, ids.contains(parent) { children[parent, default: []].append(span) } else { roots.append(span) }
        }
        var lines = ["trace:"]
        func add(_ span: FinishedInMemorySpan, depth: Int) {
            lines.append(String(repeating: "  ", count: depth + 1) + describe(span))
            for child in (children[span.spanID] ?? []).sorted(by: startsBefore) { add(child, depth: depth + 1) }
        }
        for root in roots.sorted(by: startsBefore) { add(root, depth: 0) }
        return lines
    }

    static func startsBefore(_ a: FinishedInMemorySpan, _ b: FinishedInMemorySpan) -> Bool {
        a.startInstant.nanosecondsSinceEpoch < b.startInstant.nanosecondsSinceEpoch
    }

    /// `query Households  12.3 ms  source=server status=200`.
    static func describe(_ span: FinishedInMemorySpan) -> String {
        let nanoseconds = span.endInstant.nanosecondsSinceEpoch &- span.startInstant.nanosecondsSinceEpoch
        var text = "\(span.operationName)  " + String(format: "%.1f ms", Double(nanoseconds) / 1_000_000)
        var notes: [String] = []
        span.attributes.forEach { key, value in
            switch key {
            case "apicore.source": notes.append("source=\(plain(value))")
            case "http.response.status_code": notes.append("status=\(plain(value))")
            case "apicore.records": notes.append("records=\(plain(value))")
            default: break
            }
        }
        if span.status?.code == .error { notes.append("error") }
        if !notes.isEmpty { text += "  " + notes.sorted().joined(separator: " ") }
        return text
    }

    /// An attribute's value as text, without its kind.
    static func plain(_ value: SpanAttribute) -> String {
        switch value {
        case .string(let text): return text
        case .int64(let number): return String(number)
        case .int32(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return String(flag)
        default: return "\(value)"
        }
    }
}
