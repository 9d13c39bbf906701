import Foundation

/// A predicate bound to a class: key paths resolved to columns, constants converted to the types
/// they are compared with, and every operator checked against its operands' types.
///
/// Only the cases that nest the enum in itself are `indirect`: an `indirect` case is a heap box,
/// and every query built and freed one per comparison.
enum BoundPredicate {
    case constant(Bool)
    case and([BoundPredicate])
    case or([BoundPredicate])
    indirect case not(BoundPredicate)
    case comparison(BoundComparison)
}

/// A bound comparison. A class, so that evaluating it per row copies nothing.
final class BoundComparison {
    /// The left side.
    let left: BoundOperand
    /// The operator.
    let op: QueryOperator
    /// The right side.
    let right: BoundOperand
    /// String options.
    let options: QueryStringOptions
    /// How to-many values on the left combine.
    let quantifier: QueryQuantifier
    /// How the values of a list on the right combine (`age > ALL {1, 2}`); `IN` is always ANY.
    let listQuantifier: QueryQuantifier
    /// Whether ``listQuantifier`` applies outside ``quantifier`` (a list written on the left,
    /// see ``QuantifierOrder``); only for a to-many left side.
    let listFirst: Bool
    /// The stored type of the left side's values (and of a key path on the right).
    let type: PropertyType
    /// For a left side that is one value column of the object: the column (the fast path).
    let simpleColumn: Int?
    /// For `SUBQUERY(…).@count` on the left side, or inside arithmetic there: the subquery's
    /// predicate compiled once (``QueryEvaluator/compileForms(_:)``), when the first row is
    /// tested. The general test runs on one thread only.
    var compiledSubquery: CompiledSubqueries?
    /// The same for the right side.
    var compiledRightSubquery: CompiledSubqueries?

    /// For `TEXT`: the search text, read once when the comparison was bound.
    var fullText: FullTextQuery?

    /// The compiled predicates of the subqueries of one side.
    enum CompiledSubqueries {
        /// The one subquery that is the side.
        case one(QueryEvaluator.Compiled)
        /// Each subquery inside the side's arithmetic, by the path it counts (bound for that
        /// subquery alone).
        case byPath([ObjectIdentifier: QueryEvaluator.Compiled])
    }

    /// For `IN` on a list of constants without string options: the constants as a hash set,
    /// built when the first row is tested (an `IN` that an index answers tests none).
    lazy var inSet: ComparandSet? = {
        guard op == .in, options.isEmpty, !listFirst, case .list(let constants) = right else { return nil }
        return ComparandSet(constants)
    }()
    /// For the most common shape — one number, date, bool or string column against a constant —
    /// the test compiled with the constant decoded once (see ``ColumnTest``). Made when the first
    /// row is tested: a query an index answers tests none.
    ///
    /// A string test borrows its constant's bytes from this comparison: keep the comparison
    /// alive as long as any copy of the test is used.
    private(set) lazy var columnTest: ColumnTest? = {
        guard let column = simpleColumn, options.isEmpty, case .constant(let constant) = right,
            let test = ColumnTest(column: column, type: type, op: op, constant, bytes: UnsafeRawBufferPointer(start: nil, count: 0))
        else { return nil }
        guard test.kind == .bytes, case .bytes(let bytes) = constant else { return test }
        // Only a test that compares bytes needs them, copied to memory that stays put.
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        bytes.withUnsafeBytes { copy.copyMemory(from: $0) }
        constantBytes = copy
        return ColumnTest(column: column, type: type, op: op, constant, bytes: UnsafeRawBufferPointer(copy))
    }()
    /// The bytes ``columnTest`` compares with, owned here.
    private var constantBytes: UnsafeMutableRawBufferPointer?

    init(
        left: BoundOperand, op: QueryOperator, right: BoundOperand, options: QueryStringOptions, quantifier: QueryQuantifier, type: PropertyType,
        listQuantifier: QueryQuantifier = .any, listFirst: Bool = false
    ) {
        self.left = left
        self.listQuantifier = listQuantifier
        self.listFirst = listFirst
        // `x == ANY {…}` is `x IN {…}` (which indexes serve); `x IN ALL {…}` compares each.
        var op = op
        if case .list = right, op == .equal || op == .in { op = listQuantifier == .any ? .in : .equal }
        self.op = op
        self.right = right
        self.options = options
        self.quantifier = quantifier
        self.type = type
        if case .path(let path) = left, let column = path.directValueColumn {
            simpleColumn = column
        } else {
            simpleColumn = nil
        }
    }

    deinit {
        constantBytes?.deallocate()
    }
}

/// Constants of an `IN` list, hashed: membership in O(1) instead of comparing with each.
/// Membership agrees with the equality of comparisons: numbers by value across integer and
/// floating-point constants, bytes exactly, `nil` with `nil`.
struct ComparandSet {
    private var ints = Set<Int64>()
    private var doubles = Set<Double>()
    private var decimals: [Decimal] = []
    private var bools = Set<Bool>()
    private var dates = Set<Double>()
    private var bytes = Set<[UInt8]>()
    private var objects = Set<UInt64>()
    private var tagged = Set<[UInt8]>()
    private var hasNull = false

