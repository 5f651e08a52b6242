// Hand-written in the shape `apicore-codegen` generates, for the engine's tests and benchmarks:
// the StarWars operations that the test server executes.
@_spi(Generated) import APICore

public enum Episode: String, EnumType {
    case newHope = "NEWHOPE"
    case empire = "EMPIRE"
    case jedi = "JEDI"
}

public struct ReviewInput: InputObject {
    public var stars: Int
    public var commentary: GraphQLNullable<String>
    public init(stars: Int, commentary: GraphQLNullable<String> = nil) {
        self.stars = stars
        self.commentary = commentary
    }
    @_spi(Generated) public var __data: InputDict { InputDict(["stars": stars, "commentary": commentary]) }
}

enum Types {
    static let character = ParentType.abstract("Character", possibleTypes: ["Human", "Droid"], keyFields: ["id"])
    static let droid = ParentType.object("Droid", keyFields: ["id"])
    static let human = ParentType.object("Human", keyFields: ["id"])
    static let query = ParentType.object("Query")
    static let mutation = ParentType.object("Mutation")
    static let subscription = ParentType.object("Subscription")
}

/// `query HeroName($episode: Episode) { hero(episode: $episode) { __typename id name ... on Droid { primaryFunction } friends { __typename name } } }`
public struct HeroNameQuery: GraphQLQuery {
    public static let operationName = "HeroName"
    public static let document = """
        query HeroName($episode: Episode) { hero(episode: $episode) { __typename id name ... on Droid { primaryFunction } friends { __typename name } } }
        """
    public var episode: GraphQLNullable<GraphQLEnum<Episode>>
    public init(episode: GraphQLNullable<GraphQLEnum<Episode>> = nil) { self.episode = episode }
    @_spi(Generated) public var __variables: InputDict { InputDict(["episode": episode]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("hero", .object(Hero.self), arguments: ["episode": .variable("episode")]))
        ]
        public var hero: Hero? { __data["hero"] }

        public struct Hero: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = Types.character
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("name", .nonNull(.scalar(String.self)))),
                .inlineFragment(AsDroid.self),
                .field(Field("friends", .list(.object(Friend.self)))),
            ]
            public var id: String { __data["id"] }
            public var name: String { __data["name"] }
            public var friends: [Friend?]? { __data["friends"] }
            public var asDroid: AsDroid? { _asInlineFragment() }

            public struct AsDroid: SelectionSet {
                @_spi(Generated) public let __data: DataDict
                @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
                @_spi(Generated) public static let __parentType = Types.droid
                @_spi(Generated) public static let __selections: [Selection] = [
                    .field(Field("primaryFunction", .scalar(String.self)))
                ]
                public var primaryFunction: String? { __data["primaryFunction"] }
            }

            public struct Friend: SelectionSet {
                @_spi(Generated) public let __data: DataDict
                @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
                @_spi(Generated) public static let __parentType = Types.character
                @_spi(Generated) public static let __selections: [Selection] = [
                    .field(Field("__typename", .nonNull(.scalar(String.self)))),
                    .field(Field("name", .nonNull(.scalar(String.self)))),
                ]
                public var name: String { __data["name"] }
            }
        }
    }
}

/// `query HeroPlain { hero { …HeroName's selections… } }`: `hero` without its argument.
public struct HeroPlainQuery: GraphQLQuery {
    public static let operationName = "HeroPlain"
    public static let document = """
        query HeroPlain { hero { __typename id name ... on Droid { primaryFunction } friends { __typename name } } }
        """
    public init() {}

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [.field(Field("hero", .object(HeroNameQuery.Data.Hero.self)))]
        public var hero: HeroNameQuery.Data.Hero? { __data["hero"] }
    }
}

/// `query HeroDefaulted($episode: Episode = EMPIRE) { hero(episode: $episode) { …HeroName's selections… } }`:
/// left out, the variable is `EMPIRE` on the server and in the cache's keys.
public struct HeroDefaultedQuery: GraphQLQuery {
    public static let operationName = "HeroDefaulted"
    public static let document = """
        query HeroDefaulted($episode: Episode = EMPIRE) { hero(episode: $episode) { __typename id name ... on Droid { primaryFunction } friends { __typename name } } }
        """
    public var episode: GraphQLNullable<GraphQLEnum<Episode>>
    public init(episode: GraphQLNullable<GraphQLEnum<Episode>> = nil) { self.episode = episode }
    @_spi(Generated) public var __variables: InputDict { InputDict(["episode": episode]) }
    @_spi(Generated) public static var __variableDefaults: JSONObject { ["episode": "EMPIRE"] }
    public typealias Data = HeroNameQuery.Data
}

/// `query HeroAndFailing { hero { __typename name } failingField }`: the server fails `failingField`.
public struct HeroAndFailingQuery: GraphQLQuery {
    public static let operationName = "HeroAndFailing"
    public static let document = "query HeroAndFailing { hero { __typename name } failingField }"
    public init() {}

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("hero", .object(Hero.self))),
            .field(Field("failingField", .scalar(String.self))),
        ]
        public var hero: Hero? { __data["hero"] }
        public var failingField: String? { __data["failingField"] }

        public struct Hero: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = Types.character
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("name", .nonNull(.scalar(String.self)))),
            ]
            public var name: String { __data["name"] }
        }
    }
}

