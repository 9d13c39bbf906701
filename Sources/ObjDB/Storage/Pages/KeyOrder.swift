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
    /// The chunks' bits, one chunk of ``wordsPerChunk`` words after another in the order they
    /// were allocated.
    private var words: [UInt64] = []
    /// Where each allocated chunk starts in ``words``, by chunk number.
    private var chunkStarts: [UInt64: Int] = [:]
    /// The chunk reached last and where it starts: walks add pages near each other, so most
    /// additions skip the dictionary.
    private var lastChunk = UInt64.max
    private var lastStart = 0
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
        if chunk != lastChunk {
            if let start = chunkStarts[chunk] {
                lastStart = start
            } else {
                lastStart = words.count
                chunkStarts[chunk] = lastStart
                words.append(contentsOf: repeatElement(0, count: Self.wordsPerChunk))
            }
            lastChunk = chunk
        }
        #if OBJDB_INTERNAL_CHECKS
        // The cached chunk must be the one the dictionary gives.
        if internalChecksEnabled {
            internalCheck(chunkStarts[chunk] == lastStart, "a page set's cached chunk \(chunk) is not the dictionary's")
        }
        #endif
        let offset = Int(page & ((1 << Self.chunkShift) - 1))
        let bit: UInt64 = 1 << UInt64(offset & 63)
        let index = lastStart + (offset >> 6)
        guard words[index] & bit == 0 else { return false }
        words[index] |= bit
        population += 1
        return true
    }

    /// Whether `page` is in the set.
    func contains(_ page: UInt64) -> Bool {
        guard page <= limit else { return false }
        let chunk = page >> Self.chunkShift
        guard let start = chunk == lastChunk ? lastStart : chunkStarts[chunk] else { return false }
        let offset = Int(page & ((1 << Self.chunkShift) - 1))
        return words[start + (offset >> 6)] & (1 << UInt64(offset & 63)) != 0
    }
}
