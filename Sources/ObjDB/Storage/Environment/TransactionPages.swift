import CLMDB

/// A write transaction's page high-water mark: the number of the first page past everything
/// the transaction has allocated, which is what the file's size will be in pages if it commits
/// (give or take the few pages LMDB's commit allocates for its own records). `lmdb.h` does not
/// expose it; ``SpaceReserve`` needs it.
///
/// `struct MDB_txn` in LMDB 0.9's `mdb.c` begins
///
/// ```c
/// MDB_txn *mt_parent; MDB_txn *mt_child; pgno_t mt_next_pgno; txnid_t mt_txnid; MDB_env *mt_env; …
/// ```
///
/// so on a 64-bit machine `mt_next_pgno` is the word at byte 16 and `mt_txnid` the word at byte
/// 24 (32-bit builds with `MDB_VL32` put another field between them; ObjDB reads only 64-bit
/// releases, see ``LMDBRelease``). The word at 24 must equal `mdb_txn_id` before the word at
/// 16 is believed; ``SpaceReserve`` cross-checks the page number against `mdb_env_info` too.
enum TransactionPages {
    /// The next page number of write transaction `txn`, or `nil` if this LMDB's layout is not
    /// the one read here, or the transaction id found at its place disagrees with LMDB's.
    static func nextPage(of txn: OpaquePointer) -> Int? {
        guard LMDBRelease.hasVersion09Layout else { return nil }
        let base = UnsafeRawPointer(txn)
        guard base.load(fromByteOffset: 24, as: UInt.self) == UInt(mdb_txn_id(txn)) else { return nil }
        let next = base.load(fromByteOffset: 16, as: Int.self)
        // Pages 0 and 1 are LMDB's meta pages: every file has them.
        return next >= 2 ? next : nil
    }
}