/// `query HeroAndCaught { hero { __typename name } failingField @catch }`: the server fails
/// `failingField`, which catches its error (RESULT).
public struct HeroAndCaughtQuery: GraphQLQuery {
    public static let operationName = "HeroAndCaught"
    public static let document = "query HeroAndCaught { hero { __typename name } failingField }"
    public init() {}

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("hero", .object(HeroAndFailingQuery.Data.Hero.self))),
            .field(Field("failingField", .scalar(String.self), catchTo: .result)),
        ]
        public var hero: HeroAndFailingQuery.Data.Hero? { __data["hero"] }
        public var failingField: Result<String?, GraphQLError> { __data["failingField"] }
    }
}

/// `query Protected { protected }`: the server answers `UNAUTHENTICATED`.
public struct ProtectedQuery: GraphQLQuery {
    public static let operationName = "Protected"
    public static let document = "query Protected { protected }"
    public init() {}

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [.field(Field("protected", .scalar(String.self)))]
        public var protected: String? { __data["protected"] }
    }
}

/// `query Invalid { hero { doesNotExist } }`: fails validation on the server.
public struct InvalidQuery: GraphQLQuery {
    public static let operationName = "Invalid"
    public static let document = "query Invalid { hero { doesNotExist } }"
    public init() {}

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [.field(Field("hero", .scalar(JSONValue.self)))]
    }
}

/// `mutation CreateReview($episode: Episode, $review: ReviewInput!) { createReview(episode: $episode, review: $review) { stars commentary episode } }`
public struct CreateReviewMutation: GraphQLMutation {
    public static let operationName = "CreateReview"
    public static let document = """
        mutation CreateReview($episode: Episode, $review: ReviewInput!) { createReview(episode: $episode, review: $review) { stars commentary episode } }
        """
    public var episode: GraphQLNullable<GraphQLEnum<Episode>>
    public var review: ReviewInput
    public init(episode: GraphQLNullable<GraphQLEnum<Episode>>, review: ReviewInput) {
        self.episode = episode
        self.review = review
    }
    @_spi(Generated) public var __variables: InputDict { InputDict(["episode": episode, "review": review]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.mutation
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("createReview", .object(CreateReview.self), arguments: ["episode": .variable("episode"), "review": .variable("review")]))
        ]
        public var createReview: CreateReview? { __data["createReview"] }

        public struct CreateReview: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = ParentType.object("Review")
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("stars", .nonNull(.scalar(Int.self)))),
                .field(Field("commentary", .scalar(String.self))),
                .field(Field("episode", .scalar(GraphQLEnum<Episode>.self))),
            ]
            public var stars: Int { __data["stars"] }
            public var commentary: String? { __data["commentary"] }
            public var episode: GraphQLEnum<Episode>? { __data["episode"] }
        }
    }
}

/// `query Catalog($count: Int!) { catalog(count: $count) { id name description price tags } }`: a large response.
public struct CatalogQuery: GraphQLQuery {
    public static let operationName = "Catalog"
    public static let document = "query Catalog($count: Int!) { catalog(count: $count) { id name description price tags } }"
    public var count: Int
    public init(count: Int) { self.count = count }
    @_spi(Generated) public var __variables: InputDict { InputDict(["count": count]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("catalog", .nonNull(.list(.nonNull(.object(Item.self)))), arguments: ["count": .variable("count")]))
        ]
        public var catalog: [Item] { __data["catalog"] }

        public struct Item: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = ParentType.object("CatalogItem")
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("name", .nonNull(.scalar(String.self)))),
                .field(Field("description", .nonNull(.scalar(String.self)))),
                .field(Field("price", .nonNull(.scalar(Double.self)))),
                .field(Field("tags", .nonNull(.list(.nonNull(.scalar(String.self)))))),
            ]
            public var id: String { __data["id"] }
            public var name: String { __data["name"] }
            public var description: String { __data["description"] }
            public var price: Double { __data["price"] }
            public var tags: [String] { __data["tags"] }
        }
    }
}

/// `query Human($id: ID!) { human(id: $id) { __typename id name homePlanet } }`
public struct HumanQuery: GraphQLQuery {
    public static let operationName = "Human"
    public static let document = "query Human($id: ID!) { human(id: $id) { __typename id name homePlanet } }"
    public var id: String
    public init(id: String) { self.id = id }
    @_spi(Generated) public var __variables: InputDict { InputDict(["id": id]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("human", .object(Human.self), arguments: ["id": .variable("id")]))
        ]
        public var human: Human? { __data["human"] }

        public struct Human: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = Types.human
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("name", .nonNull(.scalar(String.self)))),
                .field(Field("homePlanet", .scalar(String.self))),
            ]
            public var id: String { __data["id"] }
            public var name: String { __data["name"] }
            public var homePlanet: String? { __data["homePlanet"] }
        }
    }
}

