import APICoreLive
@_spi(Tools) import APICore
import FuzzStarWarsAPI
import Foundation
import StarWarsOperations

/// One text frame, read under both sub-protocols as the subscription connection reads it; the
/// payload of a `next` goes on through response reading for every subscription operation.
enum WebSocketMessages {
    static func run(_ input: Data) {
        let text = String(decoding: input, as: UTF8.self)
        for subprotocol in SubscriptionProtocol.allCases {
            switch SubscriptionWire.parse(text, protocol: subprotocol) {
            case .failure(let invalid):
                check(!invalid.description.isEmpty, "a protocol error without a description")
            case .success(.next(let id, let payload)):
                check(!id.isEmpty, "a next message without an id was accepted")
                for operation in subscriptions {
                    ResponseReading.read(JSONSerializer.data(.object(payload.tree)), as: operation, conditionBits: 0)
                }
            case .success(.error(let id, let errors)):
                check(!id.isEmpty, "an error message without an id was accepted")
                check(errors.allSatisfy { !$0.message.isEmpty }, "a GraphQL error without a message")
            case .success: break
            }
        }
    }

    static let subscriptions: [any GraphQLOperation.Type] = [
        StarWarsOperations.ReviewAddedSubscription.self, CharacterRenamedSubscription.self, CounterSubscription.self,
        CatalogFeedSubscription.self, FuzzStarWarsAPI.ReviewAddedSubscription.self,
    ]

    static var seeds: [Data] {
        [
            #"{"type":"connection_ack"}"#,
            #"{"type":"ping","payload":{"at":1}}"#,
            #"{"type":"pong"}"#,
            #"{"type":"ka"}"#,
            #"{"id":"1","type":"next","payload":{"data":{"reviewAdded":{"stars":5,"commentary":"Great","episode":"JEDI"}}}}"#,
            #"{"id":"2","type":"data","payload":{"data":{"characterRenamed":{"__typename":"Human","id":"1000","name":"Luke"}}}}"#,
            #"{"id":"3","type":"next","payload":{"data":{"counter":3}}}"#,
            #"{"id":"1","type":"error","payload":[{"message":"boom","path":["reviewAdded"]}]}"#,
            #"{"id":"1","type":"complete"}"#,
            #"{"type":"connection_error","payload":{"message":"no"}}"#,
            #"{"id":"4","type":"next","payload":{"data":null,"errors":[{"message":"partial","locations":[{"line":1,"column":2}]}]}}"#,
        ].map { Data($0.utf8) }
    }
}
