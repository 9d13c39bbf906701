import Foundation
import ObjDB
import ObjDBSyncProtocol
import PostgresNIO

/// A condition on one table's rows in SQL, its values as parameters: what a subscription or a
/// rule becomes. The text holds only SQL keywords, quoted column names the class has, and
/// parameter references; every value the predicate holds is a parameter.
struct SQLCondition: Sendable {
    /// The condition (never NULL: each comparison is made two-valued, so `NOT` keeps ObjDB's
    /// meaning), referring to parameters from `$\(firstParameter)` on.
    var sql: String
    /// The parameters, in order.
    var parameters: [PGCell]

    /// The condition that always holds.
    static let always = SQLCondition(sql: "TRUE", parameters: [])
    /// The condition that never holds.
    static let never = SQLCondition(sql: "FALSE", parameters: [])

    /// Whether the condition holds for every row.
    var isAlways: Bool { sql == "TRUE" }
}

/// Translates ``PortablePredicate``s to ``SQLCondition``s with ObjDB's semantics:
///
/// | Predicate | SQL |
/// |:--|:--|
/// | `p == nil`, `p != nil` | `p IS NULL`, `p IS NOT NULL` |
/// | `p != v` (matches nil) | `p IS DISTINCT FROM $n` |
/// | `p < v` on strings | `p COLLATE "C" < $n` (byte-wise, as ObjDB) |
/// | `p BEGINSWITH v` | `p LIKE $n` with `%`, `_` and `\` of `v` escaped |
/// | `p ==[c] v` | `lower(p) = lower($n)` (Unicode lowercase where ICU is available) |
/// | `p IN {a, nil}` | `p IN ($a) OR p IS NULL` |
/// | `p BETWEEN {a, b}` | `p >= $a AND p <= $b` |
///
/// Each comparison is wrapped in `COALESCE(…, FALSE)` so that a nil property makes it false,
/// not NULL, and `NOT` of it true, as in ObjDB.
struct PredicateSQL {
    /// The class whose table the condition reads.
    let mapping: ClassMapping
    /// How a column is referred to: `"Todo"."owner"`, `r."owner"`.
    let alias: String
    /// The values of `$user` and `$claims.…`.
    let variables: [String: SyncValue]
    /// The SQL that lowercases a text expression for `[c]` (`%@` stands for the expression).
    let lowercase: String
    /// Whether the values of variables are not known yet (checking a rule when the service
    /// starts): a comparison with a variable is then checked for its property only.
    var variablesUnknown = false

    /// A value a rule's variable needs but the token lacks: the rule cannot hold.
    struct MissingVariable: Error {
        let name: String
    }

    /// The condition of `predicate`, its parameters numbered from `firstParameter`.
    /// - Throws: ``ObjDBError`` (``ObjDBError/Code/invalidQuery``) naming a property the class
    ///   lacks, or a comparison its type does not support; ``MissingVariable``.
    func condition(_ predicate: PortablePredicate, firstParameter: Int) throws -> SQLCondition {
        var builder = Builder(first: firstParameter)
        let sql = try translate(predicate, &builder)
        return SQLCondition(sql: sql, parameters: builder.parameters)
    }

    /// Accumulates parameters.
    struct Builder {
        let first: Int
        var parameters: [PGCell] = []

        /// The reference of a new parameter holding `cell`.
        mutating func parameter(_ cell: PGCell) -> String {
            parameters.append(cell)
            return "$\(first + parameters.count - 1)"
        }
    }

    private func translate(_ predicate: PortablePredicate, _ b: inout Builder) throws -> String {
        switch predicate {
        case .constant(let value): return value ? "TRUE" : "FALSE"
        case .and(let operands):
            guard !operands.isEmpty else { return "TRUE" }
            return "(" + (try operands.map { try translate($0, &b) }).joined(separator: " AND ") + ")"
        case .or(let operands):
            guard !operands.isEmpty else { return "FALSE" }
            return "(" + (try operands.map { try translate($0, &b) }).joined(separator: " OR ") + ")"
        case .not(let operand): return "(NOT \(try translate(operand, &b)))"
        case .comparison(let c): return try comparison(c, &b)
        }
    }

