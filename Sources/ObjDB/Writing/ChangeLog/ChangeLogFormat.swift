/// The bytes of one entry of the `changes` table (see `Docs/FileFormat.md`, "The change log").
///
/// ```
/// entry    := version:u8 (1)  flags:u8 (bit 0: the schema changed)  varint(classes)  class*
/// class    := varint(class id)  flags:u8 (bit 0: unlisted modifications follow the list;
///                                          bit 1: list edits follow)
///             ranges(inserted)  ranges(deleted)
///             varint(n)  (varint(key delta)  columns)^n        modified objects, keys ascending
///             [columns]                                          unlisted modifications
///             [varint(n)  (varint(key delta)  varint(m)  (varint(column)  edits)^m)^n]   list edits
/// edits    := varint(n)  edit^n
/// edit     := 0 varint(at) varint(count)  |  1 varint(at) varint(count)    insert | erase
///           | 2 varint(at)                |  3 varint(from) varint(to)     set | move
/// ranges   := varint(n)  (varint(start delta)  varint(length - 1))^n
/// columns  := varint(n)  varint(column delta)^n                  columns ascending
/// ```
///
/// Varints are LEB128 (7 bits a byte, least significant first). A key or range start is stored
/// as its distance from the previous one's end (the first from 0), so consecutive keys cost a
/// byte each.
enum ChangeLogFormat {
    /// The version byte of entries this build writes and reads.
    static let version: UInt8 = 1

    /// The entry of `changes`.
    static func encode(_ changes: ChangeSet) -> [UInt8] {
        var out: [UInt8] = [version, changes.schemaChanged ? 1 : 0]
        let classIDs = changes.classes.keys.sorted()
        appendVarint(UInt64(classIDs.count), to: &out)
        for classID in classIDs {
            let change = changes[classID]
            appendVarint(UInt64(classID), to: &out)
            out.append((change.unlistedModifications == nil ? 0 : 1) | (change.listEdits.isEmpty ? 0 : 2))
            appendRanges(change.inserted, to: &out)
            appendRanges(change.deleted, to: &out)
            appendVarint(UInt64(change.modified.count), to: &out)
            var previous: UInt64 = 0
            for key in change.modified.keys.sorted() {
                appendVarint(key - previous, to: &out)
                previous = key
                appendColumns(change.modified[key] ?? ColumnSet(), to: &out)
            }
            if let unlisted = change.unlistedModifications { appendColumns(unlisted, to: &out) }
            if !change.listEdits.isEmpty { appendListEdits(change.listEdits, to: &out) }
        }
        return out
    }

    /// Appends the list edits of one class (see the grammar above).
    private static func appendListEdits(_ lists: [UInt64: [Int: [ListEdit]]], to out: inout [UInt8]) {
        appendVarint(UInt64(lists.count), to: &out)
        var previous: UInt64 = 0
        for key in lists.keys.sorted() {
            appendVarint(key - previous, to: &out)
            previous = key
            let columns = lists[key] ?? [:]
            appendVarint(UInt64(columns.count), to: &out)
            for column in columns.keys.sorted() {
                appendVarint(UInt64(column), to: &out)
                let edits = columns[column] ?? []
                appendVarint(UInt64(edits.count), to: &out)
                for edit in edits {
                    switch edit {
                    case .insert(let at, let count): out.append(0); appendVarint(UInt64(at), to: &out); appendVarint(UInt64(count), to: &out)
                    case .erase(let at, let count): out.append(1); appendVarint(UInt64(at), to: &out); appendVarint(UInt64(count), to: &out)
                    case .set(let at): out.append(2); appendVarint(UInt64(at), to: &out)
                    case .move(let from, let to): out.append(3); appendVarint(UInt64(from), to: &out); appendVarint(UInt64(to), to: &out)
                    }
                }
            }
        }
    }

    /// The change set in `bytes`; throws ``ObjDBError/Code/corruptFile`` for bytes that are not
    /// an entry this build writes.
    static func decode(_ bytes: UnsafeRawBufferPointer, path: String? = nil) throws -> ChangeSet {
        var reader = Reader(bytes: bytes)
        func damaged(_ what: String) -> ObjDBError {
            ObjDBError(.corruptFile, "An entry of the change log is damaged: \(what)", path: path)
        }
        guard let version = reader.byte(), version == Self.version else { throw damaged("unknown version") }
        guard let flags = reader.byte(), flags & ~1 == 0 else { throw damaged("unknown flags") }
        var changes = ChangeSet(schemaChanged: flags & 1 != 0)
        guard let classCount = reader.varint() else { throw damaged("no class count") }
        var previousClass: UInt64?
        for _ in 0..<classCount {
            guard let classID = reader.varint(), classID <= UInt64(UInt32.max), previousClass.map({ classID > $0 }) ?? true,
                let classFlags = reader.byte(), classFlags & ~3 == 0
            else { throw damaged("a class record") }
            previousClass = classID
            var change = ClassChangeSet()
            guard let inserted = reader.ranges(), let deleted = reader.ranges() else { throw damaged("key ranges") }
            // A commit never inserts and deletes the same key (one inserted and deleted again is neither).
            guard inserted.subtracting(deleted) == inserted else { throw damaged("keys both inserted and deleted") }
            change.inserted = inserted
            change.deleted = deleted
            guard let modifiedCount = reader.varint(), modifiedCount <= UInt64(bytes.count) else { throw damaged("the modified objects") }
            var key: UInt64 = 0
            for index in 0..<modifiedCount {
                guard let delta = reader.varint(), index == 0 || delta > 0 else { throw damaged("a modified object's key") }
                let (next, overflow) = key.addingReportingOverflow(delta)
                guard !overflow, let columns = reader.columns() else { throw damaged("a modified object") }
                key = next
                change.modified[key] = columns
            }
            if classFlags & 1 != 0 {
                guard let columns = reader.columns() else { throw damaged("the unlisted modifications") }
                change.unlistedModifications = columns
            }
            if classFlags & 2 != 0 {
                guard let lists = reader.listEdits() else { throw damaged("the list edits") }
                change.listEdits = lists
            }
            changes.classes[UInt32(classID)] = change
        }
        guard reader.isAtEnd else { throw damaged("bytes after the last class") }
        return changes
    }