/// `query HumanFriendsStream($id: ID!, $initialCount: Int!) { human(id: $id) { __typename id name
/// friends @stream(initialCount: $initialCount) { __typename id name } } }`: the friends after the
/// first `initialCount` arrive one by one.
public struct HumanFriendsStreamQuery: GraphQLQuery {
    public static let operationName = "HumanFriendsStream"
    public static let document = """
        query HumanFriendsStream($id: ID!, $initialCount: Int!) { human(id: $id) { __typename id name \
        friends @stream(initialCount: $initialCount) { __typename id name } } }
        """
    public var id: String
    public var initialCount: Int
    public init(id: String, initialCount: Int = 1) {
        self.id = id
        self.initialCount = initialCount
    }
    @_spi(Generated) public var __variables: InputDict { InputDict(["id": id, "initialCount": initialCount]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("human", .object(Human.self), arguments: ["id": .variable("id")]))
        ]
        public var human: Human? { __data["human"] }

        public struct Human: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = Types.human
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("name", .nonNull(.scalar(String.self)))),
                .field(Field("friends", .list(.object(Friend.self)))),
            ]
            public var id: String { __data["id"] }
            public var name: String { __data["name"] }
            public var friends: [Friend?]? { __data["friends"] }

            public struct Friend: SelectionSet {
                @_spi(Generated) public let __data: DataDict
                @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
                @_spi(Generated) public static let __parentType = Types.character
                @_spi(Generated) public static let __selections: [Selection] = [
                    .field(Field("__typename", .nonNull(.scalar(String.self)))),
                    .field(Field("id", .nonNull(.scalar(String.self)))),
                    .field(Field("name", .nonNull(.scalar(String.self)))),
                ]
                public var id: String { __data["id"] }
                public var name: String { __data["name"] }
            }
        }
    }
}

/// `query HumanByKey($id: ID!) { human(id: $id) { __typename id name } }` with
/// `extend type Query @fieldPolicy(forField: "human", keyArgs: "id")`: a read finds `Human:<id>`
/// when the cache has not stored `human(id:)` itself.
public struct HumanByKeyQuery: GraphQLQuery {
    public static let operationName = "HumanByKey"
    public static let document = "query HumanByKey($id: ID!) { human(id: $id) { __typename id name } }"
    public var id: String
    public init(id: String) { self.id = id }
    @_spi(Generated) public var __variables: InputDict { InputDict(["id": id]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("human", .object(Human.self), arguments: ["id": .variable("id")], keyArgs: ["id"]))
        ]
        public var human: Human? { __data["human"] }

        public struct Human: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = Types.human
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("name", .nonNull(.scalar(String.self)))),
            ]
            public var id: String { __data["id"] }
            public var name: String { __data["name"] }
        }
    }
}

/// `query HumanName($id: ID!) @apollo_client_ios_localCacheMutation { human(id: $id) { __typename id name } }`:
/// read and changed in the cache only.
public struct HumanNameLocalCacheMutation: LocalCacheMutation {
    public static let operationType = GraphQLOperationType.query
    public static let operationName = "HumanName"
    public var id: String
    public init(id: String) { self.id = id }
    @_spi(Generated) public var __variables: InputDict { InputDict(["id": id]) }

    public struct Data: MutableRootSelectionSet {
        @_spi(Generated) public var __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("human", .object(Human.self), arguments: ["id": .variable("id")]))
        ]
        public var human: Human? {
            get { __data["human"] }
            set { __data["human"] = newValue }
        }

        public struct Human: MutableSelectionSet {
            @_spi(Generated) public var __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = Types.human
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("name", .nonNull(.scalar(String.self)))),
            ]
            public var id: String {
                get { __data["id"] }
                set { __data["id"] = newValue }
            }
            public var name: String {
                get { __data["name"] }
                set { __data["name"] = newValue }
            }
        }
    }
}

/// `fragment CharacterName on Character @apollo_client_ios_localCacheMutation { __typename id name }`:
/// a character's name, changed in the cache only.
public struct CharacterNameFragment: Fragment, MutableSelectionSet {
    @_spi(Generated) public static let fragmentDefinition = "fragment CharacterName on Character { __typename id name }"
    @_spi(Generated) public var __data: DataDict
    @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
    @_spi(Generated) public static let __parentType = Types.character
    @_spi(Generated) public static let __selections: [Selection] = [
        .field(Field("__typename", .nonNull(.scalar(String.self)))),
        .field(Field("id", .nonNull(.scalar(String.self)))),
        .field(Field("name", .nonNull(.scalar(String.self)))),
    ]
    public var id: String {
        get { __data["id"] }
        set { __data["id"] = newValue }
    }
    public var name: String {
        get { __data["name"] }
        set { __data["name"] = newValue }
    }
}

