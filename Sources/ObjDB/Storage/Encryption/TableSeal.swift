/// What an encrypted file encrypts in one table, decided by the table's flags (the layout of
/// each kind of table is in `Docs/FileFormat.md`, "Encrypted files").
enum TableSeal: UInt8, Sendable, Hashable {
    /// Nothing: an unencrypted file, or a table of object keys only (backlinks).
    case none
    /// Every value is sealed (rows, the change log, the outbox: integer keys).
    case values
    /// Every value but the records a reader needs before it has checked the key (the `meta`
    /// and `sync` tables: named records); see ``unsealedRecords``.
    case records
    /// Keys are replaced by their keyed hash (primary-key and index tables); the values are
    /// object keys.
    case keys

    /// The seal of a table with `flags` in a file that is encrypted or not.
    init(flags: TableFlags, encrypted: Bool) {
        guard encrypted else { self = .none; return }
        if flags.contains(.duplicateSort) {
            self = flags.contains(.integerKey) ? .none : .keys
        } else {
            self = flags.contains(.integerKey) ? .values : .records
        }
    }

    /// Records of ``records`` tables left in the clear: those an open reads before it can check
    /// the key (the magic bytes, the format, the key-check record). The checksum of the records
    /// is sealed too: a digest of the plaintext would let guesses of it be tested.
    static let unsealedRecords: [[UInt8]] = ["magic", "format", "encryption"].map { Array($0.utf8) }

    /// Whether the value under `key` is sealed.
    @inline(__always)
    func sealsValue(under key: UnsafeRawBufferPointer) -> Bool {
        switch self {
        case .none, .keys: false
        case .values: true
        case .records: !Self.unsealedRecords.contains { $0.elementsEqual(key) }
        }
    }
}
