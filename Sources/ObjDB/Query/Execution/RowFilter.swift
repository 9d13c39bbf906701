/// A comparison of one value column of a row with a constant, decoded once: the test a table scan
/// makes per row for the most common shape of predicate (a number, date, bool or string column
/// against a constant, without string options).
///
/// A plain value (the constant's bytes are borrowed from the ``BoundComparison`` that made it),
/// so that ``RowFilter`` keeps its tests in one buffer and runs them in a loop, with no closure
/// call or reference count per row. The semantics are those of the general path: exact
/// integer/double comparison, `nil` never ordered, NaN equal to nothing.
struct ColumnTest {
    /// How the column's bytes are read and compared.
    enum Kind: UInt8 {
        /// An integer column of any width against ``integer``.
        case integer
        /// An integer column against ``double`` (a fraction compares exactly).
        case integerVersusDouble
        /// A `Double` or `Date` column against ``double``.
        case double
        /// A `Float` column against ``double``.
        case float
        /// A `Double` column against ``integer``.
        case doubleVersusInteger
        /// A `Bool` column against ``integer`` (0 or 1); equality only.
        case bool
        /// A column's bytes against ``bytes``; equality only.
        case bytes
    }

    /// The column read.
    let column: Int
    /// How it is compared.
    let kind: Kind
    /// Bit 0, 1 or 2 is set when the test holds for a value below, equal to or above the constant
    /// (``orderBit(_:_:)``).
    let holdingSigns: UInt8
    /// The result for a value that is `nil`, NaN or unreadable: only `!=` holds.
    let holdsForNil: Bool
    /// Whether the test is `==`.
    var isEquality: Bool { holdingSigns == 0b010 }
    /// The constant of the integer kinds.
    let integer: Int64
    /// The constant of the floating-point kinds.
    let double: Double
    /// The constant of ``Kind/bytes``: memory owned by the comparison that made the test.
    let bytes: UnsafeRawBufferPointer

    /// The test of `column` of stored type `type` with `op` against `constant`, or `nil` for
    /// shapes the general path handles (other operators or types, a NaN constant).
    ///
    /// `bytes` must be the constant's bytes for a `.bytes` constant, kept alive as long as the test.
    init?(column: Int, type: PropertyType, op: QueryOperator, _ constant: Comparand, bytes: UnsafeRawBufferPointer) {
        guard let signs = Self.holdingSigns(op) else { return nil }
        var integer: Int64 = 0
        var double = 0.0
        let kind: Kind
        switch (type, constant) {
        case (.int, .int(let k)):
            (kind, integer) = (.integer, k)
        case (.int, .double(let k)) where !k.isNaN:
            (kind, double) = (.integerVersusDouble, k)
        case (.double, .double(let k)) where !k.isNaN, (.date, .date(let k)) where !k.isNaN:
            (kind, double) = (.double, k)
        case (.float, .double(let k)) where !k.isNaN:
            (kind, double) = (.float, k)
        case (.double, .int(let k)):
            (kind, integer) = (.doubleVersusInteger, k)
        case (.bool, .bool(let k)) where op == .equal || op == .notEqual:
            (kind, integer) = (.bool, k ? 1 : 0)
        case (.string, .bytes) where op == .equal || op == .notEqual:
            kind = .bytes
        default:
            return nil
        }
        self.column = column
        self.kind = kind
        holdingSigns = signs
        holdsForNil = op == .notEqual
        self.integer = integer
        self.double = double
        self.bytes = kind == .bytes ? bytes : UnsafeRawBufferPointer(start: nil, count: 0)
    }

    /// The signs for which `op` holds (see ``holdingSigns``), or `nil` for an operator that is
    /// not a plain comparison.
    private static func holdingSigns(_ op: QueryOperator) -> UInt8? {
        switch op {
        case .equal: 0b010
        case .notEqual: 0b101
        case .less: 0b001
        case .lessOrEqual: 0b011
        case .greater: 0b100
        case .greaterOrEqual: 0b110
        default: nil
        }
    }

    /// Whether the test holds for `row`.
    @inline(__always)
    func holds(_ row: RowView) -> Bool {
        guard case .value(let value) = row.column(column), let bit = orderBit(of: value) else { return holdsForNil }
        return holdingSigns & bit != 0
    }

    /// The position in ``holdingSigns`` of the bit for `value` against `constant` (neither NaN):
    /// 0 below, 1 equal, 2 above. Two comparisons that compile to flag reads, not branches.
    @inline(__always)
    static func orderShift<Value: Comparable>(_ value: Value, _ constant: Value) -> UInt8 {
        UInt8(value > constant ? 1 : 0) &+ UInt8(value >= constant ? 1 : 0)
    }

    /// The bit of ``holdingSigns`` for `value` against `constant` (neither NaN): 1 below, 2
    /// equal, 4 above.
    @inline(__always)
    static func orderBit<Value: Comparable>(_ value: Value, _ constant: Value) -> UInt8 {
        1 << orderShift(value, constant)
    }

