import CLMDB
import Foundation

/// The primary-key and index entries an encrypted file's write transaction has put and not yet
/// written to LMDB: fast path ``FastPaths/deferredKeyPuts``.
///
/// In an encrypted file these tables are keyed by keyed hashes (``TableSeal/keys``), so the
/// entries of objects added one after another land at random places in the B-tree: a put cost
/// about 550 ns per object of a 100,000-object insert (where LMDB alone takes about 150 ns a
/// put for keys that ascend, 380 for random 16-byte keys).
/// So puts of one object key under a hashed key are kept here and written when anything else
/// uses their table (a read, a count, a delete, another kind of put: ``Txn`` and ``Cursor``
/// call ``flush(_:)`` first) or the transaction commits (``flushAll()``), sorted, through one
/// cursor — appended when the table was empty. A put that refuses a taken key
/// (``PutFlags/noOverwrite``) still answers at once: from the entries waiting here, and from
/// LMDB unless the table is empty. Nothing that reads through ``Txn`` or ``Cursor`` can tell
/// that an entry waits (figures read from LMDB's records, `mdb_stat`, call
/// ``Txn/settleAllKeys()`` first).
///
/// Puts the transaction reads back at once (a unique value's entry, an upsert's primary key)
/// are written at once instead (``Cursor/put(key:value:flags:mayWait:)``). Waiting puts do not
/// pass ``Txn/useOf(_:)``: table guards watch tables of rows, never keyed tables.
///
/// A write that fails (a full map) fails the transaction: the error is kept and thrown again by
/// every later put and write, and by the commit, so no entry can be lost by a read that
/// swallowed the error.
///
/// The slow twin is the put at once (the fast path switched off). Under the internal checks every
/// flushed entry is read back, in order; every "not taken" answered from an empty table is
/// checked against LMDB; every key the filter rules out is looked for among the waiting entries
/// (up to 20,000). One per write transaction of an encrypted file; used on the writer's thread.
final class DeferredKeyPuts {
    /// One waiting entry: the stored key (16 bytes) as two big-endian words, so that numeric order
    /// is LMDB's byte order, and the object key under it.
    private struct Entry {
        /// The stored key's first 8 bytes, big-endian.
        var high: UInt64
        /// Its last 8 bytes, big-endian.
        var low: UInt64
        /// The value: an object key.
        var objectKey: UInt64
        /// Whether the put refused a taken key (the first entry of its key written so too).
        var noOverwrite: Bool
    }

    /// The waiting entries of one table, with a filter of their keys: an open-addressing table
    /// of 16-bit fingerprints (the key's first 16 bits), homed by its last bits. A key not in the
    /// filter surely does not wait; one in it may, and is then looked for among the entries
    /// (about one key in 40,000 at the filter's fullest, most of them there). Two bytes
    /// per slot keep the filter in the CPU's cache: slots of whole keys cost a memory load per
    /// object added (about 100 ns on the benchmark's machine).
    private final class Waiting {
        /// The table the entries go to.
        let table: Table
        /// The entries, in the order they were put.
        @exclusivity(unchecked) var entries: [Entry] = []
        /// The filter's slots: 0 is a free slot.
        @exclusivity(unchecked) private var slots: UnsafeMutablePointer<UInt16>
        /// The number of slots, a power of two.
        @exclusivity(unchecked) private var capacity = Waiting.initialCapacity
        /// The filter's first size.
        private static let initialCapacity = 1_024

        /// No entries, for `table`.
        init(table: Table) {
            self.table = table
            slots = Self.emptySlots(capacity)
        }

        deinit { slots.deallocate() }

        /// Forgets every entry, keeping the memory of a small filter (a table read after every
        /// put, as the next add's check of a unique value reads its index, is emptied once per
        /// add).
        func removeAll() {
            entries.removeAll(keepingCapacity: entries.count <= Self.initialCapacity / 2)
            if capacity == Self.initialCapacity {
                slots.update(repeating: 0, count: capacity)
            } else {
                slots.deallocate()
                capacity = Self.initialCapacity
                slots = Self.emptySlots(capacity)
            }
        }

        /// `count` free slots.
        private static func emptySlots(_ count: Int) -> UnsafeMutablePointer<UInt16> {
            let slots = UnsafeMutablePointer<UInt16>.allocate(capacity: count)
            slots.initialize(repeating: 0, count: count)
            return slots
        }