/// `query CharacterPage($first: Int, $after: String, $last: Int, $before: String) { characterPage(first: $first, after: $after, last: $last, before: $before) { pageInfo { startCursor endCursor hasNextPage hasPreviousPage } nodes { __typename id name } } }`,
/// with `characterPage` a connection field (`@typePolicy(connectionFields: "characterPage")`).
public struct CharacterPageQuery: GraphQLQuery {
    public static let operationName = "CharacterPage"
    public static let document = "query CharacterPage($first: Int, $after: String, $last: Int, $before: String) { characterPage(first: $first, after: $after, last: $last, before: $before) { pageInfo { startCursor endCursor hasNextPage hasPreviousPage } nodes { __typename id name } } }"
    public var first: GraphQLNullable<Int>
    public var after: GraphQLNullable<String>
    public var last: GraphQLNullable<Int>
    public var before: GraphQLNullable<String>
    public init(first: GraphQLNullable<Int> = nil, after: GraphQLNullable<String> = nil, last: GraphQLNullable<Int> = nil, before: GraphQLNullable<String> = nil) {
        self.first = first
        self.after = after
        self.last = last
        self.before = before
    }
    @_spi(Generated) public var __variables: InputDict { InputDict(["first": first, "after": after, "last": last, "before": before]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field(
                "characterPage", .nonNull(.object(CharacterPage.self)),
                arguments: ["first": .variable("first"), "after": .variable("after"), "last": .variable("last"), "before": .variable("before")],
                pagination: ["first", "after", "last", "before"]))
        ]
        public var characterPage: CharacterPage { __data["characterPage"] }

        public struct CharacterPage: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = ParentType.object("CharacterConnection")
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("pageInfo", .nonNull(.object(PageInfo.self)))),
                .field(Field("nodes", .nonNull(.list(.nonNull(.object(Node.self)))))),
            ]
            public var pageInfo: PageInfo { __data["pageInfo"] }
            public var nodes: [Node] { __data["nodes"] }

            public struct PageInfo: SelectionSet {
                @_spi(Generated) public let __data: DataDict
                @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
                @_spi(Generated) public static let __parentType = ParentType.object("PageInfo")
                @_spi(Generated) public static let __selections: [Selection] = [
                    .field(Field("startCursor", .scalar(String.self))),
                    .field(Field("endCursor", .scalar(String.self))),
                    .field(Field("hasNextPage", .nonNull(.scalar(Bool.self)))),
                    .field(Field("hasPreviousPage", .nonNull(.scalar(Bool.self)))),
                ]
                public var startCursor: String? { __data["startCursor"] }
                public var endCursor: String? { __data["endCursor"] }
                public var hasNextPage: Bool { __data["hasNextPage"] }
                public var hasPreviousPage: Bool { __data["hasPreviousPage"] }
            }

            public struct Node: SelectionSet {
                @_spi(Generated) public let __data: DataDict
                @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
                @_spi(Generated) public static let __parentType = Types.character
                @_spi(Generated) public static let __selections: [Selection] = [
                    .field(Field("__typename", .nonNull(.scalar(String.self)))),
                    .field(Field("id", .nonNull(.scalar(String.self)))),
                    .field(Field("name", .nonNull(.scalar(String.self)))),
                ]
                public var id: String { __data["id"] }
                public var name: String { __data["name"] }
            }
        }
    }
}

/// `query CharacterList($offset: Int, $limit: Int!) { characterList(offset: $offset, limit: $limit) { __typename id name } }`,
/// `characterList` marked as a paged field whose value is the list (offset paging).
public struct CharacterListQuery: GraphQLQuery {
    public static let operationName = "CharacterList"
    public static let document = "query CharacterList($offset: Int, $limit: Int!) { characterList(offset: $offset, limit: $limit) { __typename id name } }"
    public var offset: GraphQLNullable<Int>
    public var limit: Int
    public init(offset: GraphQLNullable<Int> = nil, limit: Int) {
        self.offset = offset
        self.limit = limit
    }
    @_spi(Generated) public var __variables: InputDict { InputDict(["offset": offset, "limit": limit]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field(
                "characterList", .nonNull(.list(.nonNull(.object(CharacterPageQuery.Data.CharacterPage.Node.self)))),
                arguments: ["offset": .variable("offset"), "limit": .variable("limit")], pagination: ["offset", "limit"]))
        ]
        public var characterList: [CharacterPageQuery.Data.CharacterPage.Node] { __data["characterList"] }
    }
}

/// `CharacterPage` without the connection policy: each page is cached apart, as a list query
/// whose schema does not mark it.
public struct CharacterPagePlainQuery: GraphQLQuery {
    public static let operationName = "CharacterPage"
    public static let document = CharacterPageQuery.document
    public var first: GraphQLNullable<Int>
    public var after: GraphQLNullable<String>
    public var last: GraphQLNullable<Int>
    public var before: GraphQLNullable<String>
    public init(first: GraphQLNullable<Int> = nil, after: GraphQLNullable<String> = nil, last: GraphQLNullable<Int> = nil, before: GraphQLNullable<String> = nil) {
        self.first = first
        self.after = after
        self.last = last
        self.before = before
    }
    @_spi(Generated) public var __variables: InputDict { InputDict(["first": first, "after": after, "last": last, "before": before]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field(
                "characterPage", .nonNull(.object(CharacterPageQuery.Data.CharacterPage.self)),
                arguments: ["first": .variable("first"), "after": .variable("after"), "last": .variable("last"), "before": .variable("before")]))
        ]
        public var characterPage: CharacterPageQuery.Data.CharacterPage { __data["characterPage"] }
    }
}

