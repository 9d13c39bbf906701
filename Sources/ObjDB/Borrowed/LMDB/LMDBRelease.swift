import CLMDB

/// BORROWED (the gate): whether the linked LMDB lays out its private structures as the releases
/// of LMDB 0.9 do.
///
/// ObjDB reads two things LMDB keeps out of `lmdb.h`: its pages (``PageFormat``: leaf pages in
/// place, for ``LeafPage``) and a write transaction's next page number (``TransactionPages``).
/// Both are defined in LMDB 0.9's `mdb.c` and unchanged across its releases. LMDB's development
/// branches also report version 0.9, from 0.9.70 up, with other layouts, so only releases below
/// that count; and only on 64-bit little-endian machines, where the fields have the sizes and
/// byte order ObjDB reads. Read once, from `mdb_version`, at run time: a build against another
/// LMDB falls back to the slow twins (``FastPaths/leafPages``: cursor steps; no reserve for
/// deletes, ``SpaceReserve``) without being rebuilt.
enum LMDBRelease {
    /// Whether this process runs a release of LMDB 0.9 on a 64-bit little-endian machine.
    static let hasVersion09Layout: Bool = {
        #if _endian(little) && _pointerBitWidth(_64)
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        _ = mdb_version(&major, &minor, &patch)
        return major == 0 && minor == 9 && patch < 70
        #else
        return false
        #endif
    }()
}
