/// The position of a walk through a table of rows (object key → row), handing out one row at a
/// time (``Cursor/forEachRow(from:through:_:)``).
///
/// In a read-only transaction it reads each leaf page in place (``LeafPage``): the next row of
/// the page is a few loads (in an encrypted file, a value opened or taken from the row bucket the
/// cursor opened last: ``Cursor/pageValue(_:_:)``), and the cursor is used only to move to the next page (to the page's
/// last key, which LMDB finds on the cursor's own page without a search from the root, then one
/// step on) and to read rows stored on overflow pages. Otherwise, and from the first page that
/// cannot be read in place on, every row is one cursor step.
struct RowWalk {
    /// The page being read in place, if any.
    private var page: LeafPage?
    /// The index on `page` of the next node to hand out.
    private var index = 0
    /// The key of the last row handed out.
    private var lastKey: UInt64 = 0
    /// Without a page: the entry to hand out next, or (with `stepFirst`) the one handed out last.
    private var entry: CursorEntry?
    /// Without a page: whether `entry` was handed out already, so the cursor steps first.
    private var stepFirst = false
    /// The file's page size while pages may be read in place, else 0.
    private var pageSize: Int
    /// The start of the memory map according to the first page read in place; every later page
    /// must agree (``LeafPage/mapStart``).
    private var mapStart: UInt?
    /// The number of leaf pages read in place so far.
    private(set) var pagesRead = 0

    /// Whether the walk still reads pages in place (it stops at the first page or node that
    /// does not check out, and never starts in a write transaction).
    var readsPages: Bool { pageSize != 0 }

    /// A walk from `entry` (where a cursor stands) on; `pageSize` 0 walks with the cursor only.
    init(from entry: CursorEntry?, pageSize: Int) {
        self.entry = entry
        self.pageSize = pageSize
    }

    /// The next row's key and bytes, or `nil` at the end of the table or on a cursor error.
    @inline(__always)
    mutating func next(_ cursor: borrowing Cursor) -> (key: UInt64, bytes: UnsafeRawBufferPointer)? {
        if let page, index < page.count, case .row(let key, let value)? = readableNode(page, at: index, cursor) {
            index += 1
            lastKey = key
            return (key, cursor.pageValue(key, value))
        }
        return advance(cursor)
    }

    /// Hands `body` the rows that ``next(_:)`` would hand out from the current page, up to the
    /// first that is not a row on the page or until `body` returns `false`, keeping the
    /// position in locals (registers) rather than in the walk until it returns. Then
    /// ``next(_:)`` (or ``advance(_:)``) goes on from there.
    /// - Returns: `false` if `body` returned `false`.
    @inline(__always)
    mutating func forEachRowOnPage(_ cursor: borrowing Cursor, _ body: (UInt64, UnsafeRawBufferPointer) -> Bool) -> Bool {
        guard let page else { return true }
        var position = index
        var last = lastKey
        var going = true
        while position < page.count, case .row(let key, let value)? = readableNode(page, at: position, cursor) {
            position += 1
            last = key
            guard body(key, cursor.pageValue(key, value)) else {
                going = false
                break
            }
        }
        index = position
        lastKey = last
        return going
    }

    /// ``forEachRowOnPage(_:_:)`` handing each row, up to the key `last`, to `sink`.
    ///
    /// A generic sink is specialized and inlined into the loop, where a closure that carries
    /// more than a few lines is called per row instead (``Cursor/forEachRow(from:through:into:)``).
    /// - Returns: `false` at a key past `last`, or if the sink returned `false`.
    @inline(__always)
    mutating func forEachRowOnPage<Sink: RowSink>(_ cursor: borrowing Cursor, through last: UInt64, into sink: inout Sink) -> Bool {
        guard let page else { return true }
        var position = index
        var lastKey = lastKey
        var going = true
        while position < page.count, case .row(let key, let value)? = readableNode(page, at: position, cursor) {
            guard key <= last else {
                going = false
                break
            }
            position &+= 1
            lastKey = key
            guard sink.take(key, cursor.row(key, cursor.pageValue(key, value))) else {
                going = false
                break
            }
        }
        index = position
        self.lastKey = lastKey
        return going
    }

