/// A cursor of a write transaction, closed by the transaction before it ends.
final class WriteWalk {
    /// The cursor, `nil` once closed.
    @exclusivity(unchecked) var cursor: Cursor?
    /// The transaction the cursor belongs to. Not retained (and not weak, which would slow every
    /// retain of the transaction): read it only while ``isOpen``, which the transaction ends first.
    unowned(unsafe) let transaction: OpenTransaction
    /// The table the cursor walks.
    let table: Table

    /// A walk with `cursor` over `table`, a cursor of `transaction`.
    init(cursor: consuming Cursor, table: Table, transaction: OpenTransaction) {
        self.cursor = consume cursor
        self.table = table
        self.transaction = transaction
    }

    /// Whether the cursor is still usable.
    var isOpen: Bool { cursor != nil }

    /// Closes the cursor.
    func close() { cursor = nil }

    /// Runs `body` with the cursor. `path` is read only for the error: a string argument would
    /// be retained on every call.
    /// - Throws: ``ObjDBError/Code/notInWriteTransaction`` if the cursor is closed (the
    ///   transaction ended); what `body` throws.
    @inline(__always)
    func withCursor<R>(path: @autoclosure () -> String, _ body: (borrowing Cursor) throws -> R) throws -> R {
        switch cursor {
        case .some(let cursor):
            return try body(cursor)
        case .none:
            throw ObjDBError(.notInWriteTransaction, "The write transaction has ended", path: path())
        }
    }
}
