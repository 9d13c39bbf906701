/// Full-text indexes kept in step with every row write (see ``FullTextPostings``).
extension Database {
    /// What one row write changes in the class's full-text indexes: for each full-text column
    /// whose text changed, the words of the old and the new text. Read from the rows before
    /// anything is written (a write invalidates row pointers into the map).
    struct FullTextChange {
        /// One column's change.
        struct Column {
            /// The column's full-text index.
            let table: Table
            /// The words of the old text (none for an insert).
            let old: FullTextDocument
            /// The words of the new text (none for a delete).
            let new: FullTextDocument
        }

        /// The changed columns.
        var columns: [Column] = []
    }

    /// The change of `info`'s full-text indexes from `old` to `new` (either may be absent), for
    /// `columns` or every full-text column.
    func fullTextChange<New: ColumnSource>(_ info: ClassInfo, old: RowView?, new: New?, columns: [Int]?) -> FullTextChange {
        var change = FullTextChange()
        for slot in info.fullTextSlots {
            if let columns, !columns.contains(slot.column) { continue }
            let oldRead = old?.column(slot.column)
            let newRead = new?.column(slot.column)
            if let oldRead, let newRead, oldRead.sameContent(as: newRead) { continue }
            let oldDocument = FullTextDocument(oldRead?.textBytes)
            let newDocument = FullTextDocument(newRead?.textBytes)
            if oldDocument == newDocument { continue }
            change.columns.append(.init(table: slot.table, old: oldDocument, new: newDocument))
        }
        return change
    }

    /// Deletes the postings of the old texts of `change` for the object `key` and logs those of
    /// the new ones (``PendingFullText``), with the statistics' change.
    func apply(_ change: FullTextChange, key: UInt64, _ context: WriteContext, _ txn: Txn) throws {
        let pending = context.pending.fullText
        for column in change.columns {
            if !column.old.words.isEmpty {
                // A posting logged for later must be in the table before it can be deleted.
                if pending.mayHoldPostings(of: key) { try flushPendingFullText(context, txn) }
                try context.transaction.withInsertCursor(column.table, txn) { cursor in
                    for (word, occurrences) in column.old.words {
                        let posting = FullTextPostings.bytes(.init(objectKey: key, occurrences: occurrences, textLength: column.old.length))
                        _ = try word.withUnsafeBytes { w in try posting.withUnsafeBytes { try cursor.delete(key: w, value: $0) } }
                    }
                }
            }
            pending.add(column.table, column.new, objectKey: key)
            pending.adjust(
                column.table, documents: (column.new.words.isEmpty ? 0 : 1) - (column.old.words.isEmpty ? 0 : 1),
                words: Int64(column.new.length) - Int64(column.old.length))
        }
    }

    /// Writes the postings logged in `context` (``PendingFullText/write(_:)``).
    func flushPendingFullText(_ context: WriteContext, _ txn: Txn) throws {
        guard !context.pending.fullText.isEmpty else { return }
        try context.pending.fullText.write(txn)
    }
}

extension ColumnRead {
    /// The bytes of a string column, `nil` when it is null or absent.
    var textBytes: UnsafeRawBufferPointer? {
        if case .value(let bytes) = self { return bytes }
        return nil
    }
}
