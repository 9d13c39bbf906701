/// What the rows of one class say: its object keys, where its links point, and what its
/// primary-key, index and backlink tables must hold.
struct ClassFacts {
    /// The class as stored.
    let stored: StoredClass
    /// The object keys, ascending (the order of the class's table).
    var keys: [UInt64] = []
    /// Every link and collection element of the rows: (column, origin object, target object).
    var references: [(column: Int, origin: UInt64, target: UInt64)] = []
    /// Per keyed column (the primary key, indexed properties): the entries its table must hold.
    var keyEntries: [Int: [KeyEntry]] = [:]
    /// Per link column: the (target, origin) pairs its backlink table must hold.
    var backlinks: [Int: [BacklinkEntry]] = [:]
    /// Per mixed column that tracks links: the (target, origin) entries its mixed-links table
    /// must hold, the target as ``MixedFormat/linkKey(classID:key:)``.
    var mixedLinks: [Int: [KeyEntry]] = [:]
    /// Per full-text indexed column: the postings its table must hold, and its statistics.
    var fullText: [Int: (entries: [FullTextEntry], statistics: FullTextPostings.Statistics)] = [:]
    /// Objects whose encrypted rows do not authenticate: what the rows say of them is unknown,
    /// so the derived tables' entries for them are not checked.
    var unreadable: Set<UInt64> = []

    /// Whether the class has an object with key `key`.
    func contains(_ key: UInt64) -> Bool {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] == key { return true }
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return false
    }
}

/// One entry of a primary-key or index table: an encoded value and an object key, ordered as
/// LMDB orders them (the value's bytes, then the object key as an integer).
struct KeyEntry: Comparable {
    let value: [UInt8]
    let objectKey: UInt64

    static func < (a: KeyEntry, b: KeyEntry) -> Bool {
        let order = a.value.withUnsafeBytes { x in b.value.withUnsafeBytes { y in compareBytes(x, y) } }
        return order != 0 ? order < 0 : a.objectKey < b.objectKey
    }
}

/// One entry of a full-text index: a word and a posting's 16 bytes, ordered as LMDB orders
/// them (the word's bytes, then the posting's).
struct FullTextEntry: Comparable {
    let word: [UInt8]
    let posting: [UInt8]

    static func < (a: FullTextEntry, b: FullTextEntry) -> Bool {
        let order = a.word.withUnsafeBytes { x in b.word.withUnsafeBytes { y in compareBytes(x, y) } }
        return order != 0 ? order < 0 : a.posting.lexicographicallyPrecedes(b.posting)
    }
}

/// One entry of a backlink table: the linked object's key and the linking object's key.
struct BacklinkEntry: Comparable {
    let target: UInt64
    let origin: UInt64

    static func < (a: BacklinkEntry, b: BacklinkEntry) -> Bool {
        a.target != b.target ? a.target < b.target : a.origin < b.origin
    }
}