        /// The fingerprint of a key whose first word is `high` (never 0).
        @inline(__always)
        private static func fingerprint(_ high: UInt64) -> UInt16 {
            let print = UInt16(truncatingIfNeeded: high >> 48)
            return print == 0 ? 1 : print
        }

        /// Whether an entry may wait under the key `high`–`low` (`false`: surely not).
        @inline(__always)
        func mayHold(_ high: UInt64, _ low: UInt64) -> Bool {
            let print = Self.fingerprint(high)
            var slot = Int(truncatingIfNeeded: low) & (capacity - 1)
            while slots[slot] != 0 {
                if slots[slot] == print { return true }
                slot = (slot + 1) & (capacity - 1)
            }
            return false
        }

        /// Adds `entry` and its key to the filter.
        @inline(__always)
        func append(_ entry: Entry) {
            if (entries.count + 1) * 2 > capacity { refilter(capacity * 2) }
            entries.append(entry)
            add(entry)
        }

        /// Adds the key of `entry` to the filter.
        private func add(_ entry: Entry) {
            let print = Self.fingerprint(entry.high)
            var slot = Int(truncatingIfNeeded: entry.low) & (capacity - 1)
            while slots[slot] != 0 {
                if slots[slot] == print { return }
                slot = (slot + 1) & (capacity - 1)
            }
            slots[slot] = print
        }

        /// Makes the filter `newCapacity` slots and adds every entry's key again.
        private func refilter(_ newCapacity: Int) {
            slots.deallocate()
            capacity = newCapacity
            slots = Self.emptySlots(capacity)
            for entry in entries { add(entry) }
        }
    }

    /// The tables with entries waiting (few: a class's primary key and unique values), and
    /// tables emptied since, whose memory is kept for their next puts.
    @exclusivity(unchecked) private var waiting: [Waiting] = []
    /// The table of the last put, found without a search of ``waiting`` (a loop of adds puts
    /// into one table, or two).
    @exclusivity(unchecked) private var last: Waiting?
    /// The transaction the entries are written in.
    private let handle: OpaquePointer
    /// The environment, for the errors' path.
    private unowned(unsafe) let environment: Environment
    /// The first error a write of waiting entries met: the transaction cannot commit.
    @exclusivity(unchecked) private var failure: (any Error)?
    /// The entries one table may hold before they are written: a transaction that adds millions
    /// of objects keeps no more than this in memory (about 40 MB). Tests lower it with
    /// `OBJDB_DEFERRED_KEY_LIMIT` (internal checks only).
    static let limit: Int = {
        #if OBJDB_INTERNAL_CHECKS
        if let text = ProcessInfo.processInfo.environment["OBJDB_DEFERRED_KEY_LIMIT"], let value = Int(text), value > 0 { return value }
        #endif
        return 1 << 20
    }()

    /// Nothing waiting, for the write transaction `handle` of `environment`.
    init(_ handle: OpaquePointer, environment: Environment) {
        self.handle = handle
        self.environment = environment
    }

    /// Whether entries of table `dbi` wait. Inlined: every use of a keyed table in a write
    /// transaction asks.
    @inline(__always)
    func holds(_ dbi: MDB_dbi) -> Bool {
        !waiting.isEmpty && waiting.contains { $0.table.dbi == dbi && !$0.entries.isEmpty }
    }

    /// Whether a put of `value` with `flags` into `table` can wait here: one object key under a
    /// hashed key of a multimap of object keys, refusing a taken key or not.
    @inline(__always)
    static func accepts(_ table: Table, storedKey: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: PutFlags) -> Bool {
        table.seal == .keys && table.flags == .multimap && storedKey.count == 16 && value.count == 8
            && flags.isSubset(of: .noOverwrite)
    }

