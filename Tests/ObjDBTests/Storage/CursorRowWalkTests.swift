import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Table walks that read LMDB's leaf pages in place (``RowWalk``, ``LeafPage``) against walks
/// that step the cursor over every entry, on real files, and the page reader's checks on pages
/// built by hand.
struct CursorRowWalkTests {
    let directory = TemporaryDirectory()

    /// One row of a table as a plain cursor walk reads it.
    struct Row: Equatable {
        let key: UInt64
        let bytes: [UInt8]
    }

    /// The texts ``makeNotes()`` leaves, in key order.
    private static func noteTexts() -> [String] {
        var rng = SeededRandom(seed: 0x9A6E)
        return (0..<4_000).compactMap { i -> String? in
            let length = rng.below(25) == 0 ? 2_000 + rng.below(9_000) : rng.below(300)
            let text = String(repeating: Character(UnicodeScalar(UInt8(97 + i % 26))), count: length)
            return i % 7 == 3 || (1_000..<1_400).contains(i) ? nil : text
        }
    }

    /// A file of notes whose rows range from empty to several pages long (stored on overflow
    /// pages), with gaps in the keys: 4,000 added, then every seventh from the fourth on and a
    /// stretch of 400 deleted (``noteTexts()``).
    private func makeNotes(name: String = "test.objdb", encryptionKey: Data? = nil) throws -> Database {
        var config = directory.configuration([Note.self], name: name)
        config.encryptionKey = encryptionKey
        let db = try Database(configuration: config)
        var rng = SeededRandom(seed: 0x9A6E)
        try db.write {
            for i in 0..<4_000 {
                let length = rng.below(25) == 0 ? 2_000 + rng.below(9_000) : rng.below(300)
                let note = Note()
                note.text = String(repeating: Character(UnicodeScalar(UInt8(97 + i % 26))), count: length)
                try db.add(note)
            }
        }
        try db.write {
            let notes = Array(db.objects(Note.self))
            for (i, note) in notes.enumerated() where i % 7 == 3 || (1_000..<1_400).contains(i) { db.delete(note) }
        }
        return db
    }

