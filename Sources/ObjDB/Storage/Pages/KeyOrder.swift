/// How a B-tree orders its keys, or a tree of duplicates its values (LMDB's comparison
/// functions for the tree's flags).
enum KeyOrder: Sendable {
    /// Bytewise, then shorter first (`mdb_cmp_memn`, the default).
    case bytes
    /// Bytewise from the last byte backwards (`mdb_cmp_memnr`, `MDB_REVERSEKEY`/`MDB_REVERSEDUP`).
    case reverseBytes
    /// Native unsigned integers of 4 or 8 bytes (`MDB_INTEGERKEY`/`MDB_INTEGERDUP`).
    case integer

    /// The order of a tree's keys from its flags.
    init(keysOf flags: UInt16) {
        if flags & PageFormat.TreeFlag.integerKey != 0 {
            self = .integer
        } else if flags & PageFormat.TreeFlag.reverseKey != 0 {
            self = .reverseBytes
        } else {
            self = .bytes
        }
    }

    /// The order of a tree's duplicates from its flags.
    init(duplicatesOf flags: UInt16) {
        if flags & PageFormat.TreeFlag.integerDup != 0 {
            self = .integer
        } else if flags & PageFormat.TreeFlag.reverseDup != 0 {
            self = .reverseBytes
        } else {
            self = .bytes
        }
    }

    /// Whether a key of `size` bytes can be in such a tree.
    func accepts(size: Int) -> Bool {
        self == .integer ? size == 4 || size == 8 : size <= PageFormat.maxKeySize
    }

    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        switch self {
        case .bytes:
            return compareBytes(a, b)
        case .integer:
            guard a.count == b.count else { return a.count - b.count }
            if a.count == 8 {
                let x = a.u64(0), y = b.u64(0)
                return x < y ? -1 : x == y ? 0 : 1
            }
            let x = a.u32(0), y = b.u32(0)
            return x < y ? -1 : x == y ? 0 : 1
        case .reverseBytes:
            var i = a.count
            var j = b.count
            while i > 0 && j > 0 {
                i -= 1
                j -= 1
                let x = a[i], y = b[j]
                if x != y { return Int(x) - Int(y) }
            }
            return a.count - b.count
        }
    }
}

/// A set of page numbers up to ``limit``, one bit each, in chunks of 65,536 pages allocated when a
/// page in them is first added: memory follows the pages a walk reaches, not the last page a
/// meta page claims.
struct PageSet {
    private var chunks: [UInt64: [UInt64]] = [:]
    /// Pages above this are out of range.
    let limit: UInt64
    /// The number of pages in the set.
    private(set) var population = 0

    private static let chunkShift: UInt64 = 16
    private static let wordsPerChunk = 1 << (16 - 6)

    init(limit: UInt64) { self.limit = limit }

    /// Adds `page`; returns `false` if it was there already or is past ``limit``.
    mutating func insert(_ page: UInt64) -> Bool {
        guard page <= limit else { return false }
        let chunk = page >> Self.chunkShift
        let offset = Int(page & ((1 << Self.chunkShift) - 1))
        let bit: UInt64 = 1 << UInt64(offset & 63)
        var inserted = false
        chunks[chunk, default: [UInt64](repeating: 0, count: Self.wordsPerChunk)].withUnsafeMutableBufferPointer { words in
            if words[offset >> 6] & bit == 0 {
                words[offset >> 6] |= bit
                inserted = true
            }
        }
        if inserted { population += 1 }
        return inserted
    }

    /// Whether `page` is in the set.
    func contains(_ page: UInt64) -> Bool {
        guard page <= limit, let words = chunks[page >> Self.chunkShift] else { return false }
        let offset = Int(page & ((1 << Self.chunkShift) - 1))
        return words[offset >> 6] & (1 << UInt64(offset & 63)) != 0
    }
}