    private func comparison(_ c: PortableComparison, _ b: inout Builder) throws -> String {
        guard let (property, kind) = mapping[c.property] else {
            throw ObjDBError(
                .invalidQuery, "Class '\(mapping.schema.name)' has no property '\(c.property)'", className: mapping.schema.name,
                propertyName: c.property)
        }
        let column = "\(alias).\(quoted(property.name))"
        let values: [SyncValue]
        do {
            values = try c.operands.map(resolve)
        } catch is MissingVariable where variablesUnknown {
            return "TRUE"
        }
        // A variable (a token's claim) of a type the property cannot be compared with: the
        // rule holds for no object, as for a missing claim.
        // (When the service starts, `$user` is checked as a string: a wrong type is an error.)
        let variables = c.operands.compactMap { operand -> String? in
            if case .variable(let name) = operand { return name }
            return nil
        }
        if !variables.isEmpty && !variablesUnknown {
            var attempt = b
            do {
                let sql = try comparison(c, resolved: values, property: property, kind: kind, column: column, &attempt)
                b = attempt
                return sql
            } catch is ObjDBError {
                throw MissingVariable(name: variables.joined(separator: ", "))
            }
        }
        return try comparison(c, resolved: values, property: property, kind: kind, column: column, &b)
    }

    /// The SQL of a comparison whose operands are resolved.
    private func comparison(
        _ c: PortableComparison, resolved values: [SyncValue], property: SyncPropertySchema, kind: ColumnKind, column: String, _ b: inout Builder
    ) throws -> String {
        // The rules of what compares with what, shared with the client's check.
        let shape: PortableComparison.PropertyShape
        switch kind {
        case .scalar(let type, let isLink): shape = .init(type: isLink ? .object : type, isCollection: false, isLink: isLink)
        case .array(let type, _): shape = .init(type: type, isCollection: true, isLink: false)
        case .json: shape = .init(type: property.type, isCollection: true, isLink: false)
        }
        if let reason = c.refusal(shape, values: values) { throw refused(reason, c) }
        guard case .scalar(let type, _) = kind else { return "FALSE" }
        if c.op.isStringOperator {
            guard case .string(let text)? = values.first else { return "FALSE" }
            let pattern: String
            switch c.op {
            case .beginsWith: pattern = Self.escapedForLike(text) + "%"
            case .endsWith: pattern = "%" + Self.escapedForLike(text)
            case .contains: pattern = "%" + Self.escapedForLike(text) + "%"
            default: pattern = Self.likePattern(text)
            }
            let p = b.parameter(PGCell(type: .text, bytes: Array(pattern.utf8)))
            return c.caseInsensitive
                ? "COALESCE(\(fold(column)) LIKE \(fold("\(p)::text")), FALSE)" : "COALESCE(\(column) LIKE \(p)::text, FALSE)"
        }
        switch c.op {
        case .equal, .notEqual:
            let value = values[0]
            if value == .null { return c.op == .equal ? "(\(column) IS NULL)" : "(\(column) IS NOT NULL)" }
            let (left, right) = try operands(column, value, type, property, c, &b)
            if c.op == .equal { return "COALESCE(\(left) = \(right), FALSE)" }
            return "(\(left) IS DISTINCT FROM \(right))"
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let (left, right) = try operands(column, values[0], type, property, c, &b)
            return "COALESCE(\(left) \(c.op.rawValue) \(right)\(Self.notNaN(column, type)), FALSE)"
        case .in:
            var terms: [String] = []
            for value in values {
                if value == .null {
                    terms.append("\(column) IS NULL")
                } else {
                    let (left, right) = try operands(column, value, type, property, c, &b)
                    terms.append("COALESCE(\(left) = \(right), FALSE)")
                }
            }
            return terms.isEmpty ? "FALSE" : "(" + terms.joined(separator: " OR ") + ")"
        case .between:
            let (left, low) = try operands(column, values[0], type, property, c, &b)
            let (left2, high) = try operands(column, values[1], type, property, c, &b)
            return "COALESCE(\(left) >= \(low) AND \(left2) <= \(high)\(Self.notNaN(column, type)), FALSE)"
        case .beginsWith, .endsWith, .contains, .like:
            // Handled above.
            return "FALSE"
        }
    }

    /// The value of an operand (a variable's from ``variables``).
    private func resolve(_ operand: PortableOperand) throws -> SyncValue {
        switch operand {
        case .value(let value): return value
        case .variable(let name):
            guard let value = variables[name] else { throw MissingVariable(name: name) }
            return value
        }
    }

