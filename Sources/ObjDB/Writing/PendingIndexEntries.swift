/// Secondary-index entries added in a write transaction and not written to their tables yet.
///
/// A put into an index multimap costs about 2,100 instructions when the indexed values come in
/// random order: a search of the index's B-tree, then of the value's own tree of object keys.
/// Grouped by value and written with `MDB_MULTIPLE`, which stays where the previous object key
/// went, an entry costs about 750. So inserts and changed values only log their secondary-index
/// entries here; ``Database/flushPendingIndexEntries(_:_:)`` writes them, grouped, at commit,
/// before anything reads index tables (a query, a delete of all objects), and before an entry
/// of an object that may have logged entries is deleted (a value that changes again, a delete,
/// a savepoint's rollback). Primary-key entries are written at once: their put is what refuses
/// a taken key.
final class PendingIndexEntries {
    /// One logged entry: its key is `bytes[start ..< start + count]`.
    private struct Entry {
        let table: Table
        let start: Int
        let count: Int
        let objectKey: UInt64
    }

    /// The keys of all entries, one after the other.
    private let bytes = ScratchBuffer(capacity: 4096)
    @exclusivity(unchecked) private var entries: [Entry] = []

    /// The lowest and highest object key with a logged entry.
    @exclusivity(unchecked) private var lowestObjectKey = UInt64.max
    @exclusivity(unchecked) private var highestObjectKey = UInt64.min

    /// Whether no entry waits.
    var isEmpty: Bool { entries.isEmpty }

    /// Whether an entry of `objectKey` may be logged: `false` means surely not. Loops that
    /// change objects in key order (as iterating a class does) change each object after every
    /// key logged so far, so their deletes need no flush.
    @inline(__always)
    func mayHoldEntries(of objectKey: UInt64) -> Bool {
        objectKey >= lowestObjectKey && objectKey <= highestObjectKey
    }

    /// Logs the entry `key` → `objectKey` of `table`.
    func add(_ table: Table, key: UnsafeRawBufferPointer, objectKey: UInt64) {
        entries.append(Entry(table: table, start: bytes.count, count: key.count, objectKey: objectKey))
        bytes.append(bytes: key)
        lowestObjectKey = min(lowestObjectKey, objectKey)
        highestObjectKey = max(highestObjectKey, objectKey)
    }

    /// Forgets every entry (after they were written, or with the transaction).
    func removeAll() {
        bytes.reset()
        entries.removeAll(keepingCapacity: true)
        lowestObjectKey = .max
        highestObjectKey = .min
    }

    /// Calls `body` once per table and key, tables and keys in ascending order, with the
    /// key's object keys ascending.
    ///
    /// - Complexity: O(n) for n entries (an open-addressing table on a cheap hash of the key's
    ///   words), plus sorting the distinct keys and each key's object keys (O(m) for the m
    ///   object keys of an insert loop, which ascend already).
    func forEachGroup(_ body: (Table, UnsafeRawBufferPointer, [UInt64]) throws -> Void) rethrows {
        // Not changed until the groups are written: the keys below point into it.
        let all = bytes.bytes
        var groups: [Group] = []
        var slots = [Int](repeating: -1, count: 64)
        for entry in entries {
            let key = UnsafeRawBufferPointer(rebasing: all[entry.start ..< entry.start + entry.count])
            var slot = Self.hash(key, entry.table) & (slots.count - 1)
            while true {
                let found = slots[slot]
                if found < 0 {
                    slots[slot] = groups.count
                    groups.append(Group(table: entry.table, key: key, objectKeys: [entry.objectKey]))
                    if groups.count * 2 > slots.count { slots = Self.rehash(groups, capacity: slots.count * 2) }
                    break
                }
                if groups[found].table == entry.table && sameBytes(groups[found].key, key) {
                    groups[found].objectKeys.append(entry.objectKey)
                    break
                }
                slot = (slot + 1) & (slots.count - 1)
            }
        }
        groups.sort { a, b in
            a.table.dbi != b.table.dbi ? a.table.dbi < b.table.dbi : a.key.lexicographicallyPrecedes(b.key)
        }
        for index in groups.indices {
            groups[index].objectKeys.sort()
            try body(groups[index].table, groups[index].key, groups[index].objectKeys)
        }
    }

    /// One table and key, and the object keys logged under it.
    private struct Group {
        let table: Table
        let key: UnsafeRawBufferPointer
        var objectKeys: [UInt64]
    }

    /// A table of `capacity` slots (a power of two) holding the positions of `groups`.
    private static func rehash(_ groups: [Group], capacity: Int) -> [Int] {
        var slots = [Int](repeating: -1, count: capacity)
        for (position, group) in groups.enumerated() {
            var slot = hash(group.key, group.table) & (capacity - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = position
        }
        return slots
    }

    /// A hash of `key` and `table` for the grouping table: the key's 8-byte words (the last
    /// one padded with zeros) mixed by multiplication. Not for anything an attacker controls
    /// the cost of: a run of equal hashes only makes the grouping slower.
    private static func hash(_ key: UnsafeRawBufferPointer, _ table: Table) -> Int {
        var h = UInt64(table.dbi) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(key.count)
        var offset = 0
        while offset + 8 <= key.count {
            h = (h ^ key.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            offset += 8
        }
        if offset < key.count {
            var last: UInt64 = 0
            for index in offset..<key.count { last = last << 8 | UInt64(key[index]) }
            h = (h ^ last) &* 0xC4CE_B9FE_1A85_EC53
            h ^= h >> 29
        }
        return Int(truncatingIfNeeded: h)
    }
}