    /// The bit of ``holdingSigns`` for a comparison's sign (-1, 0 or 1).
    @inline(__always)
    private static func orderBit(sign: Int) -> UInt8 {
        1 << UInt8(truncatingIfNeeded: sign + 1)
    }

    /// The bit of ``holdingSigns`` for the column's value (see ``orderBit(_:_:)``); `nil` for a
    /// value that is NaN or cannot be read.
    @inline(__always)
    private func orderBit(of value: UnsafeRawBufferPointer) -> UInt8? {
        switch kind {
        case .integer:
            return Int64.read(value).map { Self.orderBit($0, integer) }
        case .double:
            return Double.read(value).map { Self.orderBit($0, double) }
        case .integerVersusDouble:
            guard let v = ColumnCodec.integer(value), let sign = QueryOrder.compareExactly(v, double) else { return nil }
            return Self.orderBit(sign: sign)
        case .float:
            guard let f = ColumnCodec.float(value), !f.isNaN else { return nil }
            return Self.orderBit(Double(f), double)
        case .doubleVersusInteger:
            guard let v = ColumnCodec.double(value), !v.isNaN, let sign = QueryOrder.compareExactly(integer, v) else { return nil }
            return Self.orderBit(sign: -sign)
        case .bool:
            guard let v = ColumnCodec.bool(value) else { return nil }
            return (v ? 1 : 0) == integer ? 2 : 4
        case .bytes:
            return sameBytes(value, bytes) ? 2 : 4
        }
    }
}

/// The test of a table scan's rows: a conjunction of ``ColumnTest``s, run first in a loop, and of
/// the rest of the predicate as one closure.
///
/// A final class whose tests sit in one buffer it owns, so a scan calls it directly (no closure
/// call per row) and copies nothing per test.
final class RowFilter: RowPredicate {
    /// The column tests.
    private let tests: UnsafeMutableBufferPointer<ColumnTest>
    /// The rest of the conjunction, if any.
    private let rest: QueryEvaluator.RowTest?
    /// The comparisons whose constants the tests borrow.
    private let owners: [BoundComparison]
    /// The predicate the filter was made from (`nil` for the filter every row passes): what the
    /// reference interpreter evaluates when internal checks compare a scan with it.
    let source: BoundPredicate?

    /// A filter that every row passes.
    convenience init() {
        self.init(comparisons: [], rest: nil, source: nil)
    }

    /// A filter of `comparisons` (each with a ``BoundComparison/columnTest``) and `rest`.
    private init(comparisons: [BoundComparison], rest: QueryEvaluator.RowTest?, source: BoundPredicate?) {
        self.source = source
        tests = .allocate(capacity: comparisons.count)
        _ = tests.initialize(from: comparisons.compactMap(\.columnTest))
        self.rest = rest
        owners = comparisons
    }

    deinit {
        tests.deallocate()
    }

    /// The row test of `predicate`, or `nil` if part of it needs more than the row (a link, a
    /// collection, the object key).
    ///
    /// The operands of a top-level `AND` (or the one comparison) that are column tests go into
    /// the loop; the others are compiled into one closure.
    convenience init?(_ predicate: BoundPredicate) {
        let operands: [BoundPredicate]
        if case .and(let list) = predicate { operands = list } else { operands = [predicate] }
        var comparisons: [BoundComparison] = []
        var others: [BoundPredicate] = []
        for operand in operands {
            if case .comparison(let comparison) = operand, comparison.columnTest != nil {
                comparisons.append(comparison)
            } else {
                others.append(operand)
            }
        }
        var rest: QueryEvaluator.RowTest?
        if !others.isEmpty {
            guard let test = QueryEvaluator.compileForms(others.count == 1 ? others[0] : .and(others)).rowTest else { return nil }
            rest = test
        }
        self.init(comparisons: comparisons, rest: rest, source: predicate)
    }

    /// Whether every row passes: the filter has no test.
    var passesEveryRow: Bool { tests.isEmpty && rest == nil }

    /// Whether `row` passes.
    @inline(__always)
    func matches(_ row: RowView) -> Bool {
        for index in tests.indices where !tests[index].holds(row) { return false }
        return rest?(row) ?? true
    }

    /// The loop a scan runs for a filter: one compiled for its shape, or the filter itself.
    enum Kernel: Equatable {
        /// The filter's own loop over its tests, then its compiled rest.
        case filter
        /// One string `==` or `!=` (``BytesEquality``).
        case bytesEquality
        /// One integer comparison (``IntegerTest``).
        case integer
        /// One double or date comparison (``DoubleTest``).
        case double
        /// Two number comparisons, both computed without a branch (``BothTests``), or with the
        /// equality first, guarding the other (``GuardedTests``).
        case pair(ColumnTest.Kind, ColumnTest.Kind, guarded: Bool)
    }

