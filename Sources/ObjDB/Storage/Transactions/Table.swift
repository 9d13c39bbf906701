import CLMDB

/// A named LMDB table (an `MDB_dbi`), valid in every transaction of its environment once opened.
struct Table: Sendable, Hashable {
    /// The LMDB handle.
    let dbi: MDB_dbi
    /// The flags the table was created with.
    let flags: TableFlags
    /// What an encrypted file encrypts in the table (``TableSeal/none`` in other files).
    var seal: TableSeal = .none
    /// The table's tag in its values' associated data and its index keys
    /// (``StoreCipher/tag(ofTable:)``); 0 in unencrypted files.
    var tag: UInt64 = 0
}