    init(_ constants: [Comparand]) {
        for constant in constants {
            switch constant {
            case .null: hasNull = true
            case .int(let v): ints.insert(v)
            case .double(let v): doubles.insert(v)
            case .decimal(let v): decimals.append(v)
            case .bool(let v): bools.insert(v)
            case .date(let v): dates.insert(v)
            case .bytes(let v): bytes.insert(v)
            case .object(let v): objects.insert(v)
            case .tagged(let tag, let v): tagged.insert([tag.rawValue] + v)
            }
        }
    }

    /// Whether `value` equals one of the constants.
    func contains(_ value: QueryScalar) -> Bool {
        switch value {
        case .null: return hasNull
        case .int(let v):
            return ints.contains(v) || doubles.contains { QueryOrder.compareExactly(v, $0) == 0 } || decimals.contains(Decimal(v))
        case .double(let v):
            if doubles.contains(v) { return true }
            if let exact = Int64(exactly: v), ints.contains(exact) { return true }
            return v.isFinite && decimals.contains(Decimal(v))
        case .decimal(let v):
            if decimals.contains(v) { return true }
            let number = NSDecimalNumber(decimal: v)
            return ints.contains(number.int64Value) && Decimal(number.int64Value) == v
                || doubles.contains { $0.isFinite && Decimal($0) == v }
        case .bool(let v): return bools.contains(v)
        case .date(let v): return dates.contains(v)
        case .bytes(let v): return bytes.contains(Array(v))
        case .object(let v): return objects.contains(v)
        case .tagged(let tag, let v): return tagged.contains([tag.rawValue] + Array(v))
        }
    }
}

/// One side of a bound comparison. Only the recursive case is `indirect` (a heap box).
enum BoundOperand {
    /// Values reached through a key path.
    case path(BoundPath)
    /// One constant.
    case constant(Comparand)
    /// Several constants (`IN`, `BETWEEN`).
    case list([Comparand])
    /// An aggregate of the values of a to-many path (`@count` counts elements).
    case aggregate(BoundPath, QueryAggregate)
    /// The number of elements of a collection of objects that match a predicate on the element class.
    indirect case subqueryCount(BoundPath, BoundPredicate)
    /// `left op right` on numbers, in `Double`.
    indirect case arithmetic(QueryArithmetic, BoundOperand, BoundOperand)
}

/// A key path resolved against the stored schema: one step per property. A class, so that
/// walking it per row copies nothing.
final class BoundPath {
    /// How a step reaches the next values.
    enum StepKind: Equatable {
        /// A stored column (a value, a to-one link, or a collection).
        case column(ColumnKind)
        /// Linking objects: the origin objects whose link column points here.
        case backlinks(originClass: String, originColumn: Int)
        /// `@links` before `@count`: the objects of every class linking here through any link
        /// property (``Step/origins``), once per link.
        case anyBacklinks
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
        /// For ``StepKind/anyBacklinks``: every link property that links to the class.
        var origins: [(info: ClassInfo, column: Int)] = []
        /// For a map column: what of it the step reads.
        var mapPart: MapPart = .values
        /// For a step that reads one mixed value: the subscripts into the list or dictionary it
        /// holds (`value[0]['foo']`), applied in order; empty for the value itself.
        var nested: [MixedSelector] = []
    }

    /// What a step reads of a map.
    enum MapPart {
        /// Its values (`map`, `map.@values`).
        case values
        /// Its keys (`map.@keys`).
        case keys
        /// The value of one key, or nil without it (`map['key']`); the key's UTF-8 bytes.
        case key([UInt8])
    }

    /// The steps, from the root class on.
    let steps: [Step]
    /// The stored type of the values at the end (`.object` for objects).
    let leafType: PropertyType
    /// Whether those values may be `nil`.
    let leafOptional: Bool
    /// The class of object values at the end.
    let leafClass: String?
    /// Whether the path can reach several values (through a collection or linking objects).
    let isToMany: Bool
    /// The path as written.
    let keyPath: QueryKeyPath
    /// For a to-many path, where the values that `ALL`, `NONE` and aggregates combine start.
    /// As in Realm: when the path ends in a collection of values (a list, set or map of
    /// numbers, strings…), that collection, tried for each object holding it
    /// (`list.integers.@count == 1` holds when some element of `list` has one integer);
    /// otherwise every value the path reaches from the object, through all its collections of
    /// objects (step 0: `ALL items.allergens.name == 'dairy'` looks at every allergen of every
    /// item). `nil` for a to-one path.
    let groupStep: Int?

    /// The path as written, for messages.
    var text: String { keyPath.description }

    /// Whether the values compared are the elements of a collection of values (a list, set or
    /// map of numbers, strings…) the path ends in, not their lengths: Realm's "list property"
    /// for BETWEEN.
    var endsInValueCollection: Bool { isToMany && leafType != .object && !measuresLength && !measuresType && groupStep == steps.count - 1 }