    // MARK: Writing

    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        VarintBytes.append(value, to: &out)
    }

    private static func appendRanges(_ set: KeyRanges, to out: inout [UInt8]) {
        appendVarint(UInt64(set.ranges.count), to: &out)
        var next: UInt64 = 0
        for range in set.ranges {
            appendVarint(range.lowerBound - next, to: &out)
            appendVarint(range.upperBound - range.lowerBound, to: &out)
            next = range.upperBound &+ 1
        }
    }

    private static func appendColumns(_ set: ColumnSet, to out: inout [UInt8]) {
        let columns = set.columns
        appendVarint(UInt64(columns.count), to: &out)
        var previous = 0
        for column in columns {
            appendVarint(UInt64(column - previous), to: &out)
            previous = column
        }
    }

    // MARK: Reading

    /// Reads an entry (``VarintReader``, with the reads of its parts below).
    private typealias Reader = VarintReader
}

extension VarintReader {
    /// A varint that fits an `Int` position or count.
    mutating func position() -> Int? {
        guard let value = varint(), value <= UInt64(Int32.max) else { return nil }
        return Int(value)
    }

    /// List edits per object (keys ascending) and column.
    mutating func listEdits() -> [UInt64: [Int: [ListEdit]]]? {
        guard let count = varint(), count <= UInt64(bytes.count) else { return nil }
        var lists: [UInt64: [Int: [ListEdit]]] = [:]
        var key: UInt64 = 0
        for index in 0..<count {
            guard let delta = varint(), index == 0 || delta > 0 else { return nil }
            let (next, overflow) = key.addingReportingOverflow(delta)
            guard !overflow, let columnCount = varint(), columnCount <= UInt64(bytes.count) else { return nil }
            key = next
            var columns: [Int: [ListEdit]] = [:]
            for _ in 0..<columnCount {
                guard let column = position(), columns[column] == nil, let editCount = varint(), editCount <= UInt64(ListEdit.limit),
                    editCount <= UInt64(bytes.count)
                else { return nil }
                var edits: [ListEdit] = []
                for _ in 0..<editCount {
                    switch byte() {
                    case 0?:
                        guard let at = position(), let count = position() else { return nil }
                        edits.append(.insert(at: at, count: count))
                    case 1?:
                        guard let at = position(), let count = position() else { return nil }
                        edits.append(.erase(at: at, count: count))
                    case 2?:
                        guard let at = position() else { return nil }
                        edits.append(.set(at: at))
                    case 3?:
                        guard let from = position(), let to = position() else { return nil }
                        edits.append(.move(from: from, to: to))
                    default: return nil
                    }
                }
                columns[column] = edits
            }
            lists[key] = columns
        }
        return lists
    }

    /// Ranges that ascend without touching, as ``KeyRanges`` keeps them.
    mutating func ranges() -> KeyRanges? {
        guard let count = varint(), count <= UInt64(bytes.count) else { return nil }
        var set = KeyRanges()
        var next: UInt64 = 0
        var first = true
        for _ in 0..<count {
            guard let gap = varint(), let extra = varint(), first || gap > 0 else { return nil }
            let (start, overflow) = next.addingReportingOverflow(gap)
            let (end, overflow2) = start.addingReportingOverflow(extra)
            guard !overflow, !overflow2 else { return nil }
            set.append(start...end)
            guard end < .max else { return nil }
            next = end + 1
            first = false
        }
        return set
    }

    mutating func columns() -> ColumnSet? {
        guard let count = varint(), count <= UInt64(bytes.count) else { return nil }
        var set = ColumnSet()
        var column: UInt64 = 0
        for index in 0..<count {
            guard let delta = varint(), index == 0 || delta > 0 else { return nil }
            let (next, overflow) = column.addingReportingOverflow(delta)
            guard !overflow, next <= UInt64(UInt32.max) else { return nil }
            column = next
            set.formUnion(CollectionOfOne(Int(column)))
        }
        return set
    }
}
