/// The reads of stored rows: the one place a row of a class's objects table is looked up,
/// parsed and tested against its checksum, for every layer that reads objects — managed
/// objects, lookups, queries, writes. A row that does not parse or does not match its checksum
/// is reported here, through the database's read-failure channel, and read as it is or as a row
/// of defaults.
///
/// A value over its database, held unretained: ``Database/rows`` makes one per use at no cost.
/// The row's bytes themselves are decoded by `RowView` (Storage/Encoding/RowFormat.swift).
struct RowReader {
    /// The database whose version is read and to which damaged rows are reported.
    unowned(unsafe) let database: Database

    /// The row of an object in the database's current version, or `nil` if it does not exist.
    func fetch(_ info: ClassInfo, key: UInt64) -> RowView? {
        guard !info.isDiscarded, let txn = database.readableTxn() else { return nil }
        return fetch(info, key: key, txn: txn)
    }

    /// ``fetch(_:key:)`` in `txn`, the database's readable transaction, for a class known not
    /// to be discarded. A row that cannot be read, does not parse or fails its checksum is
    /// reported (``Database/reportReadFailure(_:)``) and read as it is, or as a row of defaults.
    @inline(__always)
    func fetch(_ info: ClassInfo, key: UInt64, txn: Txn) -> RowView? {
        let found: UnsafeRawBufferPointer?
        do {
            found = try txn.get(info.objectsTable, key: key)
        } catch {
            database.reportReadFailure(error, while: "Reading the row of '\(info.name)' \(key)")
            return .damaged
        }
        guard let bytes = found else { return nil }
        return checked(info, key: key, bytes)
    }

    /// The row of `key` in `bytes`, checked: bytes that are not a row, or a row that does not
    /// match its checksum, are reported as damaged.
    @inline(__always)
    func checked(_ info: ClassInfo, key: UInt64, _ bytes: UnsafeRawBufferPointer) -> RowView {
        Self.sound(key: key, bytes) ?? damaged(info, key: key, bytes)
    }

    /// ``checked(_:key:_:)`` for scans that hold `info` unretained: a sound row touches
    /// neither `info` nor the database, so the per-row path retains and releases nothing.
    @inline(__always)
    func checked(_ info: Unmanaged<ClassInfo>, key: UInt64, _ bytes: UnsafeRawBufferPointer) -> RowView {
        if let row = Self.sound(key: key, bytes) { return row }
        return info._withUnsafeGuaranteedRef { damaged($0, key: key, bytes) }
    }

    /// The row in `bytes` if they parse as a row that matches its checksum (or has none), else `nil`.
    @inline(__always)
    static func sound(key: UInt64, _ bytes: UnsafeRawBufferPointer) -> RowView? {
        guard let row = RowView(bytes) else { return nil }
        let admitted = RowChecksum.admits(row, key: key)
        #if OBJDB_INTERNAL_CHECKS
        // The per-row test must agree with the checksum's general test.
        if internalChecksEnabled {
            internalCheck(admitted == (RowChecksum.matches(row, key: key) ?? true), "the row checksum tests disagree on key \(key)")
        }
        #endif
        return admitted ? row : nil
    }

    /// The row ``sound(key:_:)`` refused, reported as damaged: `.damaged` for bytes that are
    /// not a row, the row as it is for one that does not match its checksum. Out of line: rare.
    @inline(never)
    func damaged(_ info: ClassInfo, key: UInt64, _ bytes: UnsafeRawBufferPointer) -> RowView {
        guard let row = RowView(bytes) else {
            database.reportDamagedRow(info, key: key, "its \(bytes.count) bytes are not a row")
            return .damaged
        }
        database.reportDamagedRow(info, key: key, "it does not match its checksum")
        return row
    }

    /// The row of `key` in `txn` as stored, unchecked and unreported: `nil` if the object does
    /// not exist or its bytes are not a row. For reads inside a write or a check that decide on
    /// their own what a damaged row means.
    @inline(__always)
    static func parsed(_ info: ClassInfo, key: UInt64, txn: Txn) throws -> RowView? {
        guard let bytes = try txn.get(info.objectsTable, key: key) else { return nil }
        return RowView(bytes)
    }

    /// Number of objects of a class in the database's current version.
    func count(_ info: ClassInfo) -> Int {
        guard !info.isDiscarded, let txn = database.readableTxn() else { return 0 }
        do {
            return try txn.entryCount(info.tables.objects)
        } catch {
            database.reportReadFailure(error, while: "Counting the objects of '\(info.name)'")
            return 0
        }
    }
}

extension Database {
    /// The reader of this database's stored rows (``RowReader``).
    @inline(__always)
    var rows: RowReader { RowReader(database: self) }
}
