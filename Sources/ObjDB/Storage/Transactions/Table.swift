import CLMDB

/// A named LMDB table (an `MDB_dbi`), valid in every transaction of its environment once opened.
struct Table: Sendable, Hashable {
    /// The LMDB handle.
    let dbi: MDB_dbi
    /// The flags the table was created with.
    let flags: TableFlags
}
