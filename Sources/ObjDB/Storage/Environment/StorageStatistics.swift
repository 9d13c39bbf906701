import CLMDB
import Foundation

/// The pages and entries of one LMDB table (`mdb_stat`), for `objdb stat`.
@_spi(Inspection)
public struct TableStatistics: Sendable, Hashable {
    /// What the table holds: `meta`, `changes`, or `<Class> objects`, `<Class> primary keys`,
    /// `<Class> index <property>`, `<Class> backlinks <property>`, `<Class> full-text <property>`,
    /// `<Class> mixed links <property>`.
    public var name: String
    /// The B-tree's depth.
    public var depth: Int
    /// Branch pages.
    public var branchPages: Int
    /// Leaf pages.
    public var leafPages: Int
    /// Overflow pages (values larger than a page).
    public var overflowPages: Int
    /// Key/value pairs.
    public var entries: Int
    /// Every page of the table.
    public var pages: Int { branchPages + leafPages + overflowPages }
}

/// The file as LMDB sees it (`mdb_env_info`, `mdb_env_stat`, the free-page list), for
/// `objdb info` and `objdb stat`.
@_spi(Inspection)
public struct EnvironmentStatistics: Sendable, Hashable {
    /// The page size in bytes.
    public var pageSize: Int
    /// The size of the memory map in bytes.
    public var mapSize: Int
    /// Pages the newest version reaches (the last page number + 1).
    public var pagesInFile: Int
    /// Pages listed as free (reusable) in the newest version.
    public var freePages: Int
    /// The id of the newest committed transaction.
    public var lastTransactionID: Int
    /// Reader slots in the lock file.
    public var maxReaders: Int
    /// Reader slots taken.
    public var readers: Int
}

extension Environment {
    /// `mdb_stat` of table `dbi` in `txn`, named `name`.
    func statistics(of dbi: MDB_dbi, named name: String, txn: OpaquePointer) throws -> TableStatistics {
        var stat = MDB_stat()
        try lmdbCheck(mdb_stat(txn, dbi, &stat), "mdb_stat", path: path)
        return TableStatistics(
            name: name, depth: Int(stat.ms_depth), branchPages: stat.ms_branch_pages, leafPages: stat.ms_leaf_pages,
            overflowPages: stat.ms_overflow_pages, entries: stat.ms_entries)
    }

    /// The environment's figures, free pages counted in `txn` (each entry of LMDB's free-page
    /// table is a list of page numbers that starts with its length).
    ///
    /// - Complexity: O(f) in the entries of the free-page table.
    func environmentStatistics(txn: OpaquePointer) throws -> EnvironmentStatistics {
        var info = MDB_envinfo()
        try lmdbCheck(mdb_env_info(handle, &info), "mdb_env_info", path: path)
        var stat = MDB_stat()
        try lmdbCheck(mdb_env_stat(handle, &stat), "mdb_env_stat", path: path)
        var cursor: OpaquePointer?
        try lmdbCheck(mdb_cursor_open(txn, 0, &cursor), "mdb_cursor_open", path: path)
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val(), value = MDB_val()
        var free = 0
        var op = MDB_FIRST
        while true {
            let rc = mdb_cursor_get(cursor, &key, &value, op)
            if rc == MDB_NOTFOUND { break }
            try lmdbCheck(rc, "mdb_cursor_get", path: path)
            if value.mv_size >= MemoryLayout<Int>.size, let data = value.mv_data {
                free += data.loadUnaligned(as: Int.self)
            }
            op = MDB_NEXT
        }
        return EnvironmentStatistics(
            pageSize: Int(stat.ms_psize), mapSize: info.me_mapsize, pagesInFile: info.me_last_pgno + 1, freePages: free,
            lastTransactionID: info.me_last_txnid, maxReaders: Int(info.me_maxreaders), readers: Int(info.me_numreaders))
    }

    /// The reader table of the lock file, as `mdb_reader_list` prints it (a header line, then
    /// one line per reader: process id, thread, transaction id).
    func readerList() -> [String] {
        final class Lines { var lines: [String] = [] }
        let lines = Lines()
        _ = mdb_reader_list(handle, { message, context in
            guard let message, let context else { return 0 }
            let text = String(cString: message).trimmingCharacters(in: .newlines)
            Unmanaged<Lines>.fromOpaque(context).takeUnretainedValue().lines.append(text)
            return 0
        }, Unmanaged.passUnretained(lines).toOpaque())
        return lines.lines
    }

    /// Clears the reader slots of processes that no longer exist (`mdb_reader_check`); the
    /// number cleared.
    func clearStaleReaders() throws -> Int {
        var dead: Int32 = 0
        try lmdbCheck(mdb_reader_check(handle, &dead), "mdb_reader_check", path: path)
        return Int(dead)
    }
}
