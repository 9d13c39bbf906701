import CLMDB

/// What a write transaction did to one row bucket (``BucketWrites``): the slots it wrote and
/// removed, and the bucket as stored, opened once.
struct BucketRecord {
    /// The table whose values the bucket holds.
    let table: Table
    /// The bucket's number: it holds object keys `16 × bucket` … `16 × bucket + 15`.
    let bucket: UInt64
    /// Slots given a value (in the record's values, ``BucketRecords/values(_:)``).
    var written: UInt16 = 0
    /// Slots whose value was deleted, or put on its own (too long for a bucket).
    var removed: UInt16 = 0
    /// Whether ``stored`` was read.
    var loaded = false
    /// The bucket as stored, opened; `nil` when none is stored or before ``loaded``.
    var stored: UnsafeRawBufferPointer?

    /// Whether the transaction changed a slot.
    var isChanged: Bool { written | removed != 0 }
}

/// The ``BucketRecord``s of a write transaction and their values, found by table and bucket.
///
/// Records live in pages taken from ``ChunkPool``, so that a transaction reuses memory an
/// earlier one mapped rather than fault in fresh pages (a transaction that rewrites 100,000
/// rows touches 6,250 buckets). A page holds ``perPage`` records and, before them, their 16
/// values each. A record's address never changes once made. The index is open addressing with
/// linear probing on record numbers: no per-record allocation, no hashing through `Hasher`.
/// Used on the writer's thread only.
final class BucketRecords {
    /// The bytes of one record's values: 16 buffer pointers.
    private static let valuesPerRecord = Int(RowBucket.keysPerBucket) * MemoryLayout<UnsafeRawBufferPointer>.stride
    /// Records per page: as many as fit in a chunk with their values.
    static let perPage = ChunkPool.chunkSize / (valuesPerRecord + MemoryLayout<BucketRecord>.stride)
    /// Where a page's records begin, after their values.
    private static let valuesBytes = perPage * valuesPerRecord

    // Unchecked exclusivity: one thread, and no access overlaps another.
    /// The pages, in the order they were taken: record `n` lies in page `n / perPage`.
    @exclusivity(unchecked) private var pages: [UnsafeMutableRawPointer] = []
    /// The number of records.
    @exclusivity(unchecked) private(set) var count = 0
    /// Record number plus one by slot; 0 marks a free slot.
    @exclusivity(unchecked) private var index: UnsafeMutablePointer<Int32>
    /// The number of slots of ``index``, a power of two at least twice ``count``.
    @exclusivity(unchecked) private var capacity = 1_024

    /// No records, an index of 1,024 slots and no page yet.
    init() {
        // The layout ``perPage`` assumes: records after the values, aligned, within a chunk.
        let stride = MemoryLayout<BucketRecord>.stride
        if Self.perPage < 1 || Self.valuesBytes % MemoryLayout<BucketRecord>.alignment != 0
            || Self.valuesBytes + Self.perPage * stride > ChunkPool.chunkSize
        {
            objdbFatal("BucketRecords: \(Self.perPage) records of \(stride) bytes and their values do not fit a chunk of \(ChunkPool.chunkSize) bytes")
        }
        index = .allocate(capacity: capacity)
        index.initialize(repeating: 0, count: capacity)
    }

    deinit {
        for page in pages {
            page.advanced(by: Self.valuesBytes).withMemoryRebound(to: BucketRecord.self, capacity: Self.perPage) {
                _ = $0.deinitialize(count: Self.perPage)
            }
            // Back to bytes: the pool hands the chunk to DecryptedValues next.
            page.bindMemory(to: UInt8.self, capacity: ChunkPool.chunkSize)
        }
        ChunkPool.give(pages)
        index.deallocate()
    }

    /// Record number `number`.
    @inline(__always)
    func record(_ number: Int) -> UnsafeMutablePointer<BucketRecord> {
        pages[number / Self.perPage].advanced(by: Self.valuesBytes).assumingMemoryBound(to: BucketRecord.self) + number % Self.perPage
    }

    /// The 16 values of record number `number`, by slot (meaningful where it wrote).
    @inline(__always)
    func values(_ number: Int) -> UnsafeMutablePointer<UnsafeRawBufferPointer> {
        pages[number / Self.perPage].assumingMemoryBound(to: UnsafeRawBufferPointer.self) + (number % Self.perPage) * Int(RowBucket.keysPerBucket)
    }

    /// The first index slot to probe for bucket `bucket` of the table `dbi`.
    @inline(__always)
    private func home(_ dbi: MDB_dbi, _ bucket: UInt64) -> Int {
        let mixed = (bucket ^ (UInt64(dbi) &<< 48)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 32) & (capacity - 1)
    }

    /// The number of the record of bucket `bucket` of `table`, made (with nothing done) on first
    /// use.
    func number(_ table: Table, _ bucket: UInt64) -> Int {
        var i = home(table.dbi, bucket)
        while index[i] != 0 {
            let found = Int(index[i] - 1)
            let candidate = record(found)
            if candidate.pointee.bucket == bucket && candidate.pointee.table.dbi == table.dbi { return found }
            i = (i + 1) & (capacity - 1)
        }
        let made = append(BucketRecord(table: table, bucket: bucket))
        if (count * 2) > capacity {
            rehash(capacity * 2)
        } else {
            index[i] = Int32(made + 1)
        }
        return made
    }

    /// Stores `new` as the next record, taking a page when the last one is full; returns its
    /// number.
    private func append(_ new: BucketRecord) -> Int {
        if count == pages.count * Self.perPage {
            let page = ChunkPool.take()
            guard let base = page.baseAddress else { objdbFatal("BucketRecords: a chunk without memory") }
            base.advanced(by: Self.valuesBytes).bindMemory(to: BucketRecord.self, capacity: Self.perPage)
                .initialize(repeating: BucketRecord(table: new.table, bucket: 0), count: Self.perPage)
            base.bindMemory(to: UnsafeRawBufferPointer.self, capacity: Self.perPage * Int(RowBucket.keysPerBucket))
            pages.append(base)
        }
        let made = count
        record(made).pointee = new
        count += 1
        return made
    }

    /// Rebuilds the index with `newCapacity` slots (a power of two).
    private func rehash(_ newCapacity: Int) {
        index.deallocate()
        capacity = newCapacity
        index = .allocate(capacity: capacity)
        index.initialize(repeating: 0, count: capacity)
        for number in 0..<count {
            let made = record(number).pointee
            var i = home(made.table.dbi, made.bucket)
            while index[i] != 0 { i = (i + 1) & (capacity - 1) }
            index[i] = Int32(number + 1)
        }
    }
}