    /// Whether the path ends in `.length` after strings or data: its values are their lengths
    /// in UTF-8 bytes (Realm's `name.length`, `tags.length`), ``leafType`` is `.int`, and
    /// ``storedType`` is the type of the values measured.
    let measuresLength: Bool
    /// Whether the path ends in `.@type` after mixed values: its values are the bits of their
    /// types (``MixedFormat/typeBit(_:)``), ``leafType`` is `.int`, ``storedType`` `.mixed`.
    let measuresType: Bool
    /// The type of the values stored at the end of the path (``leafType`` unless
    /// ``measuresLength``).
    let storedType: PropertyType
    /// For data, UUID and ObjectId values compared with a mixed path: their tag, so that they
    /// read as a mixed value of their type reads (``QueryScalar/tagged(_:_:)``), not as bytes
    /// that would equal a string. `nil` otherwise.
    let mixedCounterpartTag: MixedFormat.Tag?
    /// The column of a path of one single-value column of the root class (no link, collection
    /// or length): read straight from the object's row. Set once here: evaluations ask for it
    /// per row, and reading it through `steps[0]` copied the step (and retained its strings).
    let directValueColumn: Int?

    init(
        steps: [Step], leafType: PropertyType, leafOptional: Bool, leafClass: String?, isToMany: Bool, keyPath: QueryKeyPath,
        measuresLength: Bool = false, measuresType: Bool = false, mixedCounterpartTag: MixedFormat.Tag? = nil
    ) {
        self.steps = steps
        self.measuresLength = measuresLength
        self.measuresType = measuresType
        self.mixedCounterpartTag = mixedCounterpartTag
        storedType = leafType
        self.leafType = measuresLength || measuresType ? .int : leafType
        self.leafOptional = leafOptional
        self.leafClass = leafClass
        self.isToMany = isToMany
        self.keyPath = keyPath
        directValueColumn = steps.withUnsafeBufferPointer { steps in
            guard steps.count == 1, !measuresLength, !measuresType, mixedCounterpartTag == nil, steps[0].nested.isEmpty,
                case .column(.value) = steps[0].kind
            else {
                return nil
            }
            return steps[0].column
        }
        if leafType != .object, let last = steps.last, case .column(let kind) = last.kind,
            kind == .list || kind == .set || (kind == .map && !last.readsOneMapValue)
        {
            groupStep = steps.count - 1
        } else {
            groupStep = isToMany ? 0 : nil
        }
    }

    /// The class of the objects at the end of the path, when the file has it.
    var leafInfo: ClassInfo? { steps.last?.next }

    /// The path, its data, UUID or ObjectId values read as a mixed value of that type reads
    /// them, for a comparison with a mixed path (`value == blob`); itself for other values.
    func asMixedCounterpart() -> BoundPath {
        let tag: MixedFormat.Tag? = switch leafType {
        case .data: .data
        case .uuid: .uuid
        case .objectId: .objectId
        default: nil
        }
        guard let tag, !measuresLength, !measuresType else { return self }
        return BoundPath(
            steps: steps, leafType: leafType, leafOptional: leafOptional, leafClass: leafClass, isToMany: isToMany, keyPath: keyPath,
            mixedCounterpartTag: tag)
    }

    /// The column of a path of one stored column of the root class (what indexes serve).
    var directColumn: Int? {
        guard steps.count == 1, !measuresLength, !measuresType, steps[0].nested.isEmpty, case .column = steps[0].kind else { return nil }
        return steps[0].column
    }

    /// One value the path reaches, as compared: the length of a string or data for a path
    /// that ``measuresLength`` (0 for nil, as in Realm).
    @inline(__always)
    func scalar(_ read: ColumnRead) -> QueryScalar {
        if measuresType { return .int(MixedFormat.typeBit(read)) }
        if let tag = mixedCounterpartTag {
            if case .bytes(let bytes) = QueryScalar(read, leafType) { return .tagged(tag, bytes) }
            return QueryScalar(read, leafType)
        }
        guard measuresLength else { return QueryScalar(read, leafType) }
        if let (_, bytes) = QueryScalar(read, storedType).textual { return .int(Int64(bytes.count)) }
        return .int(0)
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
    /// A UUID or an ObjectId compared with a mixed property (``QueryScalar/tagged(_:_:)``).
    case tagged(MixedFormat.Tag, [UInt8])

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
        case .tagged(let tag, let v): return v.withUnsafeBytes { body(.tagged(tag, $0)) }
        }
    }
}

extension BoundPath.Step {
    /// Whether the step reads one value of a map (`map['key']`), a to-one step.
    var readsOneMapValue: Bool {
        if case .key = mapPart { return true }
        return false
    }

    /// What the step reads of the map value `read`: its values, its keys, or the value of one
    /// key (a one-element view, empty without the key; `nil` when the key is absent).
    func mapSequence(_ read: ColumnRead) -> (view: SequenceView, index: Int?) {
        let map = MapView(read)
        switch mapPart {
        case .values: return (map.values, nil)
        case .keys: return (map.keys, nil)
        case .key(let key): return (map.values, key.withUnsafeBytes { map.index(of: $0) } ?? -1)
        }
    }
}
