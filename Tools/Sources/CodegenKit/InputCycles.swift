/// Which input object fields close a cycle of input objects held inline: a field whose type
/// (non-null or not, but not a list, which lives on the heap) is an input object of the same
/// strongly connected component as its owner. Swift refuses a struct that contains itself, and
/// an enum whose case holds itself, so exactly these fields are kept out of line
/// (`InputIndirect`, `indirect case`); every other field is stored as it is, as before.
struct InputCycles {
    /// `Owner.field` for every field that closes a cycle.
    private(set) var indirectFields: Set<String> = []

    /// `throughLists`: lists count as holding their items too (a cycle of input objects however
    /// they hold each other, which is what GraphQLSwift's schema builder recurses through).
    init(_ schema: SchemaModel, throughLists: Bool = false) {
        let inputs = schema.types.values.filter { $0.kind == .inputObject }.map(\.name).sorted()
        func inlineTargets(_ name: String) -> [(field: String, target: String)] {
            (schema.type(named: name)?.inputFields ?? []).compactMap { field in
                let target = field.type.namedType
                guard throughLists || !field.type.nullable.isList, schema.type(named: target)?.kind == .inputObject else { return nil }
                return (field.name, target)
            }
        }
        // Tarjan's strongly connected components, iteratively.
        var index: [String: Int] = [:]
        var lowLink: [String: Int] = [:]
        var onStack: Set<String> = []
        var stack: [String] = []
        var component: [String: Int] = [:]
        var counter = 0
        var components = 0
        for root in inputs where index[root] == nil {
            var work: [(node: String, next: Int)] = [(root, 0)]
            index[root] = counter
            lowLink[root] = counter
            counter += 1
            stack.append(root)
            onStack.insert(root)
            while let (node, next) = work.last {
                let targets = inlineTargets(node)
                if next < targets.count {
                    work[work.count - 1].next += 1
                    let target = targets[next].target
                    if index[target] == nil {
                        index[target] = counter
                        lowLink[target] = counter
                        counter += 1
                        stack.append(target)
                        onStack.insert(target)
                        work.append((target, 0))
                    } else if onStack.contains(target) {
                        lowLink[node] = min(lowLink[node]!, index[target]!)
                    }
                    continue
                }
                work.removeLast()
                if let parent = work.last?.node { lowLink[parent] = min(lowLink[parent]!, lowLink[node]!) }
                if lowLink[node] == index[node] {
                    while let member = stack.popLast() {
                        onStack.remove(member)
                        component[member] = components
                        if member == node { break }
                    }
                    components += 1
                }
            }
        }
        for name in inputs {
            for (field, target) in inlineTargets(name) where component[target] == component[name] {
                indirectFields.insert(name + "." + field)
            }
        }
    }

    /// Whether `field` of the input object `owner` is kept out of line.
    func isIndirect(_ owner: String, _ field: String) -> Bool { indirectFields.contains(owner + "." + field) }
}