/// `query CatalogPage($first: Int!, $after: String) { catalogPage(first: $first, after: $after) { pageInfo { endCursor hasNextPage } nodes { __typename id name price } } }`;
/// `connection` marks `catalogPage` as a connection field (its pages merged in the cache) or not.
public struct CatalogPageQuery: GraphQLQuery {
    public static let operationName = "CatalogPage"
    public static let document = "query CatalogPage($first: Int!, $after: String) { catalogPage(first: $first, after: $after) { pageInfo { endCursor hasNextPage } nodes { __typename id name price } } }"
    public var first: Int
    public var after: GraphQLNullable<String>
    public init(first: Int, after: GraphQLNullable<String> = nil) {
        self.first = first
        self.after = after
    }
    @_spi(Generated) public var __variables: InputDict { InputDict(["first": first, "after": after]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field(
                "catalogPage", .nonNull(.object(CatalogPage.self)), arguments: ["first": .variable("first"), "after": .variable("after")],
                pagination: ["first", "after"]))
        ]
        public var catalogPage: CatalogPage { __data["catalogPage"] }

        public struct CatalogPage: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = ParentType.object("CatalogConnection")
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("pageInfo", .nonNull(.object(PageInfo.self)))),
                .field(Field("nodes", .nonNull(.list(.nonNull(.object(Node.self)))))),
            ]
            public var pageInfo: PageInfo { __data["pageInfo"] }
            public var nodes: [Node] { __data["nodes"] }

            public struct PageInfo: SelectionSet {
                @_spi(Generated) public let __data: DataDict
                @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
                @_spi(Generated) public static let __parentType = ParentType.object("PageInfo")
                @_spi(Generated) public static let __selections: [Selection] = [
                    .field(Field("endCursor", .scalar(String.self))),
                    .field(Field("hasNextPage", .nonNull(.scalar(Bool.self)))),
                ]
                public var endCursor: String? { __data["endCursor"] }
                public var hasNextPage: Bool { __data["hasNextPage"] }
            }

            public struct Node: SelectionSet {
                @_spi(Generated) public let __data: DataDict
                @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
                @_spi(Generated) public static let __parentType = ParentType.object("CatalogItem", keyFields: ["id"])
                @_spi(Generated) public static let __selections: [Selection] = [
                    .field(Field("__typename", .nonNull(.scalar(String.self)))),
                    .field(Field("id", .nonNull(.scalar(String.self)))),
                    .field(Field("name", .nonNull(.scalar(String.self)))),
                    .field(Field("price", .nonNull(.scalar(Double.self)))),
                ]
                public var id: String { __data["id"] }
                public var name: String { __data["name"] }
            }
        }
    }
}

/// `CatalogPage` without the connection policy: each page cached apart.
public struct CatalogPagePlainQuery: GraphQLQuery {
    public static let operationName = "CatalogPage"
    public static let document = CatalogPageQuery.document
    public var first: Int
    public var after: GraphQLNullable<String>
    public init(first: Int, after: GraphQLNullable<String> = nil) {
        self.first = first
        self.after = after
    }
    @_spi(Generated) public var __variables: InputDict { InputDict(["first": first, "after": after]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("catalogPage", .nonNull(.object(CatalogPageQuery.Data.CatalogPage.self)), arguments: ["first": .variable("first"), "after": .variable("after")]))
        ]
        public var catalogPage: CatalogPageQuery.Data.CatalogPage { __data["catalogPage"] }
    }
}

/// `mutation RenameCharacter($id: ID!, $name: String!) { renameCharacter(id: $id, name: $name) { __typename id name } }`
public struct RenameCharacterMutation: GraphQLMutation {
    public static let operationName = "RenameCharacter"
    public static let document = "mutation RenameCharacter($id: ID!, $name: String!) { renameCharacter(id: $id, name: $name) { __typename id name } }"
    public var id: String
    public var name: String
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
    @_spi(Generated) public var __variables: InputDict { InputDict(["id": id, "name": name]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.mutation
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("renameCharacter", .object(Character.self), arguments: ["id": .variable("id"), "name": .variable("name")]))
        ]
        public var renameCharacter: Character? { __data["renameCharacter"] }

        public struct Character: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = Types.character
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("name", .nonNull(.scalar(String.self)))),
            ]
            public var name: String { __data["name"] }
        }
    }
}

/// `input AttachmentInput { label: String!, attachment: Upload }`
public struct AttachmentInput: InputObject {
    public var label: String
    public var attachment: GraphQLNullable<GraphQLFile>
    public init(label: String, attachment: GraphQLNullable<GraphQLFile> = nil) {
        self.label = label
        self.attachment = attachment
    }
    @_spi(Generated) public var __data: InputDict { InputDict(["label": label, "attachment": attachment]) }
}

/// `mutation UploadFiles($files: [Upload!]!, $input: AttachmentInput!) { upload(files: $files, input: $input) { path filename size } }`
public struct UploadFilesMutation: GraphQLMutation {
    public static let operationName = "UploadFiles"
    public static let document = "mutation UploadFiles($files: [Upload!]!, $input: AttachmentInput!) { upload(files: $files, input: $input) { __typename path filename size } }"
    public var files: [GraphQLFile]
    public var input: AttachmentInput
    public init(files: [GraphQLFile], input: AttachmentInput) {
        self.files = files
        self.input = input
    }
    @_spi(Generated) public var __variables: InputDict { InputDict(["files": files, "input": input]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.mutation
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("upload", .nonNull(.list(.nonNull(.object(Upload.self)))), arguments: ["files": .variable("files"), "input": .variable("input")]))
        ]
        public var upload: [Upload] { __data["upload"] }