    /// The two sides of a comparison of `column` (of `type`) with a non-nil value: the column
    /// as it is and the value as a parameter of the column's type, or both converted where the
    /// value's type differs (a number of another type compares as `double precision`, or as
    /// `numeric` for decimals).
    private func operands(
        _ column: String, _ value: SyncValue, _ type: PropertyType, _ property: SyncPropertySchema, _ c: PortableComparison, _ b: inout Builder
    ) throws -> (String, String) {
        func cell(_ v: SyncValue, _ t: PropertyType) throws -> PGCell {
            do {
                return try PGCell.of(v, .scalar(t, isLink: false), property: property)
            } catch let e as PGText.Mismatch {
                throw refused("the value \(v) (\(e.message))", c)
            }
        }
        let fold = c.caseInsensitive
        switch (type, value) {
        case (.string, .string):
            let p = b.parameter(try cell(value, .string)) + "::text"
            // Byte-wise order, as ObjDB compares strings.
            return fold ? (self.fold(column), self.fold(p)) : ("\(column) COLLATE \"C\"", p)
        case (.int, .int), (.bool, .bool), (.double, .double), (.float, .float), (.uuid, .uuid), (.date, .date), (.objectId, .objectId),
            (.data, .data), (.decimal, .decimal):
            let kind = ColumnKind.scalar(type, isLink: false)
            return (type == .objectId ? "\(column) COLLATE \"C\"" : column, PGCell.sql(b.parameter(try cell(value, type)), kind))
        case (.double, .int(let i)), (.float, .int(let i)):
            // Compared exactly, as ObjDB compares an integer with a floating-point number: in
            // `double precision` while the integer converts exactly, else in `numeric`.
            if i.magnitude <= 1 << 53 {
                return ("\(column)::double precision", PGCell.sql(b.parameter(try cell(.double(Double(i)), .double)), .scalar(.double, isLink: false)))
            }
            return ("\(column)::numeric", "\(b.parameter(PGCell(type: .text, bytes: Array(String(i).utf8))))::numeric")
        case (.int, .double):
            return ("\(column)::numeric", "\(b.parameter(PGCell(type: .text, bytes: Array(try exactNumber(value, c).utf8))))::numeric")
        case (.float, .double(let d)):
            // A float widens to a double exactly.
            return ("\(column)::double precision", PGCell.sql(b.parameter(try cell(.double(d), .double)), .scalar(.double, isLink: false)))
        case (.decimal, .int(let i)):
            return (column, PGCell.sql(b.parameter(try cell(.decimal(Decimal(i)), .decimal)), .scalar(.decimal, isLink: false)))
        case (.decimal, .double(let d)):
            guard d.isFinite, let decimal = Decimal(string: "\(d)", locale: Locale(identifier: "en_US_POSIX")) else {
                throw refused("the value \(d) compared with a Decimal", c)
            }
            return (column, PGCell.sql(b.parameter(try cell(.decimal(decimal), .decimal)), .scalar(.decimal, isLink: false)))
        default:
            throw refused("'\(property.name)' (\(type)) compared with \(value)", c)
        }
    }

    /// A finite double as decimal text that compares with every integer as the double does:
    /// an integral double's exact digits, else its shortest text (no integer lies between a
    /// non-integral double and its shortest text, which reads back as the same double).
    private func exactNumber(_ value: SyncValue, _ c: PortableComparison) throws -> String {
        guard case .double(let d) = value, d.isFinite else {
            throw refused("the value \(value) compared with an Int (NaN and infinities compare only with Double properties)", c)
        }
        if d.rounded(.towardZero) == d { return String(format: "%.0f", d) }
        return "\(d)"
    }

    /// For an ordering comparison of a floating-point or decimal column: NaN is unordered in
    /// ObjDB (no comparison holds), greater than every number in PostgreSQL.
    static func notNaN(_ column: String, _ type: PropertyType) -> String {
        type == .double || type == .float || type == .decimal ? " AND \(column) <> 'NaN'" : ""
    }

    /// `expression` lowercased for `[c]`.
    private func fold(_ expression: String) -> String {
        lowercase.replacingOccurrences(of: "%@", with: expression)
    }

    /// `text` with LIKE's wildcards (`%`, `_`) and its escape character (`\`) escaped.
    static func escapedForLike(_ text: String) -> String {
        var out = ""
        // By Unicode scalar: a `%` followed by a combining mark is one Character, not `%`.
        for scalar in text.unicodeScalars {
            if scalar == "%" || scalar == "_" || scalar == "\\" { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(scalar)
        }
        return out
    }

    /// An ObjDB `LIKE` pattern (`*` any run, `?` one character) as SQL's.
    static func likePattern(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "*": out.append("%")
            case "?": out.append("_")
            case "%", "_", "\\": out.append("\\"); out.unicodeScalars.append(scalar)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private func refused(_ construct: String, _ c: PortableComparison) -> ObjDBError {
        ObjDBError(
            .invalidQuery, "Sync cannot evaluate \(construct) in a predicate on '\(mapping.schema.name)'", className: mapping.schema.name,
            propertyName: c.property)
    }
}
