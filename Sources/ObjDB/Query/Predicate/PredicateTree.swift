import Foundation

/// A predicate: what both front ends — the `where { }` DSL and predicate strings — produce, and
/// what the planner and the evaluator consume. Key paths are still names here; binding them to a
/// class (``BoundPredicate``) checks names and types.
indirect enum QueryPredicate: Equatable, Sendable {
    /// `TRUEPREDICATE` or `FALSEPREDICATE`.
    case constant(Bool)
    /// Every operand holds (an empty list holds).
    case and([QueryPredicate])
    /// Some operand holds (an empty list does not).
    case or([QueryPredicate])
    /// The operand does not hold.
    case not(QueryPredicate)
    /// A comparison.
    case comparison(QueryComparison)
}

/// `left op right`, for example `age >= 18`, `ANY dogs.name ==[c] 'rex'`, `age BETWEEN {1, 5}`.
struct QueryComparison: Equatable, Sendable {
    /// The left side; usually a key path.
    var left: QueryExpression
    /// The operator.
    var op: QueryOperator
    /// The right side; usually a value, or a list for `IN` and `BETWEEN`.
    var right: QueryExpression
    /// `[c]`, `[d]`, `[cd]`.
    var options: QueryStringOptions = []
    /// How a to-many left side is combined: `ANY` (the default), `ALL` or `NONE`.
    var quantifier: QueryQuantifier = .any
    /// How a list on the right is combined: `age > ANY {1, 2}` (the default, also `age > {1, 2}`),
    /// `ALL`, `NONE`.
    var listQuantifier: QueryQuantifier = .any
    /// Whether the list was written on the left (`ALL {6.0, 6.1} <= ANY items.price`): then its
    /// quantifier applies outside the key path's, as in Realm (some value `v` of the list such
    /// that every price `p` has `v <= p`, and so on), and ``op`` is written mirrored for the key
    /// path on the left. Otherwise the key path's quantifier is the outer one.
    var listFirst = false
    /// Whether the comparison was written in a predicate string, whose Realm rules differ from the
    /// DSL's in one place: BETWEEN on a collection of values needs ALL there (Realm refuses ANY
    /// and NONE), while the DSL's ranges test each element.
    var stringSyntax = false
    /// Position of the comparison in the predicate string (0-based, in characters), for errors.
    var position: Int? = nil
    /// When the constant side is one literal written in the predicate string (not an argument):
    /// a quoted string's contents, or a number as written. Realm types such a literal by what it
    /// is compared with: `intProperty == '5'` compares with 5, and
    /// `decimalProperty == 3.141592653589793238` keeps every digit.
    var literalText: String? = nil
    /// The same for each value of a `{…}` list on either side (`nil` where a value is not a
    /// string or number literal); `nil` when the list holds no such literal.
    var listLiteralTexts: [String?]? = nil
}

extension QueryComparison {
    /// Equal when they compare the same things the same way at the same position; the
    /// spellings of literals (``literalText``, ``listLiteralTexts``) and where the comparison
    /// was written (``stringSyntax``) are left out, the values they were read as are compared.
    /// (Binding refuses some comparisons by ``stringSyntax``; nothing caches a bound comparison
    /// by this equality, which would have to compare it too.)
    static func == (a: QueryComparison, b: QueryComparison) -> Bool {
        a.left == b.left && a.op == b.op && a.right == b.right && a.options == b.options && a.quantifier == b.quantifier
            && a.listQuantifier == b.listQuantifier && a.listFirst == b.listFirst && a.position == b.position
    }
}

/// Comparison operators.
enum QueryOperator: String, Equatable, Sendable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    /// `x BETWEEN {low, high}`: `low <= x && x <= high`.
    case between = "BETWEEN"
    /// `low <= x && x < high` for each value (the DSL's half-open ranges; no string syntax).
    case betweenHalfOpen = "BETWEEN (half-open)"
    /// `x IN {a, b}` or `x IN %@` (a list on the right).
    case `in` = "IN"
    /// Substring test on strings (and `Data`).
    case contains = "CONTAINS"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    /// Wildcards: `?` one character, `*` any run of characters.
    case like = "LIKE"
    /// Full-text search: `body TEXT 'swift -objc data*'` (see ``FullTextQuery``); only on a
    /// full-text indexed property.
    case text = "TEXT"
}

/// String comparison options.
struct QueryStringOptions: OptionSet, Equatable, Sendable {
    let rawValue: UInt8
    /// `[c]`: case-insensitive.
    static let caseInsensitive = QueryStringOptions(rawValue: 1)
    /// `[d]`: diacritic-insensitive.
    static let diacriticInsensitive = QueryStringOptions(rawValue: 2)
}

/// How a comparison treats a to-many key path.
enum QueryQuantifier: String, Equatable, Sendable {
    /// Some element matches (the default).
    case any = "ANY"
    /// Every element matches (true for an empty collection).
    case all = "ALL"
    /// No element matches.
    case none = "NONE"