    /// Puts `objectKey` under `storedKey` (16 bytes, as LMDB is to store it) of `table`, to be
    /// written later; with `noOverwrite`, first answers whether the key is taken (`false`, and
    /// nothing is put), as `MDB_NOOVERWRITE` would.
    func put(_ table: Table, storedKey: UnsafeRawBufferPointer, objectKey: UInt64, noOverwrite: Bool) throws -> Bool {
        if let failure { throw failure }
        let high = UInt64(bigEndian: storedKey.loadUnaligned(as: UInt64.self))
        let low = UInt64(bigEndian: storedKey.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let entries: Waiting
        if let last, last.table.dbi == table.dbi {
            entries = last
        } else if let existing = waiting.first(where: { $0.table.dbi == table.dbi }) {
            entries = existing
        } else {
            entries = Waiting(table: table)
            waiting.append(entries)
        }
        last = entries
        if noOverwrite {
            // Perhaps waiting: the entries are read one by one (a fraction of a millisecond for
            // a hundred thousand, about once per hundred thousand keys).
            if entries.mayHold(high, low), entries.entries.contains(where: { $0.high == high && $0.low == low }) { return false }
            #if OBJDB_INTERNAL_CHECKS
            if internalChecksEnabled && entries.entries.count <= 20_000 {
                internalCheck(!entries.entries.contains { $0.high == high && $0.low == low }, "deferredKeyPuts: the filter missed a waiting key")
            }
            #endif
            if try isStored(table, storedKey) { return false }
        }
        entries.append(Entry(high: high, low: low, objectKey: objectKey, noOverwrite: noOverwrite))
        if entries.entries.count >= Self.limit { try flush(table.dbi) }
        return true
    }

    /// Whether LMDB stores `key` in `table`; an empty table is not searched.
    private func isStored(_ table: Table, _ key: UnsafeRawBufferPointer) throws -> Bool {
        var stat = MDB_stat()
        try lmdbCheck(mdb_stat(handle, table.dbi, &stat), "mdb_stat", path: environment.path)
        var k = MDB_val(bytes: key)
        var v = MDB_val()
        if stat.ms_entries == 0 {
            #if OBJDB_INTERNAL_CHECKS
            if internalChecksEnabled {
                internalCheck(mdb_get(handle, table.dbi, &k, &v) == MDB_NOTFOUND, "deferredKeyPuts: an empty table holds a key")
            }
            #endif
            return false
        }
        let rc = mdb_get(handle, table.dbi, &k, &v)
        if rc == MDB_NOTFOUND { return false }
        try lmdbCheck(rc, "mdb_get", path: environment.path)
        return true
    }

    /// Forgets the entries of table `dbi` (it is being emptied).
    func discard(_ dbi: MDB_dbi) {
        for table in waiting where table.table.dbi == dbi { table.removeAll() }
    }

    /// Writes every waiting entry (before the transaction commits, and before figures of
    /// several tables are read); throws the error of any write that failed before.
    func flushAll() throws {
        for table in waiting where !table.entries.isEmpty { try flush(table.table.dbi) }
        if let failure { throw failure }
    }

    /// Writes the waiting entries of table `dbi`, sorted, through one cursor: appended if the
    /// table is empty, each put where the previous one went otherwise.
    func flush(_ dbi: MDB_dbi) throws {
        if let failure { throw failure }
        guard let table = waiting.first(where: { $0.table.dbi == dbi }), !table.entries.isEmpty else { return }
        // Taken first: should a write fail, the failure is kept and fails the transaction, and
        // nothing is written twice.
        let entries = Self.sorted(table.entries)
        table.removeAll()
        do {
            try write(entries, dbi)
        } catch {
            failure = error
            throw error
        }
    }

    /// Writes `entries`, sorted, into table `dbi` through one cursor.
    private func write(_ entries: [Entry], _ dbi: MDB_dbi) throws {
        var cursor: OpaquePointer?
        try lmdbCheck(mdb_cursor_open(handle, dbi, &cursor), "mdb_cursor_open", path: environment.path)
        defer { mdb_cursor_close(cursor) }
        var stat = MDB_stat()
        try lmdbCheck(mdb_stat(handle, dbi, &stat), "mdb_stat", path: environment.path)
        var appends = stat.ms_entries == 0
        var previous: Entry?
        for entry in entries {
            let sameKey = previous.map { $0.high == entry.high && $0.low == entry.low } ?? false
            if sameKey, previous?.objectKey == entry.objectKey { continue }
            #if OBJDB_INTERNAL_CHECKS
            // Tests only: an entry lost, for the check below to catch.
            if previous == nil, FastPaths.broken.contains(.deferredKeyPuts) {
                previous = entry
                continue
            }
            #endif
            previous = entry
            // The first entry of a key refuses a taken key, as its put did; later ones are duplicates.
            var rc = Self.put(entry, cursor, flags: appends ? (sameKey ? MDB_APPENDDUP : MDB_APPEND) : (entry.noOverwrite && !sameKey ? MDB_NOOVERWRITE : 0))
            if rc == MDB_KEYEXIST && appends {
                // Not past the last entry after all: put the rest where they belong.
                appends = false
                rc = Self.put(entry, cursor, flags: entry.noOverwrite && !sameKey ? MDB_NOOVERWRITE : 0)
            }
            if rc == MDB_KEYEXIST {
                throw ObjDBError(.storage, "An index entry of an encrypted file, checked when it was put, was taken when it was written", path: environment.path)
            }
            try lmdbCheck(rc, "mdb_cursor_put", path: environment.path)
        }
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled {
            internalCheck(
                zip(entries, entries.dropFirst()).allSatisfy { ($0.high, $0.low, $0.objectKey) <= ($1.high, $1.low, $1.objectKey) },
                "deferredKeyPuts: entries written out of order")
            for entry in entries {
                var key = (entry.high.bigEndian, entry.low.bigEndian)
                var value = entry.objectKey
                let found = withUnsafeBytes(of: &key) { k in
                    withUnsafeBytes(of: &value) { v in
                        var kv = MDB_val(bytes: k)
                        var vv = MDB_val(bytes: v)
                        return mdb_cursor_get(cursor, &kv, &vv, MDB_GET_BOTH) == MDB_SUCCESS
                    }
                }
                internalCheck(found, "deferredKeyPuts: an entry written is not in its table")
            }
        }
        #endif
    }

    /// `entries` in the order of their keys, then object keys. The keys are keyed hashes, spread
    /// evenly (whoever chooses the values cannot choose their hashes without the key): a pass by their first 16 bits puts each in its bucket, and the few in a bucket
    /// are sorted in place (`sort` took a tenth of an insert of 100,000 objects).
    ///
    /// - Complexity: O(n) for n evenly spread keys, plus 65,536 counters; O(m log m) more for
    ///   a key with m entries.
    private static func sorted(_ entries: [Entry]) -> [Entry] {
        func precedes(_ a: Entry, _ b: Entry) -> Bool { (a.high, a.low, a.objectKey) < (b.high, b.low, b.objectKey) }
        guard entries.count > 256 else { return entries.sorted(by: precedes) }
        var starts = [Int](repeating: 0, count: (1 << 16) + 1)
        for entry in entries { starts[Int(entry.high >> 48) + 1] += 1 }
        for bucket in 0..<(1 << 16) { starts[bucket + 1] += starts[bucket] }
        var next = starts
        // Every position is written once below (trivial values: the copy is only storage).
        var sorted = entries
        sorted.withUnsafeMutableBufferPointer { buffer in
            for entry in entries {
                let bucket = Int(entry.high >> 48)
                buffer[next[bucket]] = entry
                next[bucket] += 1
            }
        }
        sorted.withUnsafeMutableBufferPointer { buffer in
            for bucket in 0..<(1 << 16) where starts[bucket + 1] - starts[bucket] > 1 {
                // Many entries of one key (the object keys a mixed-link target is linked from)
                // share a bucket: those are sorted as any others.
                if starts[bucket + 1] - starts[bucket] > 32 {
                    var run = UnsafeMutableBufferPointer(rebasing: buffer[starts[bucket]..<starts[bucket + 1]])
                    run.sort(by: precedes)
                    continue
                }
                // Insertion sort: a bucket holds one or two entries on average.
                for i in (starts[bucket] + 1)..<starts[bucket + 1] {
                    let entry = buffer[i]
                    var j = i
                    while j > starts[bucket] && precedes(entry, buffer[j - 1]) {
                        buffer[j] = buffer[j - 1]
                        j -= 1
                    }
                    buffer[j] = entry
                }
            }
        }
        return sorted
    }

    /// `mdb_cursor_put` of `entry` with `flags`; LMDB's result code.
    private static func put(_ entry: Entry, _ cursor: OpaquePointer?, flags: Int32) -> Int32 {
        var key = (entry.high.bigEndian, entry.low.bigEndian)
        var value = entry.objectKey
        return withUnsafeBytes(of: &key) { k in
            withUnsafeBytes(of: &value) { v in
                var kv = MDB_val(bytes: k)
                var vv = MDB_val(bytes: v)
                return mdb_cursor_put(cursor, &kv, &vv, UInt32(flags))
            }
        }
    }
}
