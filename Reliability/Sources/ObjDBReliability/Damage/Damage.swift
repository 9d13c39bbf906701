import Foundation

/// The kinds of damage done to copies of the base file.
public enum DamageKind: String, Sendable, CaseIterable {
    /// The file cut at a random length (an interrupted copy, a full disk).
    case truncation
    /// One bit flipped anywhere, or in a page header.
    case bitFlip = "bit-flip"
    /// A run of 1 to 16 bytes overwritten with random values.
    case byteOverwrite = "byte-overwrite"
    /// A whole page zeroed (a torn or lost write of a fresh page).
    case zeroedPage = "zeroed-page"
    /// A whole page of random bytes.
    case randomPage = "random-page"
    /// A page replaced by the same page of the previous version (a lost write).
    case stalePage = "stale-page"
    /// A field of one of the two meta pages changed (transaction id, roots, last page, sizes).
    case metaPage = "meta-page"
    /// Not an ObjDB file: random bytes.
    case foreignRandom = "foreign-random"
    /// Not an ObjDB file: text.
    case foreignText = "foreign-text"
    /// An LMDB file ObjDB did not write, with or without tables named like ObjDB's.
    case foreignLMDB = "foreign-lmdb"
    /// An empty file.
    case empty

    /// How often each kind is drawn, out of 100.
    static let weights: [(DamageKind, Int)] = [
        (.truncation, 11), (.bitFlip, 20), (.byteOverwrite, 14), (.zeroedPage, 11), (.randomPage, 9), (.stalePage, 10),
        (.metaPage, 13), (.foreignRandom, 4), (.foreignText, 3), (.foreignLMDB, 4), (.empty, 1),
    ]

    /// A kind drawn by its weight.
    static func draw(_ rng: inout SeededRandom) -> DamageKind {
        var roll = rng.below(weights.reduce(0) { $0 + $1.1 })
        for (kind, weight) in weights {
            if roll < weight { return kind }
            roll -= weight
        }
        return .bitFlip
    }

    /// Whether the file is replaced rather than changed.
    var isForeign: Bool { [.foreignRandom, .foreignText, .foreignLMDB, .empty].contains(self) }
}

/// One damaged copy of the base file.
public struct DamagedFile: Sendable {
    /// The kind of damage.
    public let kind: DamageKind
    /// Where, and what changed: `page 12 offset 40 bit 3`.
    public let detail: String
    /// The damaged bytes (empty for an LMDB file, which is written by LMDB itself).
    public let bytes: [UInt8]
}

/// Makes damaged copies of a file.
struct Damager {
    /// The newest file's bytes.
    let newest: [UInt8]
    /// The previous version's file (for stale pages).
    let previous: [UInt8]
    /// The page size.
    let pageSize: Int

    /// The offset of each field of an LMDB meta page, from the page's start (LMDB 0.9, 64-bit):
    /// page header 16 bytes, then magic, version, address, map size, the two tree records
    /// (48 bytes each: pad, flags, depth, branch, leaf and overflow pages, entries, root), the
    /// last page and the transaction id.
    static let metaFields: [(name: String, offset: Int, size: Int)] = [
        ("flags", 10, 2), ("magic", 16, 4), ("version", 20, 4), ("map size", 32, 8),
        ("free pad/page size", 40, 4), ("free depth", 46, 2), ("free entries", 72, 8), ("free root", 80, 8),
        ("main flags", 92, 2), ("main depth", 94, 2), ("main branch pages", 96, 8), ("main leaf pages", 104, 8),
        ("main entries", 120, 8), ("main root", 128, 8), ("last page", 136, 8), ("transaction id", 144, 8),
    ]

    /// A random byte of the file, most often one a page uses: the header, the node offsets
    /// and the nodes of a branch or leaf page (not the gap between them), anything else in
    /// other pages.
    func usedByte(_ rng: inout SeededRandom) -> Int {
        let pages = max(newest.count / pageSize, 1)
        let page = rng.below(pages)
        let base = page * pageSize
        guard base + pageSize <= newest.count, rng.percent(85) else { return rng.below(max(newest.count, 1)) }
        func word(_ offset: Int) -> Int { Int(newest[base + offset]) | Int(newest[base + offset + 1]) << 8 }
        let flags = word(10), lower = word(12), upper = word(14)
        guard flags & 0x03 != 0, lower >= 16, lower <= upper, upper <= pageSize else { return base + rng.below(pageSize) }
        // The header and offsets, or the nodes, by their sizes.
        let front = lower, back = pageSize - upper
        let pick = rng.below(max(front + back, 1))
        return base + (pick < front ? pick : upper + (pick - front))
    }

