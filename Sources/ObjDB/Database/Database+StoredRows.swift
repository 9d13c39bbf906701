import Foundation

/// One object's stored row, read in place: typed reads of its columns without creating an
/// object or boxing a value in `Any`. Handed out by ``Database/forEachStoredRow(ofClassNamed:_:)``
/// and valid only inside the call that hands it out.
///
/// Columns are numbered as ``ObjectBase/value(atColumn:)`` numbers them: the stored properties in
/// the order of the class's ``ObjectSchema/properties`` read from the file. The typed reads answer
/// `nil` when the column does not hold that kind of value in this row (null, a link or a
/// collection, a row written before the column existed, another type); ``object()`` then reads
/// any column the general way.
@_spi(Inspection)
public struct StoredRow {
    /// The object's key in its class's table.
    public let objectKey: UInt64
    /// The row, in the map.
    let row: RowView
    /// The class, kept alive by the database for the walk.
    unowned(unsafe) let info: ClassInfo
    /// The database walking, alive for the call.
    unowned(unsafe) let database: Database

    /// Whether column `column` holds a plain value of `kind` (not a link or a collection).
    @inline(__always)
    private func bytes(_ column: Int, _ kind: ScalarKind) -> UnsafeRawBufferPointer? {
        guard column >= 0, column < info.columnCount, info.columnKinds[column] == .value, info.scalarKinds[column] == kind,
            case .value(let bytes) = row.column(column)
        else { return nil }
        return bytes
    }

    /// Whether column `column` is stored as null in this row.
    public func isNull(_ column: Int) -> Bool {
        if case .null = row.column(column) { return true }
        return false
    }

    /// An integer column's value (every integer width, and integer-backed enums' raw values).
    public func integer(_ column: Int) -> Int64? { bytes(column, .integer).flatMap(ColumnCodec.integer) }

    /// A `Double` column's value, or a `Date` column's seconds since 2001-01-01 00:00 UTC.
    public func double(_ column: Int) -> Double? { bytes(column, .double).flatMap(ColumnCodec.double) }

    /// A `Float` column's value.
    public func float(_ column: Int) -> Float? { bytes(column, .float).flatMap(ColumnCodec.float) }

    /// A `Bool` column's value.
    public func bool(_ column: Int) -> Bool? { bytes(column, .bool).flatMap(ColumnCodec.bool) }

    /// The stored bytes of a column of variable length: the UTF-8 of a `String`, the bytes of
    /// `Data`, the encoding of a `Decimal`. They point into the file and are valid only inside the
    /// call that handed out the row.
    public func utf8(_ column: Int) -> UnsafeRawBufferPointer? { bytes(column, .bytes) }

    /// The object of this row, to read any column the general way with
    /// ``ObjectBase/value(atColumn:)`` (links as `DynamicObject`s, collections as arrays and
    /// dictionaries, defaults for columns the row predates). Each call makes a new object: make
    /// it once per row.
    public func object() -> DynamicObject? {
        database.object(DynamicObject.self, info, key: objectKey)
    }
}

extension Database {
    /// Calls `body` with the stored row of every object of the class named `className`, in key
    /// order, read in place from the version this instance reads: for tools that read every
    /// value of many objects (`objdb export`), at a fraction of the cost of a `DynamicObject`
    /// and an `Any` per value.
    ///
    /// A row that fails its checksum is reported through the read-failure channel (see
    /// ``Configuration/readFailureHandler``) and handed out as it is; bytes that are not a row end
    /// the walk with `corruptFile` naming the object key, as a storage failure ends it with its
    /// error. An unknown class has no rows. `body` must not write or refresh the database (the
    /// rows belong to the version the walk began at): doing so is a programmer error.
    ///
    /// - Complexity: O(n) for n objects, one page read in place per leaf.
    @_spi(Inspection)
    public func forEachStoredRow(ofClassNamed className: String, _ body: (StoredRow) throws -> Void) throws {
        guard let info = catalog.byName[className], !info.isDiscarded else { return }
        flushPendingWritesIfWriting()
        let txn = try requireReadableTxn()
        // The snapshot stays pinned for the walk, whatever the body does with the database.
        let pinned = snapshot
        let generation = self.generation
        let cursor = try Cursor(txn, info.objectsTable, tracksFailures: true)
        var thrown: (any Error)?
        cursor.forEachRow(from: try cursor.first()) { key, row in
            // Bytes that are not a row come as a row of no bytes, noted in the cursor's failure.
            guard row.length > 0 else { return false }
            let checked = RowChecksum.admits(row, key: key) ? row : rows.damaged(info, key: key, row.bytes)
            do {
                try body(StoredRow(objectKey: key, row: checked, info: info, database: self))
            } catch {
                thrown = error
                return false
            }
            if self.generation != generation {
                objdbFatal("Database.forEachStoredRow(ofClassNamed: \"\(className)\"): the body wrote to or refreshed the database; the rows it walks belong to the version the walk began at")
            }
            return true
        }
        withExtendedLifetime(pinned) {}
        if let thrown { throw thrown }
        if let failure = cursor.failure?.error { throw failure }
    }
}
