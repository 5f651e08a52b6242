@_spi(Generated) import APICore
import Foundation
@_spi(Generated) import HasuraAPI

/// What the storage of input objects costs (`scripts/bench.sh inputs`): building and serializing
/// large inputs generated from `Interop/hasura`, in rounds that alternate between the shapes.
///
/// - inputs-plain-ns: one `articles_insert_input` (four scalar fields, outside any cycle: stored
///   as it always was, its generated text unchanged) built and serialized to JSON, per input.
/// - inputs-boxed-ratio: the same four fields each kept out of line in `InputIndirect`, as the
///   fields that close a cycle are (`BoxedInsertInput`, the generator's shape for them written
///   out here), over plain: what boxing every field would cost, and what the generator avoids by
///   boxing only the fields in a cycle.
/// - inputs-expression-ns-per-node: a boolean expression (`articles_bool_exp`, whose `_not` and
///   relationships are boxed) of about 40 nodes nested through `_and`, `_or`, `_not` and
///   `author`, built and serialized, per node.
enum InputBenchmark {
    static let count = 100_000

    static func run() async throws {
        var plain: [Double] = []
        var boxed: [Double] = []
        var expression: [Double] = []
        var sink = 0
        for _ in 0..<7 {
            plain.append(measure { sink &+= serializePlain() } / Double(count))
            boxed.append(measure { sink &+= serializeBoxed() } / Double(count))
            expression.append(measure { sink &+= serializeExpressions() } / Double(expressionCount * nodesPerExpression))
        }
        let median = E2EBenchmark.median
        print("inputs-plain-ns: \(String(format: "%.0f", median(plain)))")
        print("inputs-boxed-ns: \(String(format: "%.0f", median(boxed)))")
        print("inputs-boxed-ratio: \(String(format: "%.2f", median(boxed) / median(plain)))")
        print("inputs-expression-ns-per-node: \(String(format: "%.0f", median(expression)))")
        if sink == 42 { print("") }
    }

    /// Nanoseconds `body` takes.
    static func measure(_ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - start)
    }

    static func serializePlain() -> Int {
        var total = 0
        for index in 0..<count {
            let input = HasuraAPI.articles_insert_input(author_id: .some(index & 7), id: .some(index), rating: .some(index % 5), title: "Title")
            total &+= input._inputJSON.map { _ in 1 } ?? 0
        }
        return total
    }

    static func serializeBoxed() -> Int {
        var total = 0
        for index in 0..<count {
            let input = BoxedInsertInput(author_id: .some(index & 7), id: .some(index), rating: .some(index % 5), title: "Title")
            total &+= input._inputJSON.map { _ in 1 } ?? 0
        }
        return total
    }

    static let expressionCount = 2_000
    static let nodesPerExpression = 40

    static func serializeExpressions() -> Int {
        typealias Articles = HasuraAPI.articles_bool_exp
        typealias Authors = HasuraAPI.authors_bool_exp
        var total = 0
        for index in 0..<expressionCount {
            // 40 nodes: 8 branches of 5 (an _and of a title and a _not of an author's name).
            let branches = (0..<8).map { branch in
                Articles(_and: .some([
                    Articles(title: .some(.init(_ilike: .some("%\(branch)%")))),
                    Articles(_not: .some(Articles(author: .some(Authors(name: .some(.init(_eq: .some("\(index)")))))))),
                ]))
            }
            total &+= Articles(_or: .some(branches))._inputJSON.map { _ in 1 } ?? 0
        }
        return total
    }
}

/// `articles_insert_input` with every field boxed, as the generator stores a field that closes a
/// cycle of input objects (the control of `inputs-boxed-ratio`).
struct BoxedInsertInput: InputObject {
    var author_id: GraphQLNullable<Int> {
        get { __author_idStorage.value }
        set { __author_idStorage = InputIndirect(newValue) }
    }
    var id: GraphQLNullable<Int> {
        get { __idStorage.value }
        set { __idStorage = InputIndirect(newValue) }
    }
    var rating: GraphQLNullable<Int> {
        get { __ratingStorage.value }
        set { __ratingStorage = InputIndirect(newValue) }
    }
    var title: GraphQLNullable<String> {
        get { __titleStorage.value }
        set { __titleStorage = InputIndirect(newValue) }
    }
    private var __author_idStorage: InputIndirect<GraphQLNullable<Int>>
    private var __idStorage: InputIndirect<GraphQLNullable<Int>>
    private var __ratingStorage: InputIndirect<GraphQLNullable<Int>>
    private var __titleStorage: InputIndirect<GraphQLNullable<String>>

    init(author_id: GraphQLNullable<Int> = nil, id: GraphQLNullable<Int> = nil, rating: GraphQLNullable<Int> = nil, title: GraphQLNullable<String> = nil) {
        __author_idStorage = InputIndirect(author_id)
        __idStorage = InputIndirect(id)
        __ratingStorage = InputIndirect(rating)
        __titleStorage = InputIndirect(title)
    }

    var __data: InputDict { InputDict(["author_id": author_id, "id": id, "rating": rating, "title": title]) }
}
