/// A sort by one number, date or bool column of the class itself: the only sorts that order
/// matches by one word each.
struct WordColumn {
    let column: Int
    let type: PropertyType
    let ascending: Bool

    /// The column of `paths`, or `nil` if they are not a sort by one such column.
    init?(_ paths: [(BoundPath, Bool)]) {
        guard paths.count == 1, let column = paths[0].0.directColumn, case .column(.value) = paths[0].0.steps[0].kind else { return nil }
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
    @inline(__always)
    func ascendingWord(_ row: RowView) -> (word: UInt64, isNull: Bool) {
        let value = self.value(row)
        guard let word = QuerySort.ascendingWord(value) else {
            preconditionFailure("WordColumn: a value of the \(type) column \(column) has no sort word")
        }
        return (word, value.isNull)
    }

    /// The column's value in `row`.
    @inline(__always)
    func value(_ row: RowView) -> QueryScalar {
        QueryScalar(row.column(column), type)
    }
}
