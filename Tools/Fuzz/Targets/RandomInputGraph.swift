/// A random graph of input objects for `RandomSpecSpace`: any number of them, each field a scalar,
/// an enum, or another input object of the graph (itself included) as it is, non-null, in a list
/// or in a list of lists; some `@oneOf`; defaults of every kind, object literals included. Valid by
/// construction: a non-null field only points forward in the graph's order (so no input object
/// needs itself through non-null fields), a `@oneOf` object's first field is a scalar (so it can be
/// built), and an object literal sets every input-object field of its type (to `null`, `[]` or a
/// literal further along), so a default never comes back to itself.
struct RandomInputGraph {
    struct Field {
        var name: String
        var type: String
        var target: Int?
        var defaultValue: String?
    }

    struct Input {
        var name: String
        var isOneOf: Bool
        var fields: [Field] = []
    }

    private(set) var inputs: [Input] = []
    private let enumName: String
    private let enumValue: String

    static let fieldNames = ["a", "A", "_", "not", "_not", "self", "default", "where", "in", "Type", "data", "value", "VALUE", "hashValue"]

    init(random: inout SeededRandom, enumName: String, enumValue: String) {
        self.enumName = enumName
        self.enumValue = enumValue
        let count = random.int(in: 2...5)
        let names = (0..<count).map { index in index % 3 == 2 ? "in\(index - 1)" : "In\(index)" }  // `in1` beside `In1`
        inputs = names.enumerated().map { Input(name: $0.element, isOneOf: $0.offset > 0 && random.int(in: 0..<4) == 0) }
        for index in inputs.indices {
            var used: Set<String> = []
            let fieldCount = random.int(in: 1...4)
            for position in 0..<fieldCount {
                var name = random.element(Self.fieldNames)
                while used.contains(name) { name += "x" }
                used.insert(name)
                let isOneOf = inputs[index].isOneOf
                var field: Field
                if isOneOf && position == 0 || random.int(in: 0..<3) == 0 {
                    let scalar = random.element(["Int", "String", "ID", "Boolean", "Float", enumName, "DateTime"])
                    field = Field(name: name, type: scalar, target: nil)
                } else {
                    let target = random.int(in: 0..<inputs.count)
                    let base = inputs[target].name
                    // Non-null only forward: no input object needs itself through non-null fields.
                    let shapes = target > index && !isOneOf ? [base, "\(base)!", "[\(base)!]", "[\(base)]", "[[\(base)!]]"] : [base, "[\(base)!]", "[[\(base)]]"]
                    field = Field(name: name, type: random.element(shapes), target: target)
                }
                if !isOneOf && random.int(in: 0..<3) == 0 { field.defaultValue = "" }  // chosen once every type is known
                inputs[index].fields.append(field)
            }
        }
        for index in inputs.indices {
            for position in inputs[index].fields.indices where inputs[index].fields[position].defaultValue != nil {
                let field = inputs[index].fields[position]
                inputs[index].fields[position].defaultValue = literal(field.type, target: field.target, random: &random, depth: 0)
            }
        }
    }

    /// A valid value of `type` (its input object `target`, if any), finite and free of default
    /// cycles: an object literal sets every input-object field of its type.
    func literal(_ type: String, target: Int?, random: inout SeededRandom, depth: Int) -> String {
        let nonNull = type.hasSuffix("!")
        let inner = nonNull ? String(type.dropLast()) : type
        if !nonNull && (depth > 2 || random.int(in: 0..<4) == 0) { return "null" }
        if inner.hasPrefix("[") {
            let item = String(inner.dropFirst().dropLast())
            if depth > 2 || random.bool() { return "[]" }
            return "[" + literal(item, target: target, random: &random, depth: depth + 1) + "]"
        }
        guard let target else {
            switch inner {
            case "Int": return String(random.int(in: -5...5))
            case "Float": return random.bool() ? "1.5" : "2"
            case "String", "DateTime": return "\"s\\\"\(random.int(in: 0..<9))\""
            case "ID": return random.bool() ? "\"7\"" : "7"
            case "Boolean": return random.bool() ? "true" : "false"
            default: return enumValue
            }
        }
        let input = inputs[target]
        if input.isOneOf {
            let first = input.fields[0]
            return "{ \(first.name): \(literal(first.type + "!", target: nil, random: &random, depth: depth + 1)) }"
        }
        var parts: [String] = []
        for field in input.fields {
            let required = field.type.hasSuffix("!") && field.defaultValue == nil
            if field.target != nil || required || random.bool() {
                parts.append("\(field.name): \(literal(field.type, target: field.target, random: &random, depth: depth + 1))")
            }
        }
        return "{ " + parts.joined(separator: ", ") + " }"
    }

    /// The SDL of the input objects.
    func schema(description: (String) -> String, applied: () -> String) -> [String] {
        inputs.map { input in
            let fields = input.fields.map { field in
                description("field \(field.name)") + "\(field.name): \(field.type)" + (field.defaultValue.map { " = \($0)" } ?? "") + applied()
            }
            return description("input \(input.name)") + "input \(input.name)\(input.isOneOf ? " @oneOf" : "")\(applied()) {\n  "
                + fields.joined(separator: "\n  ") + "\n}"
        }
    }

    /// A query field taking each input object, and an operation that gives each a variable with a
    /// default and a literal.
    func queryField() -> String {
        "graph(" + inputs.enumerated().map { "v\($0.offset): \($0.element.name)" }.joined(separator: ", ") + "): Int"
    }

    func operation(random: inout SeededRandom) -> String {
        var variables: [String] = []
        var arguments: [String] = []
        for (index, input) in inputs.enumerated() {
            if random.bool() {
                let value = literal(input.name + "!", target: index, random: &random, depth: 1)
                variables.append("$v\(index): \(input.name) = \(value)")
                arguments.append("v\(index): $v\(index)")
            } else {
                arguments.append("v\(index): \(literal(input.name + "!", target: index, random: &random, depth: 1))")
            }
        }
        let signature = variables.isEmpty ? "" : "(" + variables.joined(separator: ", ") + ")"
        return "query Graph\(signature) {\n  graph(\(arguments.joined(separator: ", ")))\n}"
    }
}