    /// The first index where `a` and `b` differ (their common length if one is a prefix).
    private static func firstDifference(_ a: [String], _ b: [String]) -> Int {
        (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
    }

    @Test func iteratingResultsReadsEveryRowOnceInKeyOrder() throws {
        let db = try makeNotes()
        let expected = Self.noteTexts()
        var texts: [String] = []
        for note in db.objects(Note.self) { texts.append(note.text) }
        #expect(texts.count == expected.count)
        let same = texts == expected   // compared apart: a failure would print every text
        #expect(same, "first difference at \(Self.firstDifference(texts, expected))")
    }

    @Test func iterationThatMovesToANewVersionMidPageGoesOnAfterTheLastRow() throws {
        let db = try makeNotes()
        let other = try directory.open([Note.self])
        var expected = Self.noteTexts()
        var texts: [String] = []
        var seen = 0
        for note in db.objects(Note.self) {
            texts.append(note.text)
            seen += 1
            if seen == 1_234 {
                // Another instance deletes the next ten notes and adds one at the end.
                try other.write {
                    for doomed in Array(other.objects(Note.self))[1_234..<1_244] { other.delete(doomed) }
                    let note = Note()
                    note.text = "added"
                    try other.add(note)
                }
                db.refresh()
            }
        }
        expected.removeSubrange(1_234..<1_244)
        expected.append("added")
        let same = texts == expected   // compared apart: a failure would print every text
        #expect(same, "first difference at \(Self.firstDifference(texts, expected))")
    }

    /// Every row of `table`, one cursor step each.
    private func steppedRows(_ txn: Txn, _ table: Table) throws -> [Row] {
        let cursor = try Cursor(txn, table)
        var rows: [Row] = []
        var entry = try cursor.first()
        while let current = entry {
            rows.append(Row(key: current.objectKey, bytes: Array(current.value)))
            entry = try cursor.next()
        }
        return rows
    }

    /// The rows `forEachRow` hands out from the first key at or above `start`, through `last`,
    /// stopping after `limit`.
    private func walkedRows(_ txn: Txn, _ table: Table, from start: UInt64 = 0, through last: UInt64 = .max, limit: Int = .max) throws -> [Row] {
        let cursor = try Cursor(txn, table)
        var rows: [Row] = []
        cursor.forEachRow(from: try cursor.seek(atLeast: start), through: last) { key, row in
            rows.append(Row(key: key, bytes: Array(row.bytes)))
            return rows.count < limit
        }
        return rows
    }

    @Test func walkingPagesInPlaceReadsWhatCursorStepsRead() throws {
        let db = try makeNotes()
        let info = try #require(try db.classInfo(for: Note.self))
        let txn = try db.requireReadableTxn()
        #expect(txn.isReadOnly)
        let table = info.tables.objects
        let expected = try steppedRows(txn, table)
        #expect(expected.count == 3_086)   // 4,000 less 571 multiples of 7 plus 3, less 400 - 57 in the deleted stretch
        #expect(expected.contains { $0.bytes.count > 2 * txn.environment.pageSize })   // rows on overflow pages
        #expect(try Cursor(txn, table).leafPageSize == txn.environment.pageSize)
        #expect(try walkedRows(txn, table) == expected)

        // The whole walk read its pages in place: no page or node handed it to the cursor.
        let cursor = try Cursor(txn, table)
        var walk = RowWalk(from: try cursor.first(), pageSize: cursor.leafPageSize)
        var rows = 0
        while cursor.next(in: &walk) != nil { rows += 1 }
        #expect(rows == expected.count)
        #expect(walk.readsPages)
        #expect(walk.pagesRead > 20)

        // Walks that start, end and stop anywhere, including mid-page and past the last key.
        var rng = SeededRandom(seed: 0x3A1C)
        let top = expected[expected.count - 1].key
        for _ in 0..<300 {
            let start = UInt64(rng.below(Int(top) + 3))
            let last = rng.below(4) == 0 ? UInt64.max : start + UInt64(rng.below(800))
            let limit = rng.below(3) == 0 ? Int.max : 1 + rng.below(200)
            let wanted = Array(expected.filter { $0.key >= start && $0.key <= last }.prefix(limit))
            #expect(try walkedRows(txn, table, from: start, through: last, limit: limit) == wanted)
        }
    }

    /// In an encrypted file a walk reads leaf pages in place too, taking short rows from their row
    /// bucket and opening long ones, and hands out exactly what cursor steps read.
    @Test func walkingPagesOfAnEncryptedFileReadsWhatCursorStepsRead() throws {
        let db = try makeNotes(name: "sealed.objdb", encryptionKey: Data((0..<64).map { UInt8($0 ^ 0x5A) }))
        let info = try #require(try db.classInfo(for: Note.self))
        let txn = try db.requireReadableTxn()
        let table = info.tables.objects
        let expected = try steppedRows(txn, table)
        #expect(expected.count == 3_086)
        #expect(expected.contains { $0.bytes.count > RowBucket.largestValue })   // sealed on their own
        #expect(try walkedRows(txn, table) == expected)
        let cursor = try Cursor(txn, table, tracksFailures: true)
        var walk = RowWalk(from: try cursor.first(), pageSize: cursor.leafPageSize)
        var rows = 0
        while cursor.next(in: &walk) != nil { rows += 1 }
        #expect(rows == expected.count)
        #expect(walk.readsPages)
        #expect(walk.pagesRead > 5)
        #expect(cursor.failure != nil && cursor.failure?.error == nil)
        var rng = SeededRandom(seed: 0x51AD)
        let top = expected[expected.count - 1].key
        for _ in 0..<100 {
            let start = UInt64(rng.below(Int(top) + 3))
            let last = rng.below(4) == 0 ? UInt64.max : start + UInt64(rng.below(800))
            let wanted = expected.filter { $0.key >= start && $0.key <= last }
            #expect(try walkedRows(txn, table, from: start, through: last) == wanted)
        }
    }

    /// The page reader recognises every leaf page LMDB wrote: the walk above really read pages in
    /// place rather than falling back to the cursor.
    @Test func everyLeafPageOfARealFileReadsInPlace() throws {
        let db = try makeNotes()
        let info = try #require(try db.classInfo(for: Note.self))
        let txn = try db.requireReadableTxn()
        let cursor = try Cursor(txn, info.tables.objects)
        var entry = try cursor.first()
        var pages = Set<Int>()
        var entries = 0
        while let current = entry {
            let page = try #require(LeafPage(holding: current, pageSize: txn.environment.pageSize))
            #expect(page.index < page.count)
            if case .row(let key, let value)? = page.node(at: page.index) {
                #expect(key == current.objectKey)
                #expect(value.baseAddress == current.value.baseAddress && value.count == current.value.count)
            } else if case .big(let key)? = page.node(at: page.index) {
                #expect(key == current.objectKey)
                #expect(current.value.count > 1_000)
            } else {
                Issue.record("node \(page.index) of the page of key \(current.objectKey) did not read")
            }
            pages.insert(Int(bitPattern: current.key.baseAddress) / txn.environment.pageSize)
            entries += 1
            entry = try cursor.next()
        }
        #expect(entries == 3_086)
        #expect(pages.count > 20)
    }

    /// A node that does not read as expected hands the rest of the walk to the cursor, from the
    /// row after the last one handed out: nothing skipped, nothing twice (in debug builds a
    /// test can make the reader refuse one key's node).
    @Test func aNodeThatDoesNotReadHandsTheWalkToTheCursor() throws {
        let db = try makeNotes()
        let info = try #require(try db.classInfo(for: Note.self))
        let txn = try db.requireReadableTxn()
        let table = info.tables.objects
        let expected = try steppedRows(txn, table)
        // Keys in the middle of their page, not on overflow pages.
        let cursor = try Cursor(txn, table)
        var middles: [UInt64] = []
        var entry = try cursor.first()
        while let current = entry {
            if let page = LeafPage(holding: current, pageSize: txn.environment.pageSize), page.index > 0,
                page.index < page.count - 1, current.value.count < 1_000
            {
                middles.append(current.objectKey)
            }
            entry = try cursor.next()
        }
        #expect(middles.count > 100)
        defer { txn.environment.refusedLeafKeyForTesting = nil }
        for refused in [middles[3], middles[middles.count / 2], middles[middles.count - 1]] {
            txn.environment.refusedLeafKeyForTesting = refused
            #expect(try walkedRows(txn, table) == expected, "refusing \(refused)")
            let from = refused - 1
            #expect(try walkedRows(txn, table, from: from) == expected.filter { $0.key >= from }, "refusing \(refused)")
            let texts = db.objects(Note.self).map(\.text)
            let same = texts == Self.noteTexts()   // compared apart: a failure would print every text
            #expect(same, "refusing \(refused): first difference at \(Self.firstDifference(texts, Self.noteTexts()))")
        }
    }

    /// Pages of one row each (rows of ~1,900 bytes, two to a page, every other one deleted),
    /// with object keys just below the top of the range.
    @Test func singleRowPagesNearTheTopOfTheKeyRange() throws {
        let db = try directory.open([Note.self])
        let info = try #require(try db.classInfo(for: Note.self))
        db.environment.raiseCounterFloor(info.classID, to: UInt64.max - 200)
        try db.write {
            for i in 0..<150 {
                let note = Note()
                note.text = String(repeating: "x", count: 1_880 + i % 7)
                try db.add(note)
            }
        }
        try db.write {
            for (i, note) in Array(db.objects(Note.self)).enumerated() where i % 2 == 1 { db.delete(note) }
        }
        let txn = try db.requireReadableTxn()
        let table = info.tables.objects
        let expected = try steppedRows(txn, table)
        #expect(expected.count == 75)
        #expect(expected.first?.key == UInt64.max - 200)
        let cursor = try Cursor(txn, table)
        var entry = try cursor.first()
        var singles = 0
        while let current = entry {
            if let page = LeafPage(holding: current, pageSize: txn.environment.pageSize), page.count == 1 { singles += 1 }
            entry = try cursor.next()
        }
        #expect(singles > 50)
        #expect(try walkedRows(txn, table) == expected)
        for (start, limit) in [(UInt64.max - 101, 3), (UInt64.max - 60, Int.max), (UInt64.max - 51, 1), (UInt64.max, Int.max)] {
            #expect(try walkedRows(txn, table, from: start, limit: limit) == Array(expected.filter { $0.key >= start }.prefix(limit)))
        }
        #expect(db.objects(Note.self).map(\.text.count) == expected.map { _ in 0 }.enumerated().map { 1_880 + (2 * $0.offset) % 7 })
    }

    @Test func writeTransactionsWalkWithTheCursor() throws {
        let db = try makeNotes()
        let info = try #require(try db.classInfo(for: Note.self))
        try db.write {
            for i in 0..<50 { try db.add({ let n = Note(); n.text = "uncommitted \(i)"; return n }()) }
            let txn = try db.requireReadableTxn()
            #expect(!txn.isReadOnly)
            #expect(try Cursor(txn, info.tables.objects).leafPageSize == 0)
            let expected = try steppedRows(txn, info.tables.objects)
            #expect(expected.count == 3_086 + 50)
            #expect(try walkedRows(txn, info.tables.objects) == expected)
            #expect(try walkedRows(txn, info.tables.objects, from: expected[100].key, through: expected[150].key) == Array(expected[100...150]))
        }
    }

    @Test func queriesOverPagesReadInPlaceMatchPlainFiltering() throws {
        let db = try makeNotes()
        // Each text as its letter and length (a failure prints these, not the texts).
        let all = Array(db.objects(Note.self)).map { $0.text.prefix(1) + "\($0.text.utf8.count)" }
        let expected = all.filter { $0.hasPrefix("q") && Int($0.dropFirst())! >= 2 }
        #expect(expected.contains { Int($0.dropFirst())! > 2_000 })    // rows on overflow pages match too
        #expect(db.objects(Note.self).where { $0.text.ends(with: "qq") }.map { $0.text.prefix(1) + "\($0.text.utf8.count)" } == expected)
        #expect(db.objects(Note.self).where { $0.text.starts(with: "q") }.count == all.filter { $0.hasPrefix("q") }.count)
    }
}

/// ``LeafPage``'s checks, on pages built by hand in LMDB 0.9's layout.
struct LeafPageParsingTests {
    static let size = 4096

