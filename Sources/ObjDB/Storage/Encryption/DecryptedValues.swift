import Foundation

/// Where the values a transaction of an encrypted file decrypts live until the transaction
/// ends, so that the bytes a read returns stay valid as long as the memory map's would
/// (``Txn``): chunks of memory, filled in turn and freed together.
///
/// A read snapshot therefore keeps every value it has decrypted, once: its values never change,
/// so a value read again is found by table and key (``opened(table:key:)``) rather than
/// decrypted into new memory. The snapshots of one version share one such object
/// (``SharedSnapshotValues``). A write transaction's values change, so it keeps no such index.
/// Docs/Encryption.md counts the memory in the cost. Thread-safe: a snapshot may be read from
/// several threads, and several snapshots share it; the cipher runs outside the lock.
final class DecryptedValues: @unchecked Sendable {
    /// The lock of everything below: a mutex in memory of its own, which a row walk takes
    /// without the retain and release of the object around each call that an `NSLock` cost.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Unchecked exclusivity: every access is under ``mutex`` (a dynamic check cost a
    // thread-local lookup per value allocated).
    @exclusivity(unchecked) private var chunks: [UnsafeMutableRawBufferPointer] = []
    @exclusivity(unchecked) private var used = 0
    private static let chunkSize = ChunkPool.chunkSize
    /// Whether values are found again by table and key (read snapshots).
    let remembers: Bool
    /// The values opened so far under 8-byte keys (object keys, transaction ids, sequences).
    private let byObjectKey = OpenedValues()
    /// The tables ``reserve(_:table:)`` made room for.
    private var reservedTables: [UInt32] = []
    /// The values opened so far under other keys (named records).
    private var byName: [NameSlot: UnsafeRawBufferPointer] = [:]

    private struct NameSlot: Hashable {
        let table: UInt32
        let key: [UInt8]
    }

    /// The bytes handed out so far.
    @exclusivity(unchecked) private var allocatedBytes = 0

    /// Bytes held, for tests and statistics.
    var byteCount: Int { locked { allocatedBytes } }

    /// `remembers`: the transaction's values never change (a read snapshot).
    init(remembers: Bool) {
        self.remembers = remembers
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    /// `body` under the lock.
    @inline(__always)
    private func locked<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Makes room at once for the `count` rows of table `table` under 8-byte keys, before a walk
    /// of it (the table growing step by step cost a fifth of a walk of 100k rows); once per
    /// table, so that walking it again asks for nothing more.
    func reserve(_ count: Int, table: UInt32) {
        guard remembers else { return }
        locked {
            guard !reservedTables.contains(table) else { return }
            reservedTables.append(table)
            byObjectKey.reserve(count)
        }
    }

    /// The value opened before under `key` of table `table`, if this snapshot remembers it.
    func opened(table: UInt32, key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard remembers else { return nil }
        return locked {
            key.count == 8
                ? byObjectKey.find(table: table, key: key.loadUnaligned(as: UInt64.self))
                : byName[NameSlot(table: table, key: Array(key))]
        }
    }

    /// `copy` (memory of this object), the value under `key` of table `table`, to be found
    /// again by ``opened(table:key:)``.
    func remember(_ copy: UnsafeRawBufferPointer, table: UInt32, key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard remembers else { return copy }
        locked {
            if key.count == 8 {
                byObjectKey.insert(copy, table: table, key: key.loadUnaligned(as: UInt64.self))
            } else {
                byName[NameSlot(table: table, key: Array(key))] = copy
            }
        }
        return copy
    }

    /// `count` bytes of memory that live as long as this object.
    func allocate(_ count: Int) -> UnsafeMutableRawBufferPointer {
        locked { allocateLocked(count) }
    }

    /// `bytes` copied into memory that lives as long as this object.
    func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let target = allocate(bytes.count)
        if let base = bytes.baseAddress, let out = target.baseAddress, bytes.count > 0 { out.copyMemory(from: base, byteCount: bytes.count) }
        return UnsafeRawBufferPointer(target)
    }

    /// The value under 8-byte `key` of table `table`: the one opened before if this snapshot
    /// remembers it, else `count` new bytes that `open` fills (returning `false` if the value
    /// does not authenticate, and then `nil` here), remembered. `open` runs outside the lock, so
    /// the threads and snapshots sharing these values decrypt side by side; when two open the
    /// same value at once, both return the copy remembered first.
    func value(
        table: UInt32, objectKey key: UInt64, count: Int, _ open: (UnsafeMutableRawBufferPointer) -> Bool
    ) -> UnsafeRawBufferPointer? {
        pthread_mutex_lock(mutex)
        if remembers, let known = byObjectKey.find(table: table, key: key) {
            pthread_mutex_unlock(mutex)
            return known
        }
        let plain = allocateLocked(count)
        pthread_mutex_unlock(mutex)
        guard open(plain) else { return nil }
        guard remembers else { return UnsafeRawBufferPointer(plain) }
        return locked {
            // Another thread may have opened it meanwhile: every reader then keeps one copy.
            if let first = byObjectKey.find(table: table, key: key) { return first }
            byObjectKey.insert(UnsafeRawBufferPointer(plain), table: table, key: key)
            return UnsafeRawBufferPointer(plain)
        }
    }

