import Foundation

/// Converts parsed comparisons to ``PortableComparison``s, refusing what another engine could
/// not evaluate the same way with an error that names it.
struct PortableConversion {
    /// The variables the predicate may use (`user`, `claims`).
    let variables: Set<String>
    /// The predicate string, for messages (`nil` for a `where { }` expression).
    let text: String?

    /// The portable form of a comparison (a half-open range becomes two comparisons).
    /// - Throws: ``ObjDBError/Code/invalidQuery`` naming what is not portable.
    func convert(_ c: QueryComparison) throws -> PortablePredicate {
        if c.options.contains(.diacriticInsensitive) { throw refused("[d] (diacritic-insensitive comparison)", c) }
        if c.quantifier != .any || c.listQuantifier != .any || c.listFirst { throw refused("ANY, ALL and NONE", c) }
        var left = c.left, right = c.right, op = c.op
        // `5 < age` is `age > 5`; only comparisons mirror.
        if case .keyPath = right, left.isConstant {
            guard let mirrored = Self.mirrored(op) else { throw refused("a value on the left of \(op.rawValue)", c) }
            swap(&left, &right)
            op = mirrored
        }
        let property = try ownProperty(left, c)
        let portableOp: PortableComparison.Operator
        switch op {
        case .equal: portableOp = .equal
        case .notEqual: portableOp = .notEqual
        case .less: portableOp = .less
        case .lessOrEqual: portableOp = .lessOrEqual
        case .greater: portableOp = .greater
        case .greaterOrEqual: portableOp = .greaterOrEqual
        case .beginsWith: portableOp = .beginsWith
        case .endsWith: portableOp = .endsWith
        case .contains: portableOp = .contains
        case .like: portableOp = .like
        case .in: portableOp = .in
        case .between, .betweenHalfOpen: portableOp = .between
        case .text: throw refused("full-text search (TEXT)", c)
        }
        let operands = try self.operands(right, c)
        switch portableOp {
        case .in:
            guard case .list = right else { throw refused("IN with something other than a list of values", c) }
        case .between:
            guard operands.count == 2 else { throw refused("BETWEEN with \(operands.count) values (it takes {low, high})", c) }
            if c.op == .betweenHalfOpen {
                // The DSL's `low..<high`: `low <= x AND x < high`.
                return .and([
                    .comparison(PortableComparison(property: property, op: .greaterOrEqual, operands: [operands[0]])),
                    .comparison(PortableComparison(property: property, op: .less, operands: [operands[1]])),
                ])
            }
        default:
            // One value, or one variable (which ``operands(_:_:)`` read off a key path).
            guard operands.count == 1, !right.isList else { throw refused("a list of values compared with \(op.rawValue)", c) }
        }
        if c.options.contains(.caseInsensitive) && !(portableOp.isStringOperator || portableOp == .equal || portableOp == .notEqual || portableOp == .in) {
            throw refused("[c] with \(op.rawValue)", c)
        }
        return .comparison(
            PortableComparison(property: property, op: portableOp, operands: operands, caseInsensitive: c.options.contains(.caseInsensitive)))
    }

    /// The name of the class's own property a key path names.
    private func ownProperty(_ expression: QueryExpression, _ c: QueryComparison) throws -> String {
        switch expression {
        case .keyPath(let path):
            guard path.variable == nil, let first = path.components.first else { throw refused("SUBQUERY variables", c) }
            if first.hasPrefix("$") { throw refused("a variable ($\(first.dropFirst())) on the left of a comparison", c) }
            guard path.components.count == 1 else {
                throw refused("the key path '\(path)' (only the class's own properties can be compared, not through links or collections)", c)
            }
            return first
        case .aggregate: throw refused("aggregates (@count, @sum, …)", c)
        case .subqueryCount: throw refused("SUBQUERY", c)
        case .arithmetic: throw refused("arithmetic", c)
        case .value, .list: throw refused("a comparison without a property", c)
        }
    }

    /// The constants of the right side.
    private func operands(_ expression: QueryExpression, _ c: QueryComparison) throws -> [PortableOperand] {
        switch expression {
        case .value(let value): return [try operand(value, c)]
        case .list(let values): return try values.map { try operand($0, c) }
        case .keyPath(let path):
            // `$user`, `$claims.team`: variables of sync rules.
            if path.variable == nil, let first = path.components.first, first.hasPrefix("$") {
                let name = String(first.dropFirst())
                guard variables.contains(name) else {
                    let known = variables.isEmpty ? "none are available here" : "available: " + variables.sorted().map { "$" + $0 }.joined(separator: ", ")
                    throw refused("the variable $\(name) (\(known))", c)
                }
                return [.variable(([name] + path.components.dropFirst()).joined(separator: "."))]
            }
            throw refused("a comparison of two properties", c)
        case .aggregate: throw refused("aggregates (@count, @sum, …)", c)
        case .subqueryCount: throw refused("SUBQUERY", c)
        case .arithmetic: throw refused("arithmetic", c)
        }
    }

    private func operand(_ value: QueryValue, _ c: QueryComparison) throws -> PortableOperand {
        switch value {
        case .null: return .value(.null)
        case .bool(let v): return .value(.bool(v))
        case .int(let v): return .value(.int(v))
        case .double(let v): return .value(.double(v))
        case .string(let v): return .value(.string(v))
        case .data(let v): return .value(.data(v))
        case .date(let v): return .value(.date(v))
        case .uuid(let v): return .value(.uuid(v))
        case .objectId(let v): return .value(.objectId(v))
        case .decimal(let v): return .value(.decimal(v))
        case .object: throw refused("an object as a value (compare its primary key's property instead)", c)
        }
    }

    private static func mirrored(_ op: QueryOperator) -> QueryOperator? {
        switch op {
        case .equal: .equal
        case .notEqual: .notEqual
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        default: nil
        }
    }

    /// The error for a construct sync cannot evaluate.
    private func refused(_ construct: String, _ c: QueryComparison) -> ObjDBError {
        let place = c.position.map { " at position \($0)" } ?? ""
        let quoted = text.map { " in \"\(PredicateSyntaxError.excerpt(of: $0, around: c.position))\"" } ?? ""
        return ObjDBError(.invalidQuery, "Sync cannot evaluate \(construct)\(place)\(quoted)")
    }
}
