import ObjDB

/// Where a fuzzed predicate is applied.
enum FuzzSource: String, Sendable {
    /// `db.objects(T.self)`.
    case table
    /// `db.dynamicObjects(name)`.
    case dynamic
    /// A managed list, set or linking objects of another object.
    case collection
}

/// One fuzzed predicate: its class, where it applies, its text and arguments, and what was done
/// to it.
struct FuzzCase: Sendable {
    /// The case's number in the run.
    var index: Int
    /// The class queried.
    var className: String
    /// Where the filter applies.
    var source: FuzzSource
    /// The predicate string.
    var text: String
    /// Its arguments.
    var arguments: [FuzzArgument]
    /// A second predicate chained after the first, sometimes.
    var chained: String?
    /// The mutations applied, for reports.
    var mutations: [String]

    /// The case as one line of a report.
    var report: String {
        var line = "#\(index) \(className) \(source.rawValue): \(text.count > 600 ? String(text.prefix(600)) + "…(\(text.count) characters)" : text)"
        if !arguments.isEmpty { line += "  arguments: [\(arguments.map(\.text).joined(separator: ", "))]" }
        if let chained { line += "  then: \(chained)" }
        if !mutations.isEmpty { line += "  mutations: \(mutations.joined(separator: ","))" }
        return line
    }
}

/// Generates predicate strings from the grammar of `Docs/Queries.md` over the key paths of the
/// fuzz database, and mutates about half of them (tokens inserted, deleted, swapped or
/// replaced, deep nesting, huge numbers, Unicode, unbalanced parentheses, argument counts), so
/// that many still parse and reach binding and evaluation.
struct PredicateGenerator {
    let schema: FuzzSchema
    var rng: SeededRandom
    var tokens: [String] = []
    var arguments: [FuzzArgument] = []
    /// Whether arguments are written `$0`, `$1` (else `%@`).
    var indexed = false
    /// Subquery variables in scope, with their class.
    var variables: [(name: String, className: String)] = []

    /// Known crashes not to provoke (``FuzzAvoidance``).
    let avoiding: FuzzAvoidance

    init(schema: FuzzSchema, seed: UInt64, index: Int, avoiding: FuzzAvoidance = []) {
        self.schema = schema
        self.avoiding = avoiding
        rng = SeededRandom(seed: seed ^ 0xF022, index: UInt64(index))
    }

    /// Case number `index` of a run seeded with `seed`.
    static func generate(schema: FuzzSchema, seed: UInt64, index: Int, avoiding: FuzzAvoidance = []) -> FuzzCase {
        var generator = PredicateGenerator(schema: schema, seed: seed, index: index, avoiding: avoiding)
        return generator.makeCase(index)
    }

    mutating func makeCase(_ index: Int) -> FuzzCase {
        let className = rng.pick(schema.classes)
        let source: FuzzSource = rng.percent(15) ? .collection : (rng.percent(12) ? .dynamic : .table)
        indexed = rng.percent(30)
        tokens = []
        arguments = []
        var mutations: [String] = []
        switch rng.below(100) {
        case 0..<3: deepNesting(className, &mutations)
        case 3..<5: longChain(className, &mutations)
        default: predicate(className, depth: 0)
        }
        if rng.percent(50) {
            for _ in 0..<rng.inRange(1...3) {
                mutations.append(rng.percent(50) ? mutateKeepingGrammar(className) : mutateTokens(className))
            }
        }
        var text = render()
        if rng.percent(8) {
            let (mutated, name) = mutateCharacters(text)
            text = mutated
            mutations.append(name)
        }
        if rng.percent(6) {
            // A wrong number of arguments.
            if rng.percent(50), !arguments.isEmpty {
                arguments.removeLast()
                mutations.append("argument-removed")
            } else {
                arguments.append(FuzzArgument.random(&rng, paths: schema.paths[className] ?? [], avoiding: avoiding))
                mutations.append("argument-added")
            }
        }
        var chained: String?
        if rng.percent(8) {
            tokens = []
            let saved = arguments
            predicate(className, depth: 2)
            if arguments.count == saved.count { chained = render() }
            arguments = saved
        }
        return FuzzCase(index: index, className: className, source: source, text: text, arguments: arguments, chained: chained, mutations: mutations)
    }

