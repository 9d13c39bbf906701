import Foundation

/// The part of the predicate language that another engine can evaluate the same way: what sync
/// subscriptions and sync rules are written in, and what the sync service translates to SQL.
///
/// It holds comparisons of the class's own properties with constant values (or, in rules,
/// variables such as `$user`), joined by `AND`, `OR` and `NOT`:
///
/// ```
/// owner == 'ann' AND NOT done
/// priority IN {1, 2} OR title BEGINSWITH[c] 'urgent'
/// due BETWEEN {$0, $1} AND notes != nil
/// ```
///
/// Anything else — key paths through links, collections, aggregates, subqueries, arithmetic,
/// comparisons of two properties, `[d]`, full-text `TEXT` — is refused by ``init(parsing:arguments:variables:)``
/// and ``init(_:)`` with an ``ObjDBError`` (``ObjDBError/Code/invalidQuery``) naming the construct.
package indirect enum PortablePredicate: Sendable, Hashable {
    /// `TRUEPREDICATE` or `FALSEPREDICATE`.
    case constant(Bool)
    /// Every operand holds (an empty list holds).
    case and([PortablePredicate])
    /// Some operand holds (an empty list does not).
    case or([PortablePredicate])
    /// The operand does not hold.
    case not(PortablePredicate)
    /// A property compared with values.
    case comparison(PortableComparison)
}

/// `property op values`: one value for `==`, `!=`, `<`, `<=`, `>`, `>=` and the string operators,
/// the list for `IN`, two for `BETWEEN`.
package struct PortableComparison: Sendable, Hashable {
    /// The operators of portable predicates.
    package enum Operator: String, Sendable, Hashable, CaseIterable {
        /// `==` (with `nil`: the property is nil).
        case equal = "=="
        /// `!=` (matches nil).
        case notEqual = "!="
        /// `<`.
        case less = "<"
        /// `<=`.
        case lessOrEqual = "<="
        /// `>`.
        case greater = ">"
        /// `>=`.
        case greaterOrEqual = ">="
        /// The string starts with the value.
        case beginsWith = "BEGINSWITH"
        /// The string ends with the value.
        case endsWith = "ENDSWITH"
        /// The string holds the value.
        case contains = "CONTAINS"
        /// `*` any run of characters, `?` one.
        case like = "LIKE"
        /// One of a list of values.
        case `in` = "IN"
        /// `low <= x && x <= high`.
        case between = "BETWEEN"

        /// Whether the operator tests strings (`BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`).
        package var isStringOperator: Bool { [.beginsWith, .endsWith, .contains, .like].contains(self) }
    }

    /// The property, one of the class's own.
    package var property: String
    /// The operator.
    package var op: Operator
    /// The constants compared with: one, or the list of `IN`, or `BETWEEN`'s two bounds.
    package var operands: [PortableOperand]
    /// `[c]`: case-insensitive.
    package var caseInsensitive: Bool

    /// A comparison.
    package init(property: String, op: Operator, operands: [PortableOperand], caseInsensitive: Bool = false) {
        self.property = property
        self.op = op
        self.operands = operands
        self.caseInsensitive = caseInsensitive
    }
}

/// A constant a portable comparison compares with.
package enum PortableOperand: Sendable, Hashable {
    /// A value (never a link, a collection or an embedded object).
    case value(SyncValue)
    /// A variable of a sync rule, without its `$`: `user`, or `claims.team` for a token claim.
    case variable(String)
}

extension PortablePredicate {
    /// The variables the predicate compares with (`user`, `claims.team`).
    package var variableNames: Set<String> {
        switch self {
        case .constant: return []
        case .and(let operands), .or(let operands): return operands.reduce(into: []) { $0.formUnion($1.variableNames) }
        case .not(let operand): return operand.variableNames
        case .comparison(let c):
            return Set(c.operands.compactMap { operand in
                if case .variable(let name) = operand { return name }
                return nil
            })
        }
    }

