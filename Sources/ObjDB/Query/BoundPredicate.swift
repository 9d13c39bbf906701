import Foundation

/// A predicate bound to a class: key paths resolved to columns, constants converted to the types
/// they are compared with, and every operator checked against its operands' types.
indirect enum BoundPredicate {
    case constant(Bool)
    case and([BoundPredicate])
    case or([BoundPredicate])
    case not(BoundPredicate)
    case comparison(BoundComparison)
}

/// A bound comparison.
struct BoundComparison {
    /// The left side.
    var left: BoundOperand
    /// The operator.
    var op: QueryOperator
    /// The right side.
    var right: BoundOperand
    /// String options.
    var options: QueryStringOptions
    /// How to-many values on the left combine.
    var quantifier: QueryQuantifier
    /// The stored type of the left side's values (and of a key path on the right).
    var type: PropertyType
}

/// One side of a bound comparison.
indirect enum BoundOperand {
    /// Values reached through a key path.
    case path(BoundPath)
    /// One constant.
    case constant(Comparand)
    /// Several constants (`IN`, `BETWEEN`).
    case list([Comparand])
    /// An aggregate of the values of a to-many path (`@count` counts elements).
    case aggregate(BoundPath, QueryAggregate)
    /// The number of elements of a collection of objects that match a predicate on the element class.
    case subqueryCount(BoundPath, BoundPredicate)
}

/// A key path resolved against the stored schema: one step per property.
struct BoundPath {
    /// How a step reaches the next values.
    enum StepKind: Equatable {
        /// A stored column (a value, a to-one link, or a collection).
        case column(ColumnKind)
        /// Linking objects: the origin objects whose link column points here.
        case backlinks(originClass: String, originColumn: Int)
    }

    /// One property of the path.
    struct Step {
        /// The class the step reads from.
        let className: String
        /// Its column (unused for backlinks).
        let column: Int
        /// What it holds.
        let kind: StepKind
        /// The class of the objects the step leads to (link targets, linking objects), when the
        /// file has it; `nil` for value steps or a class with no objects yet.
        var next: ClassInfo? = nil
        /// For linking objects: the origin's backlink table.
        var backlinks: Table? = nil
    }

    /// The steps, from the root class on.
    var steps: [Step]
    /// The stored type of the values at the end (`.object` for objects).
    var leafType: PropertyType
    /// Whether those values may be `nil`.
    var leafOptional: Bool
    /// The class of object values at the end.
    var leafClass: String?
    /// Whether the path can reach several values (through a collection or linking objects).
    var isToMany: Bool
    /// The path as written, for messages.
    var text: String

    /// The class of the objects at the end of the path, when the file has it.
    var leafInfo: ClassInfo? { steps.last?.next }

    /// The column of a path of one stored column of the root class (what indexes serve).
    var directColumn: Int? {
        guard steps.count == 1, case .column = steps[0].kind else { return nil }
        return steps[0].column
    }
}

/// A constant converted for comparison with values of one type.
enum Comparand {
    case null
    case int(Int64)
    case double(Double)
    case decimal(Decimal)
    case bool(Bool)
    case date(Double)
    /// UTF-8, data, UUID or ObjectId bytes; for string options, the folded UTF-8.
    case bytes([UInt8])
    case object(UInt64)

    /// Calls `body` with the constant as a scalar.
    @inline(__always)
    func withScalar<R>(_ body: (QueryScalar) -> R) -> R {
        switch self {
        case .null: return body(.null)
        case .int(let v): return body(.int(v))
        case .double(let v): return body(.double(v))
        case .decimal(let v): return body(.decimal(v))
        case .bool(let v): return body(.bool(v))
        case .date(let v): return body(.date(v))
        case .object(let v): return body(.object(v))
        case .bytes(let v): return v.withUnsafeBytes { body(.bytes($0)) }
        }
    }
}