    /// The node at `index` of `page`, as ``LeafPage/node(at:)`` reads it (in debug builds, `nil`
    /// for the cursor's refused key).
    @inline(__always)
    private func readableNode(_ page: LeafPage, at index: Int, _ cursor: borrowing Cursor) -> LeafPage.Node? {
        let node = page.node(at: index)
        #if OBJDB_INTERNAL_CHECKS
        if case .row(let key, _)? = node, key == cursor.refusedLeafKey { return nil }
        #endif
        return node
    }

    /// ``next(_:)`` at a page's end, at a row on overflow pages, and without a page.
    @inline(never)
    mutating func advance(_ cursor: borrowing Cursor) -> (key: UInt64, bytes: UnsafeRawBufferPointer)? {
        if let page {
            if index < page.count, let node = readableNode(page, at: index, cursor) {
                // A row on overflow pages (rows on the page are handed out by `next`).
                let key = node.key
                guard let entry = Self.step(cursor, { try $0.seek(exactly: key) }) else { return nil }
                index += 1
                lastKey = key
                return (key, entry.value)
            }
            self.page = nil
            if index < page.count {
                // A node that does not read as expected: the cursor takes over for good.
                pageSize = 0
                let after = lastKey
                entry = after == .max ? nil : Self.step(cursor) { try $0.seek(atLeast: after + 1) }
            } else {
                let last = lastKey
                guard Self.step(cursor, { try $0.seek(exactly: last) }) != nil else { return nil }
                entry = Self.step(cursor) { try $0.next() }
            }
        } else if stepFirst {
            entry = Self.step(cursor) { try $0.next() }
        }
        guard let current = entry else { return nil }
        let key = current.objectKey
        if pageSize != 0, let page = LeafPage(holding: current, pageSize: pageSize, opening: { cursor.pageValue($0, $1) }),
            page.mapStart == mapStart ?? page.mapStart
        {
            #if OBJDB_INTERNAL_CHECKS
            if internalChecksEnabled { Self.checkAgainstCursor(page, cursor, standingAt: key) }
            #endif
            self.page = page
            mapStart = page.mapStart
            pagesRead += 1
            index = page.index + 1
            lastKey = key
            stepFirst = false
        } else {
            // A page that does not check out: the cursor takes over for good.
            pageSize = 0
            stepFirst = true
        }
        return (key, current.value)
    }
}

#if OBJDB_INTERNAL_CHECKS
extension RowWalk {
    /// Internal check of the page walk against its slow twin: every row of `page` after the one
    /// the cursor stands on, read in place, must be what the cursor reads for its key (the same
    /// bytes in the map). The cursor is put back on `key` afterwards.
    static func checkAgainstCursor(_ page: LeafPage, _ cursor: borrowing Cursor, standingAt key: UInt64) {
        for index in (page.index + 1)..<max(page.index + 1, page.count) {
            guard case .row(let rowKey, let stored)? = page.node(at: index) else { continue }
            let value = cursor.pageValue(rowKey, stored)
            // try?: a cursor error here is a disagreement, reported by the check below.
            let entry = try? cursor.seek(exactly: rowKey)
            internalCheck(
                entry?.value.baseAddress == value.baseAddress && entry?.value.count == value.count,
                "the row of key \(rowKey) read in place from its leaf page is not what the cursor reads")
        }
        // try?: puts the cursor back; should that fail, the walk's next move meets the error.
        _ = try? cursor.seek(exactly: key)
    }
}
#endif

extension RowWalk {
    /// One cursor move of a walk; an error ends the walk (`nil`) and is left in the cursor's
    /// ``Cursor/failure`` for the caller to report. Inlined so that the move is a direct call:
    /// the row-by-row walk (write transactions, pages not read in place) steps once per row.
    @inline(__always)
    static func step(_ cursor: borrowing Cursor, _ move: (borrowing Cursor) throws -> CursorEntry?) -> CursorEntry? {
        do {
            return try move(cursor)
        } catch {
            cursor.noteFailure(error)
            return nil
        }
    }
}

/// What a walk hands its rows to (``Cursor/forEachRow(from:through:into:)``).
protocol RowSink {
    /// Takes the row `row` of key `key`; `false` ends the walk.
    mutating func take(_ key: UInt64, _ row: RowView) -> Bool
}