    /// A page of `size` bytes at a page-aligned address.
    final class Page {
        let base = UnsafeMutableRawPointer.allocate(byteCount: LeafPageParsingTests.size, alignment: LeafPageParsingTests.size)
        private(set) var offsets: [Int] = []
        private var upper = LeafPageParsingTests.size

        init(flags: UInt16 = 0x02) {
            base.initializeMemory(as: UInt8.self, repeating: 0, count: LeafPageParsingTests.size)
            base.storeBytes(of: UInt64(2), as: UInt64.self)   // the page number: the first after the meta pages
            set(10, flags)
            update()
        }

        deinit { base.deallocate() }

        func set(_ offset: Int, _ value: UInt16) { base.storeBytes(of: value, toByteOffset: offset, as: UInt16.self) }

        /// Appends a node: key `key`, a value of `length` bytes, node flags `flags`, key size `keySize`.
        @discardableResult
        func add(key: UInt64, length: Int, flags: UInt16 = 0, keySize: UInt16 = 8) -> Int {
            let stored = flags & 0x01 != 0 ? 8 : length
            upper -= (16 + stored + 1) & ~1
            let node = upper
            set(node, UInt16(length & 0xFFFF))
            set(node + 2, UInt16(length >> 16))
            set(node + 4, flags)
            set(node + 6, keySize)
            base.storeBytes(of: key, toByteOffset: node + 8, as: UInt64.self)
            offsets.append(node)
            set(16 + 2 * (offsets.count - 1), UInt16(node))
            update()
            return node
        }