    /// The kernel ``specialized(_:_:)`` runs, and the tests it runs them on, in order.
    ///
    /// An equality usually holds for few rows, so a branch on it is predicted well and skips the
    /// other test for most rows: in a pair it goes first, guarding the other (`GuardedTests`).
    /// Other pairs are computed without a branch (`BothTests`). The exception it costs: an
    /// equality on a column of two or three values in random order, whose branch is mispredicted
    /// as often as a range's.
    private var kernelAndTests: (Kernel, ColumnTest?, ColumnTest?) {
        guard rest == nil else { return (.filter, nil, nil) }
        switch tests.count {
        case 1:
            let test = tests[0]
            switch test.kind {
            case .bytes: return (.bytesEquality, test, nil)
            case .integer: return (.integer, test, nil)
            case .double: return (.double, test, nil)
            default: return (.filter, nil, nil)
            }
        case 2:
            var (first, second) = (tests[0], tests[1])
            if second.isEquality && !first.isEquality { swap(&first, &second) }
            let numbers: Set<ColumnTest.Kind> = [.integer, .double]
            guard numbers.contains(first.kind), numbers.contains(second.kind) else { return (.filter, nil, nil) }
            return (.pair(first.kind, second.kind, guarded: first.isEquality), first, second)
        default:
            return (.filter, nil, nil)
        }
    }

    /// The kernel a scan with this filter runs.
    var kernel: Kernel { kernelAndTests.0 }

    /// The kernel in words, for ``ExecutionPlan``'s description.
    var shape: String {
        switch kernel {
        case .filter:
            if tests.isEmpty && rest == nil { return "none (every row matches)" }
            let parts = [tests.isEmpty ? nil : "\(tests.count) column test\(tests.count == 1 ? "" : "s")", rest == nil ? nil : "compiled closures"]
            return parts.compactMap { $0 }.joined(separator: " then ")
        case .bytesEquality: return "one string equality"
        case .integer: return "one integer comparison"
        case .double: return "one floating-point comparison"
        case .pair(_, _, let guarded):
            return guarded ? "two number comparisons, the equality first" : "two number comparisons, branch-free"
        }
    }

    /// Calls `visitor` with `cursor` and the filter in the shape of its ``kernel`` (see
    /// ``RowPredicateVisitor``). The shapes borrow the filter's constants, which the filter keeps
    /// alive through this call, and so through the visit.
    func specialized<Visitor: RowPredicateVisitor>(_ visitor: Visitor, _ cursor: borrowing Cursor) -> Visitor.Result {
        #if OBJDB_INTERNAL_CHECKS
        // Each kernel is checked against the filter's general loop, row by row.
        if internalChecksEnabled { return checkedKernels(visitor, cursor) }
        #endif
        return kernels(visitor, cursor)
    }

    /// ``specialized(_:_:)`` without checks: the filter's shape, or the filter itself when the
    /// kernels are switched off (``FastPaths/rowKernels``).
    private func kernels<Visitor: RowPredicateVisitor>(_ visitor: Visitor, _ cursor: borrowing Cursor) -> Visitor.Result {
        guard FastPaths.enabled.contains(.rowKernels) else { return visitor.visit(self, cursor) }
        let (kernel, first, second) = kernelAndTests
        switch (kernel, first, second) {
        case (.bytesEquality, let test?, nil): return visitor.visit(BytesEquality(test), cursor)
        case (.integer, let test?, nil): return visitor.visit(IntegerTest(test), cursor)
        case (.double, let test?, nil): return visitor.visit(DoubleTest(test), cursor)
        case (.pair(let a, let b, let guarded), let first?, let second?):
            switch (a, b) {
            case (.integer, .integer): return Self.visit(IntegerTest(first), IntegerTest(second), guarded: guarded, visitor, cursor)
            case (.integer, _): return Self.visit(IntegerTest(first), DoubleTest(second), guarded: guarded, visitor, cursor)
            case (_, .integer): return Self.visit(DoubleTest(first), IntegerTest(second), guarded: guarded, visitor, cursor)
            default: return Self.visit(DoubleTest(first), DoubleTest(second), guarded: guarded, visitor, cursor)
            }
        default:
            return visitor.visit(self, cursor)
        }
    }

    #if OBJDB_INTERNAL_CHECKS
    /// ``kernels(_:_:)`` with each kernel wrapped in ``CheckedKernel``.
    private func checkedKernels<Visitor: RowPredicateVisitor>(_ visitor: Visitor, _ cursor: borrowing Cursor) -> Visitor.Result {
        kernels(CheckingVisitor(inner: visitor, reference: self), cursor)
    }

    /// Hands the inner visitor each kernel wrapped with its reference.
    private struct CheckingVisitor<Inner: RowPredicateVisitor>: RowPredicateVisitor {
        let inner: Inner
        let reference: RowFilter

        func visit<Predicate: RowPredicate>(_ predicate: Predicate, _ cursor: borrowing Cursor) -> Inner.Result {
            inner.visit(CheckedKernel(kernel: predicate, reference: reference), cursor)
        }
    }
    #endif

    /// `visitor`'s scan with both tests, `first` guarding `second` or not.
    private static func visit<First: RowPredicate, Second: RowPredicate, Visitor: RowPredicateVisitor>(
        _ first: First, _ second: Second, guarded: Bool, _ visitor: Visitor, _ cursor: borrowing Cursor
    ) -> Visitor.Result {
        guarded ? visitor.visit(GuardedTests(first, second), cursor) : visitor.visit(BothTests(first, second), cursor)
    }
}