    /// A damaged copy of kind `kind`.
    func damage(_ kind: DamageKind, _ rng: inout SeededRandom) -> DamagedFile {
        var bytes = newest
        let pages = max(bytes.count / pageSize, 1)
        switch kind {
        case .truncation:
            let length: Int
            switch rng.below(4) {
            case 0: length = rng.below(pages) * pageSize                      // a page boundary
            case 1: length = rng.below(min(bytes.count, 2 * pageSize + 1))    // inside the meta pages
            default: length = rng.below(bytes.count)
            }
            bytes.removeSubrange(length...)
            return DamagedFile(kind: kind, detail: "cut to \(length) of \(newest.count) bytes", bytes: bytes)
        case .bitFlip:
            let at = usedByte(&rng)
            let bit = rng.below(8)
            bytes[at] ^= UInt8(1 << bit)
            return DamagedFile(kind: kind, detail: "page \(at / pageSize) offset \(at % pageSize) bit \(bit)", bytes: bytes)
        case .byteOverwrite:
            let count = rng.inRange(1...16)
            let at = min(usedByte(&rng), max(bytes.count - count, 0))
            for i in at..<min(at + count, bytes.count) { bytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
            return DamagedFile(kind: kind, detail: "\(count) bytes at \(at) (page \(at / pageSize) offset \(at % pageSize))", bytes: bytes)
        case .zeroedPage, .randomPage, .stalePage:
            // Meta pages now and then; otherwise any page.
            let page = rng.percent(10) ? rng.below(2) : rng.below(pages)
            let range = (page * pageSize)..<min((page + 1) * pageSize, bytes.count)
            switch kind {
            case .zeroedPage:
                for i in range { bytes[i] = 0 }
            case .randomPage:
                for i in range { bytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
            default:
                for i in range { bytes[i] = i < previous.count ? previous[i] : 0 }
            }
            let same = bytes[range].elementsEqual(newest[range])
            return DamagedFile(kind: kind, detail: "page \(page)\(same ? " (unchanged)" : "")", bytes: bytes)
        case .metaPage:
            let meta = rng.below(2)
            let field = rng.pick(Self.metaFields)
            let at = meta * pageSize + field.offset
            let detail: String
            switch rng.below(4) {
            case 0:
                let bit = rng.below(field.size * 8)
                bytes[at + bit / 8] ^= UInt8(1 << (bit % 8))
                detail = "meta \(meta) \(field.name) bit \(bit)"
            case 1:
                // Small changes of numbers: one more, one less.
                let delta: UInt64 = rng.percent(50) ? 1 : UInt64.max
                var value: UInt64 = 0
                for i in 0..<field.size { value |= UInt64(bytes[at + i]) << (8 * i) }
                value &+= delta
                for i in 0..<field.size { bytes[at + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
                detail = "meta \(meta) \(field.name) \(delta == 1 ? "+1" : "-1")"
            case 2:
                for i in 0..<field.size { bytes[at + i] = 0 }
                detail = "meta \(meta) \(field.name) zeroed"
            default:
                for i in 0..<field.size { bytes[at + i] = UInt8(truncatingIfNeeded: rng.next()) }
                detail = "meta \(meta) \(field.name) random"
            }
            return DamagedFile(kind: kind, detail: detail, bytes: bytes)
        case .foreignRandom:
            let count = rng.pick([1, 100, pageSize - 1, pageSize, 2 * pageSize, 3 * pageSize + 17, newest.count])
            return DamagedFile(
                kind: kind, detail: "\(count) random bytes",
                bytes: (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        case .foreignText:
            let text = rng.pick([
                "hello\n", "SQLite format 3\u{0}" + String(repeating: "x", count: 5_000),
                "{\"format\": 3, \"classes\": []}\n", String(repeating: "ObjDB ", count: 3_000),
            ])
            return DamagedFile(kind: kind, detail: "text of \(text.utf8.count) bytes", bytes: Array(text.utf8))
        case .foreignLMDB:
            return DamagedFile(kind: kind, detail: "", bytes: [])
        case .empty:
            return DamagedFile(kind: kind, detail: "0 bytes", bytes: [])
        }
    }
}