        func update() {
            set(12, UInt16(16 + 2 * offsets.count))
            set(14, UInt16(upper))
        }

        /// The entry a cursor would return for the node at `offset`.
        func entry(at offset: Int, valueShift: Int = 0, valueCount: Int? = nil) -> CursorEntry {
            let length = Int(base.load(fromByteOffset: offset, as: UInt16.self)) | Int(base.load(fromByteOffset: offset + 2, as: UInt16.self)) << 16
            return CursorEntry(
                key: UnsafeRawBufferPointer(start: base + offset + 8, count: 8),
                value: UnsafeRawBufferPointer(start: base + offset + 16 + valueShift, count: valueCount ?? length))
        }
    }

    func parse(_ page: Page, _ entry: CursorEntry) -> LeafPage? { LeafPage(holding: entry, pageSize: Self.size) }

    @Test func aWellFormedPageReadsNodeByNode() throws {
        let page = Page()
        let offsets = (0..<10).map { page.add(key: 100 + UInt64($0), length: $0 * 7) }
        let leaf = try #require(parse(page, page.entry(at: offsets[4])))
        #expect(leaf.count == 10)
        #expect(leaf.index == 4)
        for (i, offset) in offsets.enumerated() {
            guard case .row(let key, let value)? = leaf.node(at: i) else {
                Issue.record("node \(i) did not read")
                continue
            }
            #expect(key == 100 + UInt64(i))
            #expect(value.baseAddress == UnsafeRawPointer(page.base + offset + 16))
            #expect(value.count == i * 7)
        }
    }

