/// What one write transaction did to one class, and the class's key counter.
///
/// Object keys only grow, so every key from ``firstNewKey`` up was inserted by this transaction:
/// insertions need no bookkeeping per object.
final class ClassChanges {
    /// The first key this transaction could allocate.
    let firstNewKey: UInt64
    /// The next key to allocate; written to `meta` at commit.
    @exclusivity(unchecked) var nextKey: UInt64
    /// Objects that existed before the transaction and were deleted.
    @exclusivity(unchecked) var deletions: Set<UInt64> = []
    /// Writes to objects that existed before the transaction, in order: appending is cheaper
    /// than a dictionary update per write. ``modifications`` merges it. Plain words, so that
    /// appending and freeing entries is a copy of bytes; columns from 64 up (rare) are logged in
    /// ``wideModificationLog``.
    @exclusivity(unchecked) private var modificationLog: [(key: UInt64, low: UInt64)] = []
    /// Writes to columns from 64 up, as (key, column).
    @exclusivity(unchecked) private var wideModificationLog: [(key: UInt64, column: Int)] = []
    /// Whether the class was emptied by `deleteAll()`.
    var cleared = false {
        didSet { if cleared { clearedBelowKey = nextKey } }
    }
    /// The key counter when the class was last emptied: keys below it that this transaction
    /// inserted are gone too.
    private(set) var clearedBelowKey: UInt64?
    /// Objects this transaction inserted and deleted again.
    @exclusivity(unchecked) private(set) var deletedNewKeys: Set<UInt64> = []

    /// The next auto-increment primary key, once loaded (see ``Database/nextAutoIncrementID``).
    @exclusivity(unchecked) var nextAutoID: Int?
    /// ``nextAutoID`` as loaded, to tell whether it must be written at commit.
    @exclusivity(unchecked) var loadedAutoID: Int?

    /// A record of a class whose key counter is at `nextKey`, before the transaction changed it.
    init(nextKey: UInt64) {
        firstNewKey = nextKey
        self.nextKey = nextKey
    }

    /// Whether `key` was inserted by this transaction.
    func isNew(_ key: UInt64) -> Bool { key >= firstNewKey }

    /// Allocates an object key.
    ///
    /// - Throws: ``ObjDBError/Code/corruptFile`` once the counter reaches `UInt64.max`, which
    ///   only a damaged file can hold (it takes 2^64 inserts); that key is never handed out.
    func allocateKey() throws -> UInt64 {
        guard nextKey < .max else {
            throw ObjDBError(.corruptFile, "No object key is left: the class's key counter is at 2^64 - 1, which only a damaged file reaches")
        }
        defer { nextKey += 1 }
        return nextKey
    }

    /// Records the deletion of object `key`.
    func deleted(_ key: UInt64) {
        guard !isNew(key) else {
            deletedNewKeys.insert(key)
            return
        }
        deletions.insert(key)
    }

    /// Whether the transaction wrote to an object that existed before.
    var hasModifications: Bool { !modificationLog.isEmpty || !wideModificationLog.isEmpty }

    /// A deleted row was written back (a savepoint undid the delete): the object exists again,
    /// and may differ in any column from what it was before the transaction.
    func restored(_ key: UInt64, columnCount: Int) {
        if isNew(key) {
            deletedNewKeys.remove(key)
        } else if deletions.remove(key) != nil {
            modified(key, columns: 0..<columnCount)
        }
    }

    /// The writes to objects that existed before: each object with its columns when there are
    /// at most `limit` entries, else `nil` and only the union of the columns (cheap: no
    /// dictionary of every object).
    func modificationSummary(limit: Int) -> (perObject: [UInt64: ColumnSet]?, columns: ColumnSet) {
        var union = ColumnSet()
        if modificationLog.count + wideModificationLog.count > limit {
            var low: UInt64 = 0
            for entry in modificationLog { low |= entry.low }
            union.formUnion(low: low)
            union.formUnion(wideModificationLog.map(\.column))
            return (nil, union)
        }
        let perObject = modifications
        for columns in perObject.values { union.formUnion(columns) }
        return (perObject, union)
    }

    /// Records a write of `columns` to object `key` (nothing for an object this transaction
    /// inserted: its insertion says it all).
    func modified(_ key: UInt64, columns: some Sequence<Int>) {
        guard !isNew(key) else { return }
        var low: UInt64 = 0
        for column in columns {
            if column < 64 { low |= 1 << UInt64(column) } else { wideModificationLog.append((key, column)) }
        }
        modificationLog.append((key, low))
    }

    /// Objects that existed before the transaction and still exist, with the columns written.
    var modifications: [UInt64: ColumnSet] {
        var merged: [UInt64: ColumnSet] = [:]
        for entry in modificationLog where !deletions.contains(entry.key) {
            merged[entry.key, default: ColumnSet()].formUnion(low: entry.low)
        }
        for entry in wideModificationLog where !deletions.contains(entry.key) {
            merged[entry.key, default: ColumnSet()].formUnion(CollectionOfOne(entry.column))
        }
        return merged
    }
}

extension ClassChanges {
    /// Whether the transaction inserted, deleted or wrote an object of the class.
    var hasChanges: Bool {
        nextKey > firstNewKey || cleared || !deletions.isEmpty || !deletedNewKeys.isEmpty || hasModifications
    }

    /// The changes of the class as the log keeps them.
    var changeSet: ClassChangeSet {
        var change = ClassChangeSet()
        // Keys handed out by this transaction: every one of them may name an object now (a key
        // whose insert failed names none, which observers find when they read it).
        let firstKept = max(firstNewKey, clearedBelowKey ?? firstNewKey)
        if nextKey > firstKept {
            var inserted = KeyRanges()
            inserted.append(firstKept...(nextKey - 1))
            change.inserted = deletedNewKeys.isEmpty ? inserted : inserted.subtracting(KeyRanges(deletedNewKeys))
        }
        if cleared {
            // Every object that existed before is gone.
            if firstNewKey > 0 { change.deleted.append(0...(firstNewKey - 1)) }
            return change
        }
        change.deleted = KeyRanges(deletions)
        let (perObject, columns) = modificationSummary(limit: ChangeLog.listedModificationsLimit)
        if let perObject {
            change.modified = perObject
        } else {
            change.unlistedModifications = columns
        }
        return change
    }
}
