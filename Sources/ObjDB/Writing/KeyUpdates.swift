/// Primary-key and index entries to remove and add for one row change, in reusable buffers.
///
/// A class over raw memory, owned by one write transaction, like ``ScratchBuffer``: adding and
/// walking entries retains nothing.
final class KeyUpdates {
    /// One entry: its table, its bytes in ``bytes``, whether it is added (else removed), and
    /// whether the table is the primary-key table.
    struct Entry {
        /// The primary-key or index table.
        let table: Table
        /// Where the entry's key is in ``KeyUpdates/bytes``.
        let range: Range<Int>
        /// Whether the entry is added (else removed).
        let add: Bool
        /// Whether the table is the primary-key table.
        let isPrimary: Bool
        /// For an added entry of a unique column with a non-nil value: the column.
        var uniqueColumn: Int? = nil
    }

    /// The encoded keys, concatenated.
    let bytes = ScratchBuffer()
    /// The entries, ``count`` of them initialized.
    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<Entry>
    /// Room for entries in ``storage``.
    @exclusivity(unchecked) private var capacity = 8
    /// Number of entries.
    @exclusivity(unchecked) private(set) var count = 0

    /// Empty buffers with room for 8 entries.
    init() {
        storage = .allocate(capacity: capacity)
    }

    /// Frees the entries' memory.
    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    /// The entries, in the order they were added.
    var entries: UnsafeBufferPointer<Entry> { UnsafeBufferPointer(start: storage, count: count) }

    /// Adds an entry.
    func append(_ entry: Entry) {
        if count == capacity {
            let grown = UnsafeMutablePointer<Entry>.allocate(capacity: capacity * 2)
            grown.moveInitialize(from: storage, count: count)
            storage.deallocate()
            storage = grown
            capacity *= 2
        }
        (storage + count).initialize(to: entry)
        count += 1
    }

    /// Removes every entry and key, keeping the memory.
    func reset() {
        bytes.reset()
        storage.deinitialize(count: count)
        count = 0
    }
}