    @Test func pagesThatAreNotLeavesAreLeftToTheCursor() {
        for flags: UInt16 in [0x00, 0x01, 0x02 | 0x01, 0x02 | 0x04, 0x02 | 0x08, 0x02 | 0x20, 0x02 | 0x40] {
            let page = Page(flags: flags)
            let offset = page.add(key: 1, length: 10)
            #expect(parse(page, page.entry(at: offset)) == nil, "flags \(flags)")
        }
        // A dirty leaf is still a leaf.
        let dirty = Page(flags: 0x02 | 0x10)
        #expect(parse(dirty, dirty.entry(at: dirty.add(key: 1, length: 10))) != nil)
    }

    @Test func pageNumbersThatCannotBeThisPagesAreRefused() throws {
        let page = Page()
        let offset = page.add(key: 1, length: 10)
        let leaf = try #require(parse(page, page.entry(at: offset)))
        #expect(leaf.mapStart == UInt(bitPattern: page.base) - 2 * UInt(Self.size))
        for number: UInt64 in [0, 1, UInt64(UInt(bitPattern: page.base) / UInt(Self.size)) + 1, .max / 4096 + 1, .max] {
            page.base.storeBytes(of: number, as: UInt64.self)
            #expect(parse(page, page.entry(at: offset)) == nil, "page number \(number)")
        }
    }

    @Test func headerBoundsOutOfRangeAreRefused() {
        let cases: [(String, (Page) -> Void)] = [
            ("lower below the header", { $0.set(12, 14) }),
            ("odd lower", { $0.set(12, 17) }),
            ("lower above upper", { $0.set(12, 4000); $0.set(14, 3000) }),
            ("upper past the page", { $0.set(14, 5000) }),
            ("no nodes", { $0.set(12, 16) }),
        ]
        for (name, damage) in cases {
            let page = Page()
            let offset = page.add(key: 1, length: 10)
            page.add(key: 2, length: 10)
            damage(page)
            #expect(parse(page, page.entry(at: offset)) == nil, "\(name)")
        }
    }

    @Test func anEntryThatIsNotExactlyANodeOfThePageIsRefused() {
        let page = Page()
        let offset = page.add(key: 1, length: 10)
        page.add(key: 2, length: 20)
        #expect(parse(page, page.entry(at: offset)) != nil)
        #expect(parse(page, page.entry(at: offset, valueShift: 2)) == nil)
        #expect(parse(page, page.entry(at: offset, valueCount: 11)) == nil)
        // A node the offset table does not list.
        page.set(16, UInt16(offset - 2))
        #expect(parse(page, page.entry(at: offset)) == nil)
        // A key that is not an object key.
        let short = Page()
        let node = short.add(key: 1, length: 10, keySize: 4)
        #expect(parse(short, short.entry(at: node)) == nil)
        let entry = short.entry(at: node)
        #expect(parse(short, CursorEntry(key: UnsafeRawBufferPointer(rebasing: entry.key[0..<4]), value: entry.value)) == nil)
    }

    @Test func nodesThatDoNotFitOrAreNotRowsAreNotRead() throws {
        let page = Page()
        let first = page.add(key: 1, length: 10)
        page.add(key: 2, length: 10, flags: 0x01)              // value on overflow pages
        page.add(key: 3, length: 10, keySize: 16)              // not an object key
        page.add(key: 4, length: 10, flags: 0x04)              // a duplicate-sort node
        let long = page.add(key: 5, length: 10)
        page.add(key: 6, length: 10)
        let leaf = try #require(parse(page, page.entry(at: first)))
        if case .big(let key)? = leaf.node(at: 1) { #expect(key == 2) } else { Issue.record("node 1 is not a big row") }
        #expect(leaf.node(at: 2) == nil)
        #expect(leaf.node(at: 3) == nil)
        // A value length that runs past the end of the page.
        page.set(long, UInt16(Self.size - long - 15))
        #expect(leaf.node(at: 4) == nil)
        page.set(long, UInt16(Self.size - long - 16))
        #expect(leaf.node(at: 4) != nil)
        page.set(long + 2, 1)                                  // the high half of the length
        #expect(leaf.node(at: 4) == nil)
        // A node offset inside the free space (where a well-formed node image lies) or past the page.
        let free = 200
        page.set(free + 4, 0)
        page.set(free + 6, 8)
        page.base.storeBytes(of: UInt64(99), toByteOffset: free + 8, as: UInt64.self)
        page.set(16 + 2 * 5, UInt16(free))
        #expect(leaf.node(at: 5) == nil)
        page.set(16 + 2 * 5, UInt16(Self.size - 8))
        #expect(leaf.node(at: 5) == nil)
    }
}
