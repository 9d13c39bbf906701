import CLMDB
import CObjDBRuntime
import Foundation

/// A check LMDB does not make: that a value stored on overflow pages lies inside the file.
///
/// LMDB takes a large value's size from its node and its start from the node's overflow page
/// number without checking them against the file, so a damaged node can hand out bytes past
/// the end of the file, and touching them stops the process with `SIGBUS`. Values that may lie
/// off their leaf page (``mayLieOffPage(_:)``) are checked here before anything reads them:
/// the start of the memory map is found from the leaf page that holds the value's key
/// (``PageFormat/mapStart(ofPageAt:number:pageSize:)``, as for ``LeafPage``), and the value must
/// end within the file's size. A value that does not is handed out as no bytes, which reads
/// as a damaged row (reported) while the key, and the walk through the table, stay usable.
extension Environment {
    /// Whether `value` may lie outside its leaf page and must be checked: it runs past the end
    /// of the page it starts on (only a damaged size does that), or it starts right after a page
    /// header, where no node's value can: an overflow page's data, which LMDB hands out without
    /// reading the page.
    ///
    /// `key` is where LMDB returned the value's key, if it is on the leaf page (cursor reads;
    /// `nil` when unknown), and `sortsDuplicates` whether the table is `MDB_DUPSORT`. In such a
    /// table, a key whose node holds duplicates (`F_DUPDATA`) had its value read from a page
    /// LMDB itself read to find it — the first duplicate of a key with many objects in an index
    /// starts right after that page's header — so the value needs no check (in other tables
    /// LMDB ignores the flag, and a damaged node may carry it).
    @inline(__always)
    static func mayLieOffPage(key: UnsafeMutableRawPointer?, value: UnsafeMutableRawPointer?, size: Int, pageSize: Int, sortsDuplicates: Bool) -> Bool {
        let offset = Int(UInt(bitPattern: value) & UInt(pageSize &- 1))
        if offset &+ size > pageSize { return true }
        guard offset == PageFormat.headerSize else { return false }
        guard sortsDuplicates, let key else { return true }
        return PageFormat.Node.flags(ofKeyAt: key) & PageFormat.NodeFlag.dupData == 0
    }

    /// `value` if it lies within the file (or cannot be checked), else no bytes. `key` is where
    /// LMDB returned the value's key (a pointer into its leaf page). Values that a write
    /// transaction wrote live in memory of their own and are not checked.
    @inline(never)
    func inFile(key: UnsafeMutableRawPointer?, value: MDB_val) -> MDB_val {
        guard let key, let start = value.mv_data, let page = PageFormat.pageStart(holding: key, pageSize: pageSize),
            let mapStart = PageFormat.mapStart(ofPageAt: page, number: PageFormat.Header(at: page).number, pageSize: pageSize)
        else { return value }
        let address = UInt(bitPattern: start)
        // Not in the map: a write transaction's own copy.
        guard address >= mapStart else { return value }
        let (end, past) = (address - mapStart).addingReportingOverflow(UInt(value.mv_size))
        // The file only grows while it is open (LMDB never shrinks it; compaction replaces it
        // before it is opened), so a size seen once still holds: the values of a sub-database's
        // first page, met at every key of an index, are checked without a system call.
        if !past, end <= UInt(knownFileSize.value) { return value }
        return checkedAgainstTheFile(offset: address - mapStart, end: past ? nil : end, value)
    }

    /// The rest of ``inFile(key:value:)``, for a value that may end past the size last read:
    /// `value` if its start cannot be trusted (past the map) or it ends within the file's
    /// size now; else no bytes.
    @inline(never)
    private func checkedAgainstTheFile(offset: UInt, end: UInt?, _ value: MDB_val) -> MDB_val {
        // Not in the map (a write transaction's own copy), or the map start cannot be trusted.
        guard offset < UInt(mapSize) else { return value }
        if let end, end <= UInt(fileSize()) { return value }
        return MDB_val(mv_size: 0, mv_data: nil)
    }

    /// The size of the file now, in bytes (`Int.max` if it cannot be read: nothing is refused
    /// for want of a size), remembered in ``knownFileSize``.
    private func fileSize() -> Int {
        var descriptor: mdb_filehandle_t = -1
        var status = stat()
        guard mdb_env_get_fd(handle, &descriptor) == MDB_SUCCESS, fstat(descriptor, &status) == 0 else { return .max }
        knownFileSize.value = Int(status.st_size)
        return Int(status.st_size)
    }
}

/// The size of an environment's file as last read, for ``Environment/inFile(key:value:)``:
/// read and written by any thread without a lock (a relaxed atomic word). Two threads that
/// store at once may leave the smaller size, which only costs the next check a system call.
final class KnownFileSize: @unchecked Sendable {
    private let word = UnsafeMutablePointer<Int>.allocate(capacity: 1)

    init() { word.initialize(to: 0) }

    deinit { word.deallocate() }

    /// The size in bytes; 0 before it was first read.
    var value: Int {
        get { objdb_atomic_load_relaxed(word) }
        set { objdb_atomic_store_relaxed(word, newValue) }
    }
}
