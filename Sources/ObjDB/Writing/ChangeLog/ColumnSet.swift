/// A set of column numbers, inline for the first 64 columns.
struct ColumnSet: Equatable, Sendable {
    /// Bit `n` set: column `n` (below 64) is in the set.
    private var low: UInt64 = 0
    /// The columns from 64 up.
    private var high: Set<Int> = []

    /// Adds columns.
    mutating func formUnion(_ columns: some Sequence<Int>) {
        for column in columns {
            if column < 64 { low |= 1 << UInt64(column) } else { high.insert(column) }
        }
    }

    /// Adds the columns below 64 whose bits are set in `low`.
    mutating func formUnion(low bits: UInt64) {
        low |= bits
    }

    /// Adds the columns of another set.
    mutating func formUnion(_ other: ColumnSet) {
        low |= other.low
        high.formUnion(other.high)
    }

    /// The columns, ascending.
    var columns: [Int] { (0..<64).filter { low & (1 << UInt64($0)) != 0 } + high.sorted() }

    /// Number of columns.
    var count: Int { low.nonzeroBitCount + high.count }

    /// Whether `column` is in the set.
    func contains(_ column: Int) -> Bool {
        column < 64 ? low & (1 << UInt64(column)) != 0 : high.contains(column)
    }
}
