/// The clauses after a predicate: `SORT(key ASC, …)`, `DISTINCT(key, …)`, `LIMIT(n)`.
extension PredicateParser.Reader {
    /// The next clause, or `nil` if the query does not go on with one. `SORT`, `DISTINCT` and
    /// `LIMIT` are clauses only when `(` follows: a property may be named `sort`.
    mutating func parseClause() throws -> QueryClause? {
        guard case .word(let word) = current.kind, index + 1 < tokens.count, tokens[index + 1].kind == .symbol("(") else { return nil }
        let keyword = word.uppercased()
        guard ["SORT", "DISTINCT", "LIMIT"].contains(keyword) else { return nil }
        let start = advance()
        advance()  // (
        let clause: QueryClause
        switch keyword {
        case "SORT":
            var keys: [(keyPath: String, ascending: Bool)] = []
            repeat {
                let keyPath = try parseClauseKeyPath(in: start)
                guard case .word(let direction) = current.kind else { throw expected("ASC or DESC after '\(keyPath)'") }
                switch direction.uppercased() {
                case "ASC", "ASCENDING": keys.append((keyPath, true))
                case "DESC", "DESCENDING": keys.append((keyPath, false))
                default: throw expected("ASC or DESC after '\(keyPath)'")
                }
                advance()
            } while takeComma()
            clause = .sort(keys)
        case "DISTINCT":
            var keyPaths: [String] = []
            repeat { keyPaths.append(try parseClauseKeyPath(in: start)) } while takeComma()
            clause = .distinct(keyPaths)
        default:
            // A decimal integer as written: not a float, a hex number or a negative one.
            guard case .literal(.int(let count)) = current.kind, count >= 0, current.text.allSatisfy(\.isASCII),
                current.text.allSatisfy(\.isNumber)
            else { throw expected("a number of objects (0 or more) in LIMIT(…)") }
            advance()
            clause = .limit(Int(count))
        }
        guard isSymbol(")") else {
            throw PredicateSyntaxError(
                position: current.position,
                message: "missing ')' to close the \(keyword) at position \(start.position); found \(describe(current))")
        }
        advance()
        return clause
    }

    /// A key path of a clause: property names joined by dots.
    private mutating func parseClauseKeyPath(in clause: PredicateToken) throws -> String {
        guard case .word(let first) = current.kind else { throw expected("a key path in \(clause.text.uppercased())(…)") }
        advance()
        var components = [first]
        while isSymbol(".") {
            advance()
            guard case .word(let name) = current.kind else { throw expected("a property name") }
            components.append(name)
            advance()
        }
        return components.joined(separator: ".")
    }

    /// Takes a `,` if there is one.
    private mutating func takeComma() -> Bool {
        guard isSymbol(",") else { return false }
        advance()
        return true
    }
}