    /// Whether `test` holds for some, every or no element of `elements`.
    func holds<C: Collection>(over elements: C, _ test: (C.Element) -> Bool) -> Bool {
        switch self {
        case .any: return elements.contains(where: test)
        case .all: return elements.allSatisfy(test)
        case .none: return !elements.contains(where: test)
        }
    }
}

/// One side of a comparison. Only the case that holds a predicate is `indirect` (a heap box);
/// ``QueryPredicate`` stays `indirect` throughout, which measured cheaper than copying its
/// comparisons inline.
enum QueryExpression: Equatable, Sendable {
    /// A key path from the object (or, inside a subquery, from its variable).
    case keyPath(QueryKeyPath)
    /// A constant.
    case value(QueryValue)
    /// A list of constants: `{1, 2, 3}` or an array argument.
    case list([QueryValue])
    /// An aggregate over a to-many key path: `dogs.@count`, `dogs.@sum.age`, `tags.@max`.
    case aggregate(QueryKeyPath, QueryAggregate, property: String?)
    /// `SUBQUERY(collection, $variable, predicate).@count`.
    indirect case subqueryCount(collection: QueryKeyPath, variable: String, predicate: QueryPredicate)
    /// `age * 2`, `price - discount`: arithmetic on numbers (constants are folded when parsed).
    indirect case arithmetic(QueryArithmetic, QueryExpression, QueryExpression)
}

/// The arithmetic operators of predicate strings.
enum QueryArithmetic: String, Equatable, Sendable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
}

extension QueryExpression {
    /// Whether the expression is a list of values.
    var isList: Bool {
        if case .list = self { return true }
        return false
    }

    /// Whether the expression is a value or a list of values (no key path).
    var isConstant: Bool {
        switch self {
        case .value, .list: true
        case .keyPath, .aggregate, .subqueryCount, .arithmetic: false
        }
    }
}

/// A key path: property names joined by dots, optionally starting at a subquery variable.
struct QueryKeyPath: Equatable, Sendable, CustomStringConvertible {
    /// The property names, in order (`["owner", "name"]`).
    var components: [String]
    /// The subquery variable the path starts at (`"x"` for `$x.age`), or `nil` for the object.
    var variable: String? = nil
    /// Position in the predicate string, for errors.
    var position: Int? = nil

    /// `owner.name`, or `$x.age`.
    var description: String {
        let path = Self.written(components)
        guard let variable else { return path }
        return path.isEmpty ? "$\(variable)" : "$\(variable).\(path)"
    }

    static func == (a: QueryKeyPath, b: QueryKeyPath) -> Bool {
        a.components == b.components && a.variable == b.variable
    }

    /// The component after a map for `map['key']`: this prefix, then the key.
    static let mapKeyPrefix = "@key:"
    /// The last component for `value.@type`: the type of a mixed value.
    static let typeOf = "@type"
    /// The component after a map for `map.@keys`.
    static let mapKeys = "@keys"
    /// The component after a map for `map.@values` (the map itself).
    static let mapValues = "@values"
}

/// Collection aggregates.
enum QueryAggregate: String, Equatable, Sendable {
    case count = "@count"
    case min = "@min"
    case max = "@max"
    case sum = "@sum"
    case average = "@avg"
}

/// A constant in a predicate.
enum QueryValue: Equatable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case uuid(UUID)
    case objectId(ObjectId)
    case decimal(Decimal)
    /// A stored object, by class name and object key (objects given as arguments).
    case object(className: String, key: UInt64)

    /// As it would be written in a predicate.
    var description: String {
        switch self {
        case .null: "nil"
        case .bool(let v): v ? "true" : "false"
        case .int(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v): "'\(v)'"
        case .data(let v): "<\(v.count) bytes>"
        // Foundation's description of a date traps on a time that is not finite.
        case .date(let v): v.timeIntervalSinceReferenceDate.isFinite ? "\(v)" : "date(\(v.timeIntervalSinceReferenceDate))"
        case .uuid(let v): "uuid(\(v.uuidString))"
        case .objectId(let v): "oid(\(v.stringValue))"
        case .decimal(let v): "\(v)"
        case .object(let className, let key): "\(className) \(key)"
        }
    }
}

/// A clause after a predicate string, applied to the results in the order written.
enum QueryClause: Sendable {
    /// `SORT(name ASC, age DESC)`.
    case sort([(keyPath: String, ascending: Bool)])
    /// `DISTINCT(name, age)`.
    case distinct([String])
    /// `LIMIT(10)`.
    case limit(Int)

    /// The clause's keyword, for messages.
    var keyword: String {
        switch self {
        case .sort: "SORT"
        case .distinct: "DISTINCT"
        case .limit: "LIMIT"
        }
    }
}
