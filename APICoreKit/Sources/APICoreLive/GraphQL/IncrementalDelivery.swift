@_spi(Engine) @_spi(Generated) import APICore
import APICoreSupport
import Foundation
import Tracing

/// The results of an incremental answer (`@defer`, `@stream`) after the first, as values: each part
/// merged into the data so far, checked, written to the cache, and answered by `next()`, read as the
/// parts arrive. A labelled fragment whose fields are new to its object is checked and written on
/// its own, so that a part costs what it brings; anything else (an unlabelled fragment, fields that
/// overlap what was there) checks the whole data again.
struct IncrementalResults<Operation: GraphQLOperation, Value: Sendable> {
    let pipeline: GraphQLPipeline
    let request: GraphQLRequest<Operation, Value>
    let answer: OperationStage.ServerAnswer
    let storing: Bool
    let start: ContinuousClock.Instant
    private var payloads: APIStream<Result<JSONObject, APIError>>.AsyncIterator
    private var result: IncrementalResult
    private var validated: JSONObject
    private var latest: Response<Value>
    /// Whether every error so far is caught: the first part's are (else it was thrown).
    private var errorsCaught = true
    /// What ended the parts early, once something did.
    private var failure: APIError?
    private var finished = false

    /// The parts after `first`, the result of the answer's first part (`validated` its data).
    init(
        pipeline: GraphQLPipeline, request: GraphQLRequest<Operation, Value>, answer: OperationStage.ServerAnswer,
        incremental: OperationStage.Incremental,
        first: Response<Value>, validated: JSONObject, storing: Bool, since start: ContinuousClock.Instant
    ) throws(APIError) {
        self.pipeline = pipeline
        self.request = request
        self.answer = answer
        self.storing = storing
        self.start = start
        payloads = incremental.later.makeAsyncIterator()
        result = try IncrementalResult(initial: incremental.initial)
        self.validated = validated
        latest = first
    }

    /// The next part's result (a part whose errors no `@catch` field catches is a failure that
    /// names them), or what ended the parts early; `nil` after the last.
    mutating func next() async -> Result<Response<Value>, APIError>? {
        guard !finished else { return nil }
        do throws(APIError) {
            guard result.hasNext, let payload = await payloads.next() else {
                finished = true
                if Task.isCancelled { throw .cancelled }
                if result.hasNext {
                    throw .transport(TransportFailure(
                        kind: .connectionLost, url: answer.response.url,
                        underlying: "the incremental response ended before its last part (hasNext was still true)"))
                }
                return nil
            }
            return try await apply(try payload.get())
        } catch {
            finished = true
            failure = error
            return .failure(error)
        }
    }

    /// What the whole answer gives once the parts are read: the last result, or the error that
    /// ended them, or one naming every error when some part had errors no field catches.
    func outcome() throws(APIError) -> Response<Value> {
        if let failure { throw failure }
        guard errorsCaught else {
            throw .graphQL(GraphQLFailure(
                errors: result.errors, partialData: result.data, statusCode: answer.response.statusCode, operationName: Operation.operationName))
        }
        return latest
    }

    /// One part: merged, checked, written, answered.
    private mutating func apply(_ payload: JSONObject) async throws(APIError) -> Result<Response<Value>, APIError> {
        let span = pipeline.spans.tracer.startSpan("incremental part", context: InstrumentationContext.current ?? .topLevel)
        defer { span.end() }
        let update = try result.apply(payload)
        if span.isRecording { span.attributes["apicore.streamed_items"] = update.streamedItems }
        // Every error so far (the first part's included), when `@catch` fields catch them all: the
        // data so far with each in its place.
        let caught = result.errors.isEmpty ? nil : ErrorCatching.catching(result.errors, in: result.data, selections: Operation.Data.__selections)
        if !result.errors.isEmpty { errorsCaught = caught != nil }
        var records: ResponseRecords?
        let variables = request.operation.coercedVariables
        if let applied = applyPiecewise(
            update, result: result, to: validated, of: Operation.self, variables: variables, policy: answer.cachePolicy, records: &records)
        {
            validated = applied
            if storing, let records { await pipeline.writer.write(records: records.records, expires: records.expires) }
        } else {
            let checked = try pipeline.writer.check(
                .tree(caught ?? result.data), of: request, errors: caught == nil ? update.errors : result.errors, policy: answer.cachePolicy,
                recording: storing, response: answer.response)
            validated = checked.data._data
            if storing { await pipeline.writer.write(checked) }
        }
        latest = try pipeline.respond(request, validated: DataDict(_data: validated), answer: answer, since: start)
        if caught != nil { latest.metadata.caughtErrors = result.errors }
        guard update.errors.isEmpty || caught != nil else {
            return .failure(.graphQL(GraphQLFailure(
                errors: update.errors, partialData: result.data, statusCode: answer.response.statusCode, operationName: Operation.operationName)))
        }
        return .success(latest)
    }

    /// `validated` with the fragments `update` fulfilled validated in place, their records built
    /// in the same walk (in `records`, with a cache, their fields' expiry by the server's
    /// `policy`); `nil` when a fragment cannot be applied on its own.
    private func applyPiecewise(
        _ update: IncrementalResult.Update, result: IncrementalResult, to validated: JSONObject, of: Operation.Type, variables: JSONObject,
        policy: ServerCachePolicy, records: inout ResponseRecords?
    ) -> JSONObject? {
        // A part with errors: the whole data is read again, with the errors' paths left out of the
        // cache; so is a part with streamed list items, which the lists' selections check.
        guard update.errors.isEmpty, update.streamedItems == 0 else { return nil }
        // A part that completes nothing (data for a fragment still pending): nothing changes yet.
        if update.fulfilled.isEmpty { return validated }
        var validated = validated
        var validator = SelectionValidator(variables: variables, recorder: pipeline.writer.records(variables: variables, policy: policy))
        let rootKey = CacheNaming.rootKey(for: Operation.operationType)
        for fragment in update.fulfilled {
            guard let label = fragment.label,
                let target = SelectionPath(
                    fragment.path, in: validated, selections: Operation.Data.__selections, parent: Operation.Data.__parentType, variables: variables),
                let deferred = target.deferred(labelled: label, variables: variables),
                case .object(let arrived)? = result.data.value(at: fragment.path)
            else { return nil }
            var keys: [String] = []
            keys += Selection.fields(of: deferred.selections).map(\.responseKey)
            var object = target.object
            for key in keys where object[key] == nil {
                object[key] = arrived[key]
            }
            // A field the object had already may hold more now: the whole data is read again.
            if keys.contains(where: { target.object[$0] != nil && $0 != "__typename" }) { return nil }
            // The record the fragment's fields go into, named as the object with them is.
            var place: ResponseRecords.Place?
            if let builder = validator.recorder {
                var filled = validated
                guard filled.replaceObject(at: fragment.path.components[...], with: object) else { return nil }
                place = builder.recordKey(of: target, in: filled, rootKey: rootKey).map { builder.place(key: $0, at: fragment.path) }
            }
            do {
                guard try validator.validateArrived(
                    &object, deferral: deferred.deferral, selections: deferred.selections, in: deferred.parent, recordingAt: place)
                else { continue }
            } catch {
                return nil
            }
            guard validated.replaceObject(at: fragment.path.components[...], with: object) else { return nil }
        }
        records = validator.recorder
        return validated
    }
}
