import CLMDB
import Foundation

/// A check LMDB does not make: that a value stored on overflow pages lies inside the file.
///
/// LMDB takes a large value's size from its node and its start from the node's overflow page
/// number without checking them against the file, so a damaged node can hand out bytes past
/// the end of the file, and touching them stops the process with `SIGBUS`. Values that may lie
/// off their leaf page (``mayLieOffPage(_:)``) are checked here before anything reads them:
/// the start of the memory map is found from the leaf page that holds the value's key (its
/// address less its page number times the page size, as ``LeafPage`` does), and the value must
/// end within the file's size. A value that does not is handed out as no bytes, which reads
/// as a damaged row (reported) while the key, and the walk through the table, stay usable.
extension Environment {
    /// Whether `value` may lie outside its leaf page and must be checked: it starts where an
    /// overflow page's data starts (right after a page header, where no node's value can), or
    /// it runs past the end of the page it starts on (only a damaged size does that).
    @inline(__always)
    func mayLieOffPage(_ value: MDB_val) -> Bool {
        let offset = Int(UInt(bitPattern: value.mv_data) & UInt(pageSize &- 1))
        return offset == 16 || offset &+ value.mv_size > pageSize
    }

    /// `value` if it lies within the file (or cannot be checked), else no bytes. `key` is where
    /// LMDB returned the value's key (a pointer into its leaf page). Values that a write
    /// transaction wrote live in memory of their own and are not checked.
    @inline(never)
    func inFile(key: UnsafeMutableRawPointer?, value: MDB_val) -> MDB_val {
        guard let key, let start = value.mv_data else { return value }
        let page = UInt(bitPattern: key) & ~UInt(pageSize - 1)
        guard let header = UnsafeRawPointer(bitPattern: page) else { return value }
        let number = header.loadUnaligned(as: UInt.self)
        let (distance, overflow) = number.multipliedReportingOverflow(by: UInt(pageSize))
        guard !overflow, distance <= page else { return value }
        let mapStart = page - distance
        let address = UInt(bitPattern: start)
        // Not in the map (a write transaction's own copy), or the map start cannot be trusted.
        guard address >= mapStart, address - mapStart < UInt(mapSize) else { return value }
        let (end, past) = (address - mapStart).addingReportingOverflow(UInt(value.mv_size))
        if !past, end <= UInt(fileSize()) { return value }
        return MDB_val(mv_size: 0, mv_data: nil)
    }

    /// The size of the file now, in bytes (`Int.max` if it cannot be read: nothing is refused
    /// for want of a size).
    private func fileSize() -> Int {
        var descriptor: mdb_filehandle_t = -1
        var status = stat()
        guard mdb_env_get_fd(handle, &descriptor) == MDB_SUCCESS, fstat(descriptor, &status) == 0 else { return .max }
        return Int(status.st_size)
    }
}
