/// How GraphQL types are spelled in Swift: leaves (scalars, enums, custom scalars, input objects),
/// outputs with their nested selection-set types, metadata, and inputs. Pure: which types are
/// used is decided by `UsedTypes`, not here.
struct TypeMapping {
    let schema: SchemaModel
    /// The generated schema namespace (`StarWarsAPI`).
    let namespace: String
    /// Types the shared schema module defines, and its namespace, when the config names one.
    let sharedTypes: Set<String>
    let sharedNamespace: String?
    /// `schemaCustomization.customTypeNames`.
    var customNames: [String: CodegenConfiguration.CustomTypeName] = [:]

    /// The Swift name of a schema type: its custom name, else its GraphQL name (with a trailing
    /// `_` where Swift, generated code or the namespace has it: see `Naming.swift`).
    func swiftName(_ name: String) -> String {
        customNames[name]?.name ?? SwiftNames.typeName(name, avoiding: [namespace], reserved: SwiftNames.reservedInNamespace)
    }

    /// The name of an object type's mock (`Mock.Droid`): its GraphQL name, as safe as `swiftName`.
    func mockName(_ name: String) -> String { SwiftNames.typeName(name, avoiding: [namespace], reserved: SwiftNames.reservedInNamespace) }

    /// The Swift cases of an enum's values (custom ones, else converted; see `SwiftNames.enumCases`).
    func swiftCases(_ values: [String], of type: String) -> [String] {
        SwiftNames.enumCases(values, custom: customNames[type]?.enumCases ?? [:])
    }

    /// The Swift name of an input object's field: its custom property, else the field's name.

    func swiftField(_ field: String, of type: String) -> String {
        SwiftNames.member(customNames[type]?.inputFields[field] ?? field)
    }

    /// Enums, input objects and custom scalars of the shared schema come from its module; object
    /// and interface metadata stays in each module, which sees its own possible types.
    func isShared(_ name: String) -> Bool {
        guard sharedNamespace != nil, sharedTypes.contains(name), let kind = schema.type(named: name)?.kind else { return false }
        return [.enumeration, .inputObject, .scalar].contains(kind)
    }

    /// The Swift type of a named leaf or input object, or `nil` for an object, interface or union.
    func leaf(_ name: String) -> String? {
        switch name {
        case "String", "ID": return "String"
        case "Int": return "Int"
        case "Float": return "Double"
        case "Boolean": return "Bool"
        default: break
        }
        let kind = schema.type(named: name)?.kind
        let owner = isShared(name) ? sharedNamespace ?? namespace : namespace
        switch kind {
        case .scalar where name == "Upload": return "GraphQLFile"  // files travel as parts of a multipart request, as in Apollo
        case .scalar, .inputObject: return "\(owner).\(swiftName(name))"
        case .enumeration: return "GraphQLEnum<\(owner).\(swiftName(name))>"
        default: return nil
        }
    }

    /// The type of an accessor: optional unless non-null; `nested` names the selection-set type.
    func output(_ ref: TypeRef, nested: String?) -> String {
        switch ref {
        case .nonNull(let inner): return nonNullOutput(inner, nested: nested)
        default: return nonNullOutput(ref, nested: nested) + "?"
        }
    }

    private func nonNullOutput(_ ref: TypeRef, nested: String?) -> String {
        switch ref {
        case .named(let name): return leaf(name) ?? nested ?? name
        case .list(let inner): return "[" + output(inner, nested: nested) + "]"
        case .nonNull(let inner): return nonNullOutput(inner, nested: nested)
        }
    }

    /// The Swift type of a variable or input field, and whether it may be left out (`= nil`).
    func input(_ ref: TypeRef, optionalDefault: Bool = false) -> (type: String, omittable: Bool) {
        switch ref {
        case .nonNull(let inner) where !optionalDefault:
            return (nonNullInput(inner), false)
        default:
            return ("GraphQLNullable<\(nonNullInput(ref.nullable))>", true)
        }
    }

    private func nonNullInput(_ ref: TypeRef) -> String {
        switch ref {
        case .named(let name): return leaf(name) ?? name
        case .nonNull(let inner): return nonNullInput(inner)
        case .list(let inner): return "[" + nonNullInput(inner.nullable) + (inner.isNonNull ? "" : "?") + "]"
        }
    }
}