    /// The tokens as text: separated by spaces, now and then by nothing where a symbol allows it
    /// (`age>3`, `(name`).
    mutating func render() -> String {
        var text = ""
        var previous = ""
        for token in tokens {
            let joinable = Self.isSymbolic(previous) || Self.isSymbolic(token)
            if !text.isEmpty, !(joinable && rng.percent(30)) { text += " " }
            text += token
            previous = token
        }
        return text
    }

    /// Whether a token starts or ends with an operator or punctuation, so that no space is needed
    /// next to it.
    static func isSymbolic(_ token: String) -> Bool {
        guard let first = token.utf8.first, let last = token.utf8.last else { return false }
        return symbols.contains(first) || symbols.contains(last)
    }

    /// The bytes of operators and punctuation.
    static let symbols = Set("()=<>!&|{},[]".utf8)

    // MARK: Grammar

    mutating func predicate(_ className: String, depth: Int) {
        let roll = rng.below(100)
        if depth < 3, roll < (depth == 0 ? 35 : 22) {
            let count = rng.inRange(2...3)
            let word = rng.pick(["AND", "OR", "&&", "||", "and", "or"])
            let parenthesised = depth > 0 || rng.percent(30)
            if parenthesised { tokens.append("(") }
            for i in 0..<count {
                if i > 0 { tokens.append(rng.percent(70) ? word : rng.pick(["AND", "OR"])) }
                predicate(className, depth: depth + 1)
            }
            if parenthesised { tokens.append(")") }
        } else if depth < 3, roll < 40 {
            tokens.append(rng.pick(["NOT", "!", "not"]))
            tokens.append("(")
            predicate(className, depth: depth + 1)
            tokens.append(")")
        } else if roll < 42 {
            tokens.append(rng.pick(["TRUEPREDICATE", "FALSEPREDICATE"]))
        } else {
            comparison(className, depth: depth)
        }
    }

    /// A path of `className`, or of a subquery variable in scope (`$x.name`).
    mutating func path(_ className: String) -> FuzzPath? {
        if let variable = variables.last, rng.percent(80) {
            guard var path = schema.paths[variable.className].flatMap({ $0.isEmpty ? nil : rng.pick($0) }) else { return nil }
            path.text = "$\(variable.name)." + path.text
            return path
        }
        return schema.paths[className].flatMap { $0.isEmpty ? nil : rng.pick($0) }
    }

    mutating func comparison(_ className: String, depth: Int) {
        guard let path = path(className) else {
            tokens.append("TRUEPREDICATE")
            return
        }
        if path.objectCollection {
            collectionComparison(path, className: className, depth: depth)
            return
        }
        if path.valueCollection {
            switch rng.below(4) {
            case 0:
                tokens += [value(path.type), "IN", keyPathToken(path)]
            case 1:
                tokens += [keyPathToken(path) + rng.pick([".@count", ".@sum", ".@avg", ".@min", ".@max"]), comparisonOperator(.double), value(.double)]
            default:
                tokens += [rng.pick(["ANY", "ALL", "NONE", "SOME"]), keyPathToken(path), comparisonOperator(path.type), value(path.type)]
            }
            return
        }
        if path.toMany, rng.percent(45) { tokens.append(rng.pick(["ANY", "ALL", "NONE", "SOME", "any"])) }
        if path.type == .object {
            // A to-one link: nil, an object argument, or a wrong literal.
            tokens += [keyPathToken(path), rng.pick(["==", "!=", "="])]
            if rng.percent(50) {
                tokens.append(rng.pick(FuzzLiterals.nils))
            } else if rng.percent(80) {
                tokens.append(argumentToken(.managed(path.objectClass ?? "Pet", rng.below(4))))
            } else {
                tokens.append(rng.pick(FuzzLiterals.any))
            }
            return
        }
        let op = comparisonOperator(path.type)
        let mirrored = rng.percent(10)
        var left = [keyPathToken(path)]
        var right: [String]
        switch op {
        case "BETWEEN":
            right = rng.percent(70) ? ["{", value(path.type), ",", value(path.type), "}"] : [argumentToken(.intArray([1, 50]))]
        case "IN":
            if rng.percent(70) {
                right = ["{"]
                for i in 0..<rng.pick([0, 1, 2, 3, 5]) {
                    if i > 0 { right.append(",") }
                    right.append(value(path.type))
                }
                right.append("}")
            } else {
                right = [argumentToken(rng.pick([.intArray([1, 2, 3]), .stringArray(["Ann 3", "Rex"]), .emptyArray, .mixedArray]))]
            }
        default:
            if rng.percent(8), let other = self.path(className) {
                right = [keyPathToken(other)]
            } else {
                right = [value(path.type)]
            }
        }
        var opToken = op
        let takesOptions = ["==", "!=", "=", "<>", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "contains", "like"].contains(op)
        if (path.type == .string && takesOptions && rng.percent(25)) || rng.percent(2) {
            opToken += rng.pick(["[c]", "[d]", "[cd]"])
        }
        if mirrored, op != "BETWEEN", op != "IN" { swap(&left, &right) }
        tokens += left + [opToken] + right
    }

