import GraphQL

/// The parts of a type definition or a type extension, whichever of the twelve the parser made
/// it: the one place the validation rules tell them apart.
struct TypeParts {
    enum Kind: String {
        case scalar, object, interface, union, enumeration = "enum", inputObject = "input object"
    }

    let name: Name
    let kind: Kind
    let isExtension: Bool
    /// Where it starts (an extension at `extend`).
    let location: Location?
    var directives: [Directive] = []
    var fields: [GraphQL.FieldDefinition] = []
    var interfaces: [NamedType] = []
    var members: [NamedType] = []
    var values: [EnumValueDefinition] = []
    var inputFields: [InputValueDefinition] = []

    /// `nil` for anything but a type definition or extension.
    init?(_ definition: Definition) {
        switch definition {
        case let d as ScalarTypeDefinition: self.init(d.name, .scalar, false, d.loc, directives: d.directives)
        case let e as ScalarExtensionDefinition: self.init(e.definition.name, .scalar, true, e.loc, directives: e.directives)
        case let d as ObjectTypeDefinition: self.init(object: d, false, d.loc)
        case let e as TypeExtensionDefinition: self.init(object: e.definition, true, e.loc)
        case let d as InterfaceTypeDefinition: self.init(interface: d, false, d.loc)
        case let e as InterfaceExtensionDefinition: self.init(interface: e.definition, true, e.loc)
        case let d as UnionTypeDefinition: self.init(union: d, false, d.loc)
        case let e as UnionExtensionDefinition: self.init(union: e.definition, true, e.loc)
        case let d as EnumTypeDefinition: self.init(enumeration: d, false, d.loc)
        case let e as EnumExtensionDefinition: self.init(enumeration: e.definition, true, e.loc)
        case let d as InputObjectTypeDefinition: self.init(input: d, false, d.loc)
        case let e as InputObjectExtensionDefinition: self.init(input: e.definition, true, e.loc)
        default: return nil
        }
    }

    private init(_ name: Name, _ kind: Kind, _ isExtension: Bool, _ location: Location?, directives: [Directive]) {
        self.name = name
        self.kind = kind
        self.isExtension = isExtension
        self.location = location
        self.directives = directives
    }

    private init(object: ObjectTypeDefinition, _ isExtension: Bool, _ location: Location?) {
        self.init(object.name, .object, isExtension, location, directives: object.directives)
        fields = object.fields
        interfaces = object.interfaces
    }

    private init(interface: InterfaceTypeDefinition, _ isExtension: Bool, _ location: Location?) {
        self.init(interface.name, .interface, isExtension, location, directives: interface.directives)
        fields = interface.fields
        interfaces = interface.interfaces
    }

    private init(union: UnionTypeDefinition, _ isExtension: Bool, _ location: Location?) {
        self.init(union.name, .union, isExtension, location, directives: union.directives)
        members = union.types
    }

    private init(enumeration: EnumTypeDefinition, _ isExtension: Bool, _ location: Location?) {
        self.init(enumeration.name, .enumeration, isExtension, location, directives: enumeration.directives)
        values = enumeration.values
    }

    private init(input: InputObjectTypeDefinition, _ isExtension: Bool, _ location: Location?) {
        self.init(input.name, .inputObject, isExtension, location, directives: input.directives)
        inputFields = input.fields
    }

    /// The names of its fields or input fields.
    var fieldNames: [Name] { fields.map(\.name) + inputFields.map(\.name) }

    /// Its arguments and input fields.
    var inputValues: [InputValueDefinition] { fields.flatMap(\.arguments) + inputFields }

    /// Every type it names: interfaces, union members, field, argument and input field types.
    var namedTypes: [NamedType] {
        var named: [NamedType] = []
        forEachNamedType { named.append($0) }
        return named
    }

    /// Calls `body` with every type it names, in the order written, making no array of them.
    func forEachNamedType(_ body: (NamedType) -> Void) {
        for interface in interfaces { body(interface) }
        for member in members { body(member) }
        for field in fields {
            if let type = Self.named(field.type) { body(type) }
            for argument in field.arguments { if let type = Self.named(argument.type) { body(type) } }
        }
        for field in inputFields { if let type = Self.named(field.type) { body(type) } }
    }

    /// The named type inside list and non-null wrappers.
    static func named(_ type: Type) -> NamedType? {
        switch type {
        case let named as NamedType: return named
        case let list as ListType: return self.named(list.type)
        case let nonNull as NonNullType: return self.named(nonNull.type)
        default: return nil
        }
    }
}