        public struct Upload: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = ParentType.object("UploadedFile")
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("path", .nonNull(.scalar(String.self)))),
                .field(Field("filename", .nonNull(.scalar(String.self)))),
                .field(Field("size", .nonNull(.scalar(Int.self)))),
            ]
            public var path: String { __data["path"] }
            public var filename: String { __data["filename"] }
            public var size: Int { __data["size"] }
        }
    }
}

/// `subscription ReviewAdded($episode: Episode) { reviewAdded(episode: $episode) { stars commentary episode } }`:
/// one event per `createReview`.
public struct ReviewAddedSubscription: GraphQLSubscription {
    public static let operationName = "ReviewAdded"
    public static let document = """
        subscription ReviewAdded($episode: Episode) { reviewAdded(episode: $episode) { stars commentary episode } }
        """
    public var episode: GraphQLNullable<GraphQLEnum<Episode>>
    public init(episode: GraphQLNullable<GraphQLEnum<Episode>> = nil) { self.episode = episode }
    @_spi(Generated) public var __variables: InputDict { InputDict(["episode": episode]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.subscription
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("reviewAdded", .object(CreateReviewMutation.Data.CreateReview.self), arguments: ["episode": .variable("episode")]))
        ]
        public var reviewAdded: CreateReviewMutation.Data.CreateReview? { __data["reviewAdded"] }
    }
}

/// `subscription CharacterRenamed { characterRenamed { __typename id name } }`: one event per
/// `renameCharacter`.
public struct CharacterRenamedSubscription: GraphQLSubscription {
    public static let operationName = "CharacterRenamed"
    public static let document = "subscription CharacterRenamed { characterRenamed { __typename id name } }"
    public init() {}

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.subscription
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("characterRenamed", .nonNull(.object(RenameCharacterMutation.Data.Character.self))))
        ]
        public var characterRenamed: RenameCharacterMutation.Data.Character { __data["characterRenamed"] }
    }
}

/// `subscription Counter($to: Int!) { counter(to: $to) }`: the numbers 1 to `to`, then complete.
public struct CounterSubscription: GraphQLSubscription {
    public static let operationName = "Counter"
    public static let document = "subscription Counter($to: Int!) { counter(to: $to) }"
    public var to: Int
    public init(to: Int) { self.to = to }
    @_spi(Generated) public var __variables: InputDict { InputDict(["to": to]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.subscription
        @_spi(Generated) public static let __selections: [Selection] = [.field(Field("counter", .nonNull(.scalar(Int.self)), arguments: ["to": .variable("to")]))]
        public var counter: Int { __data["counter"] }
    }
}

/// `subscription CatalogFeed { catalogFeed { id name description price tags } }`: the benchmark's
/// subscription; the test server answers it with canned frames. Its item is keyed by `id` (as a
/// schema's `@key` would make it), so that a caching client writes each event's item into the
/// store.
public struct CatalogFeedSubscription: GraphQLSubscription {
    public static let operationName = "CatalogFeed"
    public static let document = "subscription CatalogFeed { catalogFeed { id name description price tags } }"
    public init() {}

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.subscription
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("catalogFeed", .nonNull(.object(CatalogFeed.self))))
        ]
        public var catalogFeed: CatalogFeed { __data["catalogFeed"] }

        public struct CatalogFeed: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = ParentType.object("CatalogItem", keyFields: ["id"])
            @_spi(Generated) public static let __selections = CatalogQuery.Data.Item.__selections
            public var id: String { __data["id"] }
            public var name: String { __data["name"] }
            public var price: Double { __data["price"] }
        }
    }
}

/// `query HeroConditional($withName: Boolean!, $skipFriends: Boolean!) { hero { __typename name @include(if: $withName) friends @skip(if: $skipFriends) { __typename name } ... on Droid @include(if: $withName) { primaryFunction } } }`:
/// every field of `hero` but its type name depends on a variable.
public struct HeroConditionalQuery: GraphQLQuery {
    public static let operationName = "HeroConditional"
    public static let document = """
        query HeroConditional($withName: Boolean!, $skipFriends: Boolean!) { hero { __typename name @include(if: $withName) friends @skip(if: $skipFriends) { __typename name } ... on Droid @include(if: $withName) { primaryFunction } } }
        """
    public var withName: Bool
    public var skipFriends: Bool
    public init(withName: Bool, skipFriends: Bool) {
        self.withName = withName
        self.skipFriends = skipFriends
    }
    @_spi(Generated) public var __variables: InputDict { InputDict(["withName": withName, "skipFriends": skipFriends]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [.field(Field("hero", .object(Hero.self)))]
        public var hero: Hero? { __data["hero"] }

        public struct Hero: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = Types.character
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .conditional([.include(if: "withName")], [.field(Field("name", .nonNull(.scalar(String.self))))]),
                .conditional([.skip(if: "skipFriends")], [.field(Field("friends", .list(.object(Friend.self))))]),
                .inlineFragment(AsDroid.self),
            ]
            public var name: String? { __data["name"] }
            public var friends: [Friend?]? { __data["friends"] }
            public var asDroid: AsDroid? { _asInlineFragment() }

            public struct AsDroid: SelectionSet {
                @_spi(Generated) public let __data: DataDict
                @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
                @_spi(Generated) public static let __parentType = Types.droid
                @_spi(Generated) public static let __selections: [Selection] = [
                    .field(Field("__typename", .nonNull(.scalar(String.self)))),
                    .conditional([.include(if: "withName")], [.field(Field("name", .nonNull(.scalar(String.self))))]),
                    .conditional([.skip(if: "skipFriends")], [.field(Field("friends", .list(.object(Friend.self))))]),
                    .conditional([.include(if: "withName")], [.field(Field("primaryFunction", .scalar(String.self)))]),
                ]
                public var name: String? { __data["name"] }
                public var friends: [Friend?]? { __data["friends"] }
                public var primaryFunction: String? { __data["primaryFunction"] }
            }

            public struct Friend: SelectionSet {
                @_spi(Generated) public let __data: DataDict
                @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
                @_spi(Generated) public static let __parentType = Types.character
                @_spi(Generated) public static let __selections: [Selection] = [
                    .field(Field("__typename", .nonNull(.scalar(String.self)))),
                    .field(Field("name", .nonNull(.scalar(String.self)))),
                ]
                public var name: String { __data["name"] }
            }
        }
    }
}

