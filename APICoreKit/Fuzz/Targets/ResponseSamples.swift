@_spi(Tools) @_spi(Generated) import APICore
import Foundation

extension ResponseReading {
    /// For every operation, with all conditions off and all on, and each abstract type resolved
    /// to its first and its last possible type: a response that validates.
    static var seeds: [Data] {
        var seeds: [Data] = []
        for (index, operation) in operations.enumerated() {
            for bits: UInt8 in [0, 0xFF] {
                for variant in 0..<2 {
                    let variables = variables(for: operation.data, bits: bits)
                    var sample = ResponseSample(variables: variables, variant: variant)
                    let data = sample.object(operation.data.__selections, parent: operation.data.__parentType)
                    let body = JSONSerializer.data(.object(["data": .object(data)]))
                    seeds.append(Data([UInt8(index), bits]) + body)
                }
            }
        }
        return seeds
    }
}

extension GraphQLOperation {
    fileprivate static var data: any SelectionSet.Type { Data.self }
}

/// Builds a valid response from selection-set metadata: every selected field with a value its
/// type accepts, distinct ids, and lists of two.
private struct ResponseSample {
    let variables: JSONObject
    let variant: Int
    var nextID = 1000

    mutating func object(_ selections: [Selection], parent: ParentType) -> JSONObject {
        let types = parent.possibleTypes.sorted()
        var object: JSONObject = ["__typename": .string(variant == 0 ? types.first ?? parent.name : types.last ?? parent.name)]
        fill(&object, selections, parent: parent)
        return object
    }

    private mutating func fill(_ object: inout JSONObject, _ selections: [Selection], parent: ParentType) {
        let typename = object["__typename"]?.stringValue
        for selection in selections {
            switch selection {
            case .field(let field):
                let value = field.name == "id" ? .string(String(nextIDValue())) : value(field.type)
                object[field.responseKey] = Self.merge(object[field.responseKey], value)
            case .inlineFragment(let type):
                if type.__parentType.applies(toTypename: typename, within: parent) { fill(&object, type.__selections, parent: type.__parentType) }
            case .fragment(let type):
                if type.__parentType.applies(toTypename: typename, within: parent) { fill(&object, type.__selections, parent: type.__parentType) }
            case .conditional(let conditions, let nested):
                if conditions.allSatisfy({ $0.isSatisfied(by: variables) }) { fill(&object, nested, parent: parent) }
            case .deferred(_, let nested):
                fill(&object, nested, parent: parent)
            }
        }
    }

    private mutating func nextIDValue() -> Int {
        nextID += 1
        return nextID
    }

    private mutating func value(_ type: OutputType) -> JSONValue {
        switch type {
        case .nonNull(let inner): return value(inner)
        case .list(let element): return .array([value(element), value(element)])
        case .object(let selectionSet): return .object(object(selectionSet.__selections, parent: selectionSet.__parentType))
        case .scalar(let scalar):
            let candidates: [JSONValue] = ["NEWHOPE", 7, 1.72, true, .object([:]), .array([])]
            return candidates.first { (try? scalar.init(_fieldValue: $0)) != nil } ?? .null
        }
    }

    /// The same field selected twice (a fragment and its parent) gets the fields of both.
    private static func merge(_ existing: JSONValue?, _ new: JSONValue) -> JSONValue {
        switch (existing, new) {
        case (.object(let old)?, .object(let added)):
            return .object(old.merging(added) { merge($0, $1) })
        case (.array(let old)?, .array(let added)) where old.count == added.count:
            return .array(zip(old, added).map { merge($0, $1) })
        default:
            return existing ?? new
        }
    }
}
