/// A test of a row alone, for scan loops specialized by shape: a loop generic over it is
/// compiled with the test inlined.
protocol RowPredicate {
    /// Whether `row` passes.
    func matches(_ row: RowView) -> Bool
    /// 1 if `row` passes, else 0 (never another value), computed without a branch on the outcome
    /// where the shape allows.
    func matchBit(_ row: RowView) -> UInt8
}

extension RowPredicate {
    @inline(__always)
    func matchBit(_ row: RowView) -> UInt8 { matches(row) ? 1 : 0 }
}

/// The test of a filter that every row passes (no filter): nothing to compute per row.
struct EveryRow: RowPredicate {
    @inline(__always)
    func matches(_ row: RowView) -> Bool { true }
}

/// A table scan run with a ``RowFilter`` in its most specialized shape
/// (``RowFilter/specialized(_:_:)``): Swift has no generic closures, so a scan that wants a
/// loop per shape is a visitor.
protocol RowPredicateVisitor {
    associatedtype Result
    /// Scans through `cursor` with `predicate`, whose concrete type the compiler knows.
    func visit<Predicate: RowPredicate>(_ predicate: Predicate, _ cursor: borrowing Cursor) -> Result
}

/// `column == constant` (or `!=`) on a string column: the most common lookup without an index.
/// The constant is memory owned by the comparison its filter keeps.
struct BytesEquality: RowPredicate {
    let column: Int
    let bytes: UnsafeRawBufferPointer
    /// `true` for `==`, `false` for `!=` (a `nil` value is unequal to every constant).
    let equal: Bool

    /// The shape of `test`, a ``ColumnTest/Kind/bytes`` test.
    init(_ test: ColumnTest) {
        column = test.column
        bytes = test.bytes
        equal = !test.holdsForNil
    }

    @inline(__always)
    func matches(_ row: RowView) -> Bool {
        guard case .value(let value) = row.column(column) else { return !equal }
        return sameBytes(value, bytes) == equal
    }
}

/// A number type a ``NumberTest`` reads from a column and compares.
protocol ColumnNumber: Comparable {
    /// The column's value; `nil` for one that cannot be read or is unordered (NaN).
    static func read(_ bytes: UnsafeRawBufferPointer) -> Self?
    /// The constant of `test`.
    static func constant(of test: ColumnTest) -> Self
}

extension Int64: ColumnNumber {
    @inline(__always)
    static func read(_ bytes: UnsafeRawBufferPointer) -> Int64? { ColumnCodec.integer(bytes) }
    static func constant(of test: ColumnTest) -> Int64 { test.integer }
}

extension Double: ColumnNumber {
    @inline(__always)
    static func read(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard let value = ColumnCodec.double(bytes), !value.isNaN else { return nil }
        return value
    }
    static func constant(of test: ColumnTest) -> Double { test.double }
}

/// A number column against a constant of its type: ``ColumnTest/Kind/integer`` (``IntegerTest``)
/// or ``ColumnTest/Kind/double`` (``DoubleTest``, `Double` and `Date` columns).
struct NumberTest<Value: ColumnNumber>: RowPredicate {
    let column: Int
    let constant: Value
    let holdingSigns: UInt8
    let holdsForNil: Bool

    init(_ test: ColumnTest) {
        column = test.column
        constant = Value.constant(of: test)
        holdingSigns = test.holdingSigns
        holdsForNil = test.holdsForNil
    }

    @inline(__always)
    func matches(_ row: RowView) -> Bool { matchBit(row) != 0 }

    /// Whether `row` passes, as 1 or 0: the bit of ``ColumnTest/holdingSigns`` at the value's
    /// ``ColumnTest/orderShift(_:_:)``, without a branch on the outcome.
    @inline(__always)
    func matchBit(_ row: RowView) -> UInt8 {
        guard case .value(let bytes) = row.column(column), let value = Value.read(bytes) else { return holdsForNil ? 1 : 0 }
        return (holdingSigns &>> ColumnTest.orderShift(value, constant)) & 1
    }
}

/// An integer column against an integer constant.
typealias IntegerTest = NumberTest<Int64>
/// A `Double` or `Date` column against a floating-point constant; NaN is unordered, as `nil`.
typealias DoubleTest = NumberTest<Double>

/// Two tests, both of which must hold.
struct BothTests<First: RowPredicate, Second: RowPredicate>: RowPredicate {
    let first: First
    let second: Second

    init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    @inline(__always)
    func matches(_ row: RowView) -> Bool {
        first.matches(row) && second.matches(row)
    }

    /// Both bits, each computed: no branch on the first test's outcome.
    @inline(__always)
    func matchBit(_ row: RowView) -> UInt8 {
        first.matchBit(row) & second.matchBit(row)
    }
}

/// Two tests, both of which must hold, the second tested only if the first holds: for a first
/// test that rarely holds (an equality), whose branch is predicted well and saves the second
/// test for most rows (see ``RowFilter/specialized(_:_:)``).
struct GuardedTests<First: RowPredicate, Second: RowPredicate>: RowPredicate {
    /// The two tests; their conjunction as ``BothTests`` computes it.
    let both: BothTests<First, Second>

    init(_ first: First, _ second: Second) {
        both = BothTests(first, second)
    }

    @inline(__always)
    func matches(_ row: RowView) -> Bool { both.matches(row) }

    /// The second test's bit if the first test holds, else 0 (a branch on the first test only).
    @inline(__always)
    func matchBit(_ row: RowView) -> UInt8 {
        guard both.first.matches(row) else { return 0 }
        return both.second.matchBit(row)
    }
}