/// `@defer`, nested and on list items:
/// `query HeroDeferred($episode: Episode, $withFriends: Boolean!) { hero(episode: $episode) { __typename id name ... on Character @defer(label: "friends", if: $withFriends) { friends { __typename id name ... on Droid @defer(label: "function") { primaryFunction } } } } }`
public struct HeroDeferredQuery: GraphQLQuery {
    public static let operationName = "HeroDeferred"
    public static let document = """
        query HeroDeferred($episode: Episode, $withFriends: Boolean!) { hero(episode: $episode) { __typename id name ... on Character @defer(label: "friends", if: $withFriends) { friends { __typename id name ... on Droid @defer(label: "function") { primaryFunction } } } } }
        """
    public var episode: GraphQLNullable<GraphQLEnum<Episode>>
    public var withFriends: Bool
    public init(episode: GraphQLNullable<GraphQLEnum<Episode>> = nil, withFriends: Bool = true) {
        self.episode = episode
        self.withFriends = withFriends
    }
    @_spi(Generated) public var __variables: InputDict { InputDict(["episode": episode, "withFriends": withFriends]) }

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("hero", .object(Hero.self), arguments: ["episode": .variable("episode")]))
        ]
        public var hero: Hero? { __data["hero"] }

        public struct Hero: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = Types.character
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("__typename", .nonNull(.scalar(String.self)))),
                .field(Field("id", .nonNull(.scalar(String.self)))),
                .field(Field("name", .nonNull(.scalar(String.self)))),
                .deferred(Deferral("friends", label: "friends", if: .include(if: "withFriends")), [.inlineFragment(Friends.self)]),
            ]
            public var id: String { __data["id"] }
            public var name: String { __data["name"] }
            /// The deferred `friends` fragment.
            public var friendsFragment: Deferred<Friends> { _deferred("friends") }

            public struct Friends: SelectionSet {
                @_spi(Generated) public let __data: DataDict
                @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
                @_spi(Generated) public static let __parentType = Types.character
                @_spi(Generated) public static let __selections: [Selection] = [.field(Field("friends", .list(.object(Friend.self))))]
                public var friends: [Friend?]? { __data["friends"] }
            }

            public struct Friend: SelectionSet {
                @_spi(Generated) public let __data: DataDict
                @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
                @_spi(Generated) public static let __parentType = Types.character
                @_spi(Generated) public static let __selections: [Selection] = [
                    .field(Field("__typename", .nonNull(.scalar(String.self)))),
                    .field(Field("id", .nonNull(.scalar(String.self)))),
                    .field(Field("name", .nonNull(.scalar(String.self)))),
                    .deferred(Deferral("function", label: "function"), [.inlineFragment(AsDroid.self)]),
                ]
                public var id: String { __data["id"] }
                public var name: String { __data["name"] }
                /// The deferred droid fragment; `nil` for a friend that is not a droid.
                public var droidDetails: Deferred<AsDroid>? {
                    guard let typename = __typename, AsDroid.__parentType.matches(typename: typename) else { return nil }
                    return _deferred("function")
                }

                public struct AsDroid: SelectionSet {
                    @_spi(Generated) public let __data: DataDict
                    @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
                    @_spi(Generated) public static let __parentType = Types.droid
                    @_spi(Generated) public static let __selections: [Selection] = [.field(Field("primaryFunction", .scalar(String.self)))]
                    public var primaryFunction: String? { __data["primaryFunction"] }
                }
            }
        }
    }
}

/// A field error inside a deferred fragment:
/// `query DeferredFailing { hero { __typename name } ... @defer(label: "failing") { failingField } }`.
public struct DeferredFailingQuery: GraphQLQuery {
    public static let operationName = "DeferredFailing"
    public static let document = #"query DeferredFailing { hero { __typename name } ... @defer(label: "failing") { failingField } }"#
    public init() {}

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("hero", .object(HeroAndFailingQuery.Data.Hero.self))),
            .deferred(Deferral("failing", label: "failing"), [.inlineFragment(Failing.self)]),
        ]
        public var hero: HeroAndFailingQuery.Data.Hero? { __data["hero"] }
        public var failing: Deferred<Failing> { _deferred("failing") }

        public struct Failing: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = Types.query
            @_spi(Generated) public static let __selections: [Selection] = [.field(Field("failingField", .scalar(String.self)))]
            public var failingField: String? { __data["failingField"] }
        }
    }
}

