/// A sort by one number, date or bool column of the class itself: the only sorts that order
/// matches by one word each.
struct WordColumn {
    let column: Int
    let type: PropertyType
    let ascending: Bool

    /// The column of `paths`, or `nil` if they are not a sort by one such column.
    init?(_ paths: [(BoundPath, Bool)]) {
        guard paths.count == 1, let column = paths[0].0.directValueColumn else { return nil }
        switch paths[0].0.leafType {
        case .int, .double, .float, .date, .bool: break
        default: return nil
        }
        self.column = column
        type = paths[0].0.leafType
        ascending = paths[0].1
    }

    /// The ascending word of the column's value in `row` (see ``QuerySort/ascendingWord(_:)``),
    /// and whether the value is `nil` (`Int.min` has the same word).
    ///
    /// Decoded straight from the column's bytes, with the words of ``QuerySort/ascendingWord(_:)``
    /// but no ``QueryScalar`` in between: a sorted prefix computes one per row.
    @inline(__always)
    func ascendingWord(_ row: RowView) -> (word: UInt64, isNull: Bool) {
        guard case .value(let bytes) = row.column(column) else { return (0, true) }
        switch type {
        case .int:
            guard let v = ColumnCodec.integer(bytes) else { return (0, true) }
            return (QuerySort.integerWord(v), false)
        case .double, .date:
            guard let v = ColumnCodec.double(bytes) else { return (0, true) }
            return (QuerySort.doubleWord(v), false)
        case .float:
            guard let v = ColumnCodec.float(bytes) else { return (0, true) }
            return (QuerySort.doubleWord(Double(v)), false)
        case .bool:
            guard let v = ColumnCodec.bool(bytes) else { return (0, true) }
            return (QuerySort.boolWord(v), false)
        default:
            objdbFatal("Internal error: WordColumn: the \(type) column \(column) has no sort word (an ObjDB bug; please report it)")
        }
    }

    /// The word of the column's value in `row` in the sort's direction (see
    /// ``QuerySort/word(_:ascending:)``), or `nil` for `Int.min`, whose word is nil's.
    @inline(__always)
    func word(_ row: RowView) -> UInt64? {
        let (word, isNull) = ascendingWord(row)
        return QuerySort.directed(word, isNull: isNull, ascending: ascending)
    }
}