    private func allocateLocked(_ count: Int) -> UnsafeMutableRawBufferPointer {
        do {
            allocatedBytes += count
            let aligned = (count + 7) & ~7
            if let last = chunks.last, last.count - used >= aligned {
                let start = used
                used += aligned
                return UnsafeMutableRawBufferPointer(rebasing: last[start..<(start + count)])
            }
            let size = max(Self.chunkSize, aligned)
            let chunk = size == Self.chunkSize ? ChunkPool.take() : UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
            if size == aligned && !chunks.isEmpty {
                // A large value gets a chunk of its own, kept before the one being filled.
                chunks.insert(chunk, at: chunks.count - 1)
                return UnsafeMutableRawBufferPointer(rebasing: chunk[0..<count])
            }
            chunks.append(chunk)
            used = aligned
            return UnsafeMutableRawBufferPointer(rebasing: chunk[0..<count])
        }
    }

    deinit {
        var pooled: [UnsafeMutableRawPointer] = []
        for chunk in chunks {
            guard let base = chunk.baseAddress else { continue }
            if chunk.count == Self.chunkSize { pooled.append(base) } else { chunk.deallocate() }
        }
        ChunkPool.give(pooled)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
}

/// The values a snapshot opened under 8-byte keys, by table and key: open addressing with
/// linear probing in memory of its own (no bounds, uniqueness or exclusivity checks per step; a
/// `Dictionary`'s SipHash cost a fifth of a row walk). Runs of 16 consecutive keys of a table
/// share a home run of 16 slots, so a walk in key order reads and fills the slots in order
/// rather than one cache line at random per row. Used under ``DecryptedValues``'s lock.
private final class OpenedValues {
    /// One entry; `table == 0` marks a free slot (tables are stored plus one).
    private struct Slot {
        var key: UInt64
        var start: UnsafeRawPointer?
        var count: Int
        var table: UInt32
    }

    /// Keys per home run.
    private static let run: UInt64 = 16
    // Unchecked exclusivity: used under ``DecryptedValues``'s lock, and no access overlaps
    // another.
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Slot>
    @exclusivity(unchecked) private var capacity = 1_024
    @exclusivity(unchecked) private var count = 0

    init() {
        slots = Self.emptySlots(capacity)
    }

    deinit { slots.deallocate() }

    /// `count` free slots, written at once: memory from the system that is read first (a
    /// probe) and written after (an insert) faults twice per page, which cost a walk more than
    /// this pass does.
    private static func emptySlots(_ count: Int) -> UnsafeMutablePointer<Slot> {
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: count)
        slots.initialize(repeating: Slot(key: 0, start: nil, count: 0, table: 0), count: count)
        return slots
    }

    /// Grows the table, if needed, to hold `extra` more values within its load factor.
    func reserve(_ extra: Int) {
        var wanted = capacity
        while (count + extra) * 2 > wanted { wanted *= 2 }
        if wanted > capacity { rehash(wanted) }
    }

    /// The first slot to probe for `key` of `table` (stored plus one).
    @inline(__always)
    private func home(_ table: UInt32, _ key: UInt64) -> Int {
        let mixed = ((key / Self.run) ^ (UInt64(table) &<< 40)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: (mixed >> 32) &* Self.run &+ key % Self.run) & (capacity - 1)
    }

    /// The value under `key` of `table`, if opened.
    @inline(__always)
    func find(table: UInt32, key: UInt64) -> UnsafeRawBufferPointer? {
        let table = table &+ 1
        var i = home(table, key)
        while slots[i].table != 0 {
            if slots[i].key == key && slots[i].table == table {
                return UnsafeRawBufferPointer(start: slots[i].start, count: slots[i].count)
            }
            i = (i + 1) & (capacity - 1)
        }
        return nil
    }

    /// Remembers `value` under `key` of `table` (replacing the one before, if any).
    func insert(_ value: UnsafeRawBufferPointer, table: UInt32, key: UInt64) {
        if (count + 1) * 2 > capacity { grow() }
        place(Slot(key: key, start: value.baseAddress, count: value.count, table: table &+ 1))
    }

    /// Puts `slot` in its place.
    @inline(__always)
    private func place(_ slot: Slot) {
        var i = home(slot.table, slot.key)
        while slots[i].table != 0 {
            if slots[i].key == slot.key && slots[i].table == slot.table {
                slots[i] = slot
                return
            }
            i = (i + 1) & (capacity - 1)
        }
        slots[i] = slot
        count += 1
    }

    private func grow() { rehash(capacity * 2) }

    /// Moves every value to a table of `newCapacity` slots (a power of two).
    private func rehash(_ newCapacity: Int) {
        let old = slots
        let oldCapacity = capacity
        capacity = newCapacity
        slots = Self.emptySlots(capacity)
        count = 0
        for i in 0..<oldCapacity where old[i].table != 0 { place(old[i]) }
        old.deallocate()
    }
}
