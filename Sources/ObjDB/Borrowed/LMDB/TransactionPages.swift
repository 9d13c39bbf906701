import CLMDB

/// BORROWED: two fields of LMDB 0.9's `MDB_txn`, for a write transaction's page high-water mark:
/// the number of the first page past everything the transaction has allocated, which is what
/// the file's size will be in pages if it commits (give or take the few pages LMDB's commit
/// allocates for its own records). `lmdb.h` does not expose it; ``SpaceReserve`` needs it.
///
/// **What is borrowed, from which version.** `struct MDB_txn` in the `mdb.c` of LMDB 0.9
/// releases begins
///
/// ```c
/// MDB_txn *mt_parent; MDB_txn *mt_child; pgno_t mt_next_pgno; txnid_t mt_txnid; MDB_env *mt_env; …
/// ```
///
/// so on a 64-bit machine `mt_next_pgno` is the word at byte 16 and `mt_txnid` the word at byte
/// 24 (32-bit builds with `MDB_VL32` put another field between them; ObjDB reads only 64-bit
/// releases).
///
/// **How it is verified at run time.** Only where ``LMDBRelease/hasVersion09Layout`` holds; the
/// word at 24 must equal `mdb_txn_id` before the word at 16 is believed; and ``SpaceReserve``
/// cross-checks the page number against `mdb_env_info` in every build: equal when the
/// transaction begins, not above the file's pages after it commits. Any disagreement turns the
/// reserve off for the whole process.
///
/// **Fast path and slow twin.** None: this is no fast path but the only way to the number (LMDB
/// has no call for it), so it has no ``FastPaths`` switch. What stands in when it cannot be
/// read is plain LMDB's behaviour at a full map, without the reserve for deletes.
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
