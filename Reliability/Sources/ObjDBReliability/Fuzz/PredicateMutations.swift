/// The mutations of generated predicates: some keep the grammar so that the predicate still
/// reaches evaluation, others break it.
extension PredicateGenerator {
    /// Parentheses or `NOT`s nested around the parser's limit of 100, around a valid predicate.
    mutating func deepNesting(_ className: String, _ mutations: inout [String]) {
        let depth = rng.pick([50, 98, 99, 100, 101, 150, 1_000, 20_000])
        let not = rng.percent(40)
        for _ in 0..<depth { tokens += not ? ["NOT", "("] : ["("] }
        comparison(className, depth: 0)
        for _ in 0..<depth { tokens.append(")") }
        mutations.append("nested-\(not ? "not-" : "")\(depth)")
    }

    /// A flat chain of thousands of comparisons.
    mutating func longChain(_ className: String, _ mutations: inout [String]) {
        let count = rng.pick([100, 1_000, 5_000])
        let word = rng.pick(["AND", "OR"])
        for i in 0..<count {
            if i > 0 { tokens.append(word) }
            comparison(className, depth: 4)
        }
        mutations.append("chain-\(word)-\(count)")
    }

    /// One mutation that keeps the predicate in the grammar most of the time, so that it still
    /// reaches binding and evaluation: an operator, quantifier, connective, literal or key path
    /// replaced by one of its kind, a negation, parentheses, the predicate repeated under
    /// `AND`/`OR`. Returns its name.
    mutating func mutateKeepingGrammar(_ className: String) -> String {
        let comparisons = ["==", "!=", "<", "<=", ">", ">=", "=", "<>", "=<", "=>"]
        let strings = ["CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "==", "!="]
        let quantifiers = ["ANY", "ALL", "NONE", "SOME"]
        let connectives = ["AND", "OR", "&&", "||", "and", "or"]
        let typed = Dictionary((schema.paths[className] ?? []).map { ($0.text, $0) }, uniquingKeysWith: { a, _ in a })
        func positions(_ test: (String) -> Bool) -> [Int] { tokens.indices.filter { test(tokens[$0]) } }
        switch rng.below(9) {
        case 0:
            guard let at = positions({ comparisons.contains($0) }).randomElement(using: &rng) else { break }
            tokens[at] = rng.pick(comparisons)
            return "operator"
        case 1:
            guard let at = positions({ strings.contains($0) }).randomElement(using: &rng) else { break }
            tokens[at] = rng.pick(strings) + (rng.percent(30) ? rng.pick(["[c]", "[d]", "[cd]"]) : "")
            return "string-operator"
        case 2:
            guard let at = positions({ quantifiers.contains($0) }).randomElement(using: &rng) else { break }
            tokens[at] = rng.pick(quantifiers)
            return "quantifier"
        case 3:
            guard let at = positions({ connectives.contains($0) }).randomElement(using: &rng) else { break }
            tokens[at] = rng.pick(connectives)
            return "connective"
        case 4:
            // A literal replaced by another of the same kind.
            let pools = [FuzzLiterals.ints, FuzzLiterals.doubles, FuzzLiterals.strings, FuzzLiterals.bools, FuzzLiterals.dates, FuzzLiterals.nils]
            guard let at = positions({ token in pools.contains { $0.contains(token) } }).randomElement(using: &rng),
                let pool = pools.first(where: { $0.contains(tokens[at]) })
            else { break }
            tokens[at] = rng.pick(pool)
            return "literal"
        case 5:
            // A key path replaced by another of the same type.
            guard let at = positions({ typed[$0] != nil }).randomElement(using: &rng), let old = typed[tokens[at]] else { break }
            // Sorted: a dictionary's order differs from process to process, and a case must replay.
            let same = typed.values.filter { $0.type == old.type && $0.toMany == old.toMany && $0.valueCollection == old.valueCollection }
                .sorted { $0.text < $1.text }
            if let path = same.randomElement(using: &rng) { tokens[at] = path.text }
            return "keypath"
        case 6:
            tokens = [rng.pick(["NOT", "!"]), "("] + tokens + [")"]
            return "negate"
        case 7:
            let depth = rng.inRange(1...30)
            tokens = Array(repeating: "(", count: depth) + tokens + Array(repeating: ")", count: depth)
            return "parentheses"
        default:
            // The predicate twice: `%@` arguments are repeated, `$n` ones reused.
            tokens = ["("] + tokens + [")", rng.pick(["AND", "OR"]), "("] + tokens + [")"]
            if !indexed { arguments += arguments }
            return "repeat-predicate"
        }
        return mutateTokens(className)
    }

    /// One mutation of the token list; returns its name.
    mutating func mutateTokens(_ className: String) -> String {
        guard !tokens.isEmpty else {
            tokens.append(rng.pick(FuzzLiterals.tokens))
            return "insert"
        }
        let at = rng.below(tokens.count)
        switch rng.below(12) {
        case 0:
            tokens.remove(at: at)
            return "delete"
        case 1:
            tokens.insert(tokens[at], at: at)
            return "duplicate"
        case 2:
            if at + 1 < tokens.count { tokens.swapAt(at, at + 1) }
            return "swap"
        case 3:
            tokens.insert(rng.pick(FuzzLiterals.tokens), at: at)
            return "insert"
        case 4:
            // An operator or keyword replaced by another.
            tokens[at] = rng.pick(FuzzLiterals.tokens)
            return "replace-token"
        case 5:
            tokens[at] = rng.pick(FuzzLiterals.any)
            return "replace-literal"
        case 6:
            if let path = schema.paths[rng.pick(schema.classes)].flatMap({ $0.isEmpty ? nil : rng.pick($0) }) { tokens[at] = path.text }
            return "replace-keypath"
        case 7:
            tokens[at] = rng.pick([
                String(repeating: "9", count: rng.pick([20, 400, 5_000])), "1e99999", "-1e99999", "0x" + String(repeating: "F", count: 40),
                "T99999999999999999999:99999999999", "$" + String(repeating: "9", count: 30),
            ])
            return "huge-number"
        case 8:
            var token = tokens[at]
            let position = token.index(token.startIndex, offsetBy: rng.below(token.count + 1))
            token.insert(contentsOf: rng.pick(FuzzLiterals.unicode), at: position)
            tokens[at] = token
            return "unicode"
        case 9:
            if let paren = tokens.indices.filter({ tokens[$0] == "(" || tokens[$0] == ")" || tokens[$0] == "{" || tokens[$0] == "}" }).randomElement(using: &rng) {
                tokens.remove(at: paren)
            } else {
                tokens.insert(rng.pick(["(", ")", "{", "}"]), at: at)
            }
            return "unbalance"
        case 10:
            // A key path made longer or cut.
            if tokens[at].contains(".") || tokens[at].first?.isLetter == true {
                tokens[at] += rng.pick([".name", ".@count", ".", "..", ".id.id", "[0]", ".@sum.age"])
            }
            return "keypath-edit"
        default:
            // A piece of the predicate repeated.
            let end = min(tokens.count, at + rng.inRange(1...6))
            tokens.insert(contentsOf: tokens[at..<end], at: end)
            return "repeat"
        }
    }

    /// One mutation of the characters; returns the text and its name.
    mutating func mutateCharacters(_ text: String) -> (String, String) {
        var characters = Array(text)
        guard !characters.isEmpty else { return ("(", "character-insert") }
        let at = rng.below(characters.count)
        switch rng.below(4) {
        case 0:
            characters.removeSubrange(at...)
            return (String(characters), "truncate")
        case 1:
            characters[at] = rng.pick(Array("()[]{}'\"\\$%@.,=<>!&|#\u{0}é🙂 "))
            return (String(characters), "character-replace")
        case 2:
            characters.insert(rng.pick(Array("'\"\\([{$%@")), at: at)
            return (String(characters), "character-insert")
        default:
            characters.remove(at: at)
            return (String(characters), "character-delete")
        }
    }
}