/// `DeferredFailing` with the deferred field caught:
/// `query DeferredCaught { hero { __typename name } ... @defer(label: "failing") { failingField @catch(to: NULL) } }`.
public struct DeferredCaughtQuery: GraphQLQuery {
    public static let operationName = "DeferredCaught"
    public static let document = #"query DeferredCaught { hero { __typename name } ... @defer(label: "failing") { failingField } }"#
    public init() {}

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("hero", .object(HeroAndFailingQuery.Data.Hero.self))),
            .deferred(Deferral("failing", label: "failing"), [.inlineFragment(Failing.self)]),
        ]
        public var hero: HeroAndFailingQuery.Data.Hero? { __data["hero"] }
        public var failing: Deferred<Failing> { _deferred("failing") }

        public struct Failing: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = Types.query
            @_spi(Generated) public static let __selections: [Selection] = [.field(Field("failingField", .scalar(String.self), catchTo: .null))]
            public var failingField: String? { __data["failingField"] }
        }
    }
}

/// Caught errors in the first part and in an increment:
/// `query CaughtTwice { failingField @catch ... @defer(label: "again") { again: failingField @catch(to: NULL) } }`.
public struct CaughtTwiceQuery: GraphQLQuery {
    public static let operationName = "CaughtTwice"
    public static let document = #"query CaughtTwice { failingField ... @defer(label: "again") { again: failingField } }"#
    public init() {}

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections: [Selection] = [
            .field(Field("failingField", .scalar(String.self), catchTo: .result)),
            .deferred(Deferral("again", label: "again"), [.inlineFragment(Again.self)]),
        ]
        public var failingField: Result<String?, GraphQLError> { __data["failingField"] }
        public var again: Deferred<Again> { _deferred("again") }

        public struct Again: SelectionSet {
            @_spi(Generated) public let __data: DataDict
            @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
            @_spi(Generated) public static let __parentType = Types.query
            @_spi(Generated) public static let __selections: [Selection] = [
                .field(Field("failingField", alias: "again", .scalar(String.self), catchTo: .null)),
            ]
            public var again: String? { __data["again"] }
        }
    }
}

/// The catalog in eleven parts of `CatalogParts.itemsPerPart` items (`part0` … `part10`): for the
/// `@defer` benchmark, once with parts 1 to 10 deferred, once whole.
public enum CatalogParts {
    public static let itemsPerPart = 24
    public static let deferredParts = 10
    static let fields = "{ id name description price tags }"

    static func document(name: String, deferred: Bool) -> String {
        var selections = ["part0: catalog(count: \(itemsPerPart)) \(fields)"]
        for index in 1...deferredParts {
            let field = "part\(index): catalog(count: \(itemsPerPart)) \(fields)"
            selections.append(deferred ? #"... @defer(label: "part\#(index)") { \#(field) }"# : field)
        }
        return "query \(name) { " + selections.joined(separator: " ") + " }"
    }

    static func selections(deferred: Bool) -> [Selection] {
        func part(_ index: Int) -> Selection {
            .field(Field(
                "catalog", alias: "part\(index)", .nonNull(.list(.nonNull(.object(CatalogQuery.Data.Item.self)))),
                arguments: ["count": .value(.int(itemsPerPart))]))
        }
        return [part(0)] + (1...deferredParts).map { index in
            deferred ? .deferred(Deferral("part\(index)", label: "part\(index)"), [part(index)]) : part(index)
        }
    }

    /// The items of every part that has arrived.
    static func items(_ data: DataDict) -> [CatalogQuery.Data.Item] {
        (0...deferredParts).flatMap { index -> [CatalogQuery.Data.Item] in
            guard data._data["part\(index)"] != nil else { return [] }
            return data["part\(index)"]
        }
    }
}

/// ``CatalogParts`` with parts 1 to 10 deferred.
public struct CatalogDeferredQuery: GraphQLQuery {
    public static let operationName = "CatalogDeferred"
    public static let document = CatalogParts.document(name: operationName, deferred: true)
    public init() {}

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections = CatalogParts.selections(deferred: true)
        /// The items of the parts that have arrived.
        public var items: [CatalogQuery.Data.Item] { CatalogParts.items(__data) }
    }
}

/// ``CatalogParts`` answered whole.
public struct CatalogWholeQuery: GraphQLQuery {
    public static let operationName = "CatalogWhole"
    public static let document = CatalogParts.document(name: operationName, deferred: false)
    public init() {}

    public struct Data: RootSelectionSet {
        @_spi(Generated) public let __data: DataDict
        @_spi(Generated) public init(_dataDict: DataDict) { __data = _dataDict }
        @_spi(Generated) public static let __parentType = Types.query
        @_spi(Generated) public static let __selections = CatalogParts.selections(deferred: false)
        /// Every item.
        public var items: [CatalogQuery.Data.Item] { CatalogParts.items(__data) }
    }
}