    mutating func collectionComparison(_ path: FuzzPath, className: String, depth: Int) {
        let target = path.objectClass ?? className
        switch rng.below(5) {
        case 0, 1:
            tokens += [keyPathToken(path) + ".@count", comparisonOperator(.int), rng.pick(["0", "1", "2", "3", "-1", "%@"])]
            if tokens.last == "%@" {
                tokens.removeLast()
                tokens.append(argumentToken(.int(rng.below(4))))
            }
        case 2:
            let fields = (schema.paths[target] ?? []).filter {
                !$0.toMany && !$0.text.contains(".") && [.int, .double, .float, .date, .decimal].contains($0.type)
            }
            let field = fields.isEmpty ? "id" : rng.pick(fields).text
            let function = rng.pick([".@min", ".@max", ".@sum", ".@avg"])
            tokens += [keyPathToken(path) + function + "." + field, comparisonOperator(.double), value(.double)]
        case 3 where depth < 3 && variables.count < 2:
            let name = rng.pick(["x", "p", "o", "item"]) + String(variables.count)
            tokens += ["SUBQUERY(", keyPathToken(path), ",", "$" + name, ","]
            variables.append((name, target))
            predicate(target, depth: depth + 1)
            variables.removeLast()
            tokens += [")", ".@count", comparisonOperator(.int), rng.pick(["0", "1", "2"])]
        default:
            tokens += [rng.pick(["ANY", "ALL", "NONE"]), keyPathToken(path), rng.pick(["==", "!="]), rng.percent(50) ? "nil" : argumentToken(.managed(target, rng.below(3)))]
        }
    }

    /// A key path, now and then as `%K` with the path as an argument.
    mutating func keyPathToken(_ path: FuzzPath) -> String {
        if !path.text.hasPrefix("$"), !indexed, rng.percent(5) {
            arguments.append(.keyPath(path.text))
            return "%K"
        }
        return path.text
    }

    mutating func comparisonOperator(_ type: PropertyType) -> String {
        switch type {
        case .int, .double, .float, .decimal, .date:
            return rng.pick(["==", "!=", "<", "<=", ">", ">=", "BETWEEN", "IN", "=", "<>", "=<", "=>"])
        case .string, .data:
            return rng.pick(["==", "!=", "<", ">=", "BETWEEN", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "==", "contains", "like"])
        case .bool:
            return rng.pick(["==", "!=", "IN"])
        default:
            return rng.pick(["==", "!=", "IN", "<"])
        }
    }

    /// A value for a comparison with a property of `type`: mostly a literal of its type, some
    /// arguments, some literals of other types.
    mutating func value(_ type: PropertyType) -> String {
        switch rng.below(100) {
        case 0..<62: return rng.pick(FuzzLiterals.of(type))
        case 62..<82: return argumentToken(FuzzArgument.random(&rng, paths: [], scalar: rng.percent(90), avoiding: avoiding))
        case 82..<88: return rng.pick(FuzzLiterals.nils)
        case 88..<98: return rng.pick(FuzzLiterals.all)
        default: return rng.pick(FuzzLiterals.invalid)
        }
    }

    /// `%@` or `$n` for a new argument.
    mutating func argumentToken(_ argument: FuzzArgument) -> String {
        arguments.append(argument)
        return indexed ? "$\(arguments.count - 1)" : "%@"
    }
}