    /// The portable predicate a predicate string describes.
    ///
    /// - Parameters:
    ///   - text: the predicate, in the syntax of `Results.filter(_:_:)`.
    ///   - arguments: the values of `$0`, `$1`, … and `%@`.
    ///   - variables: the variables the predicate may use (`["user", "claims"]` in sync rules;
    ///     none in subscriptions): `$user`, `$claims.team`.
    /// - Throws: ``ObjDBError/Code/invalidQuery`` for a string that does not parse, or that uses
    ///   something outside the portable part of the language (the message names it).
    package init(parsing text: String, arguments: [SyncValue] = [], variables: Set<String> = []) throws {
        let parsed = try PredicateParser.parse(text, arguments: arguments.map(Self.argument))
        self = try Self.portable(parsed, variables: variables, text: text)
    }

    /// ``init(parsing:arguments:variables:)`` with arguments of any type a predicate string
    /// takes (as `Results.filter(_:_:)` does): `String`, `Int`, `Date`, arrays for `IN`, …
    package init(parsing text: String, anyArguments arguments: [Any?]) throws {
        let parsed = try PredicateParser.parse(text, arguments: arguments)
        self = try Self.portable(parsed, variables: [], text: text)
    }

    /// The portable predicate of a `where { }` expression on objects of `T`.
    /// - Throws: ``ObjDBError/Code/invalidQuery`` for something outside the portable part.
    package init<T: ObjectBase>(of type: T.Type, _ build: (Query<T>) -> Query<Bool>) throws {
        self = try Self.portable(build(Query<T>(path: [])).predicate(), variables: [], text: nil)
    }

    /// A sync value as a predicate argument (`nil`, `Bool`, `Int64`, `Double`, `String`, …;
    /// lists as arrays).
    package static func argument(_ value: SyncValue) -> Any? {
        switch value {
        case .list(let items): items.map(argument)
        // Refused once parsed: a link, a map or an object is not a constant of the language.
        case .link, .map, .object: PortableUnsupportedArgument()
        default: value.anyValue
        }
    }

    /// The portable form of a parsed predicate, or the error naming what is not portable.
    private static func portable(_ predicate: QueryPredicate, variables: Set<String>, text: String?) throws -> PortablePredicate {
        switch predicate {
        case .constant(let value): return .constant(value)
        case .and(let operands): return .and(try operands.map { try portable($0, variables: variables, text: text) })
        case .or(let operands): return .or(try operands.map { try portable($0, variables: variables, text: text) })
        case .not(let operand): return .not(try portable(operand, variables: variables, text: text))
        case .comparison(let comparison):
            return try PortableConversion(variables: variables, text: text).convert(comparison)
        }
    }
}

/// An argument that is not a constant of the predicate language (a link, a map, an object).
struct PortableUnsupportedArgument {}

extension Database {
    /// Checks that `predicate` with `arguments` is a portable predicate that objects of
    /// `className` can be filtered with (its properties exist and its values fit their types).
    /// - Throws: ``ObjDBError/Code/invalidQuery`` naming what is wrong.
    package func checkPortablePredicate(_ predicate: String, arguments: [SyncValue], className: String) throws {
        let portable = try PortablePredicate(parsing: predicate, arguments: arguments)
        _ = try dynamicObjects(className).filter(predicate, argumentArray: arguments.map(PortablePredicate.argument))
        // What the sync service refuses, refused here first (ObjDB's binder takes a little more:
        // a UUID compared with its text, a Bool with 1).
        for c in portable.comparisons {
            guard let property = schema[className]?[c.property] else { continue }
            let isLink = property.type == .object && !(schema[property.objectClassName ?? ""]?.isEmbedded ?? false)
            let shape = PortableComparison.PropertyShape(
                type: property.type, isCollection: property.collection != nil, isLink: isLink,
                isEmbedded: property.type == .object && !isLink)
            let values = c.operands.map { operand -> SyncValue in
                if case .value(let v) = operand { return v }
                return .null
            }
            if let reason = c.refusal(shape, values: values) {
                throw ObjDBError(.invalidQuery, "Sync cannot evaluate \(reason) in \"\(predicate)\"", className: className, propertyName: c.property)
            }
        }
    }
}
