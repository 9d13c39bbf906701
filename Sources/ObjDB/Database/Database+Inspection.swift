/// Entry points for tools that inspect files without the application's model classes, such as
/// the `objdb` command. Not part of the stable API.
extension Database {
    /// The file-format version of the file.
    @_spi(Inspection)
    public var fileFormatVersion: Int { Int(formatVersion) }

    /// The schema version stored in the file, as seen by the current version of this instance.
    @_spi(Inspection)
    public var storedSchemaVersion: UInt64 {
        guard let txn = readableTxn() else { return 0 }
        do {
            return try FileMeta.readUInt64(txn, metaTable, FileMeta.Key.schemaVersion) ?? 0
        } catch {
            reportReadFailure(error, while: "Reading the stored schema version")
            return 0
        }
    }

    /// The number of objects of the class named `className` (0 for an unknown class).
    /// - Complexity: O(1).
    @_spi(Inspection)
    public func objectCount(ofClassNamed className: String) -> Int {
        guard let info = catalog.byName[className] else { return 0 }
        return objectCount(info)
    }

    /// The LMDB transaction id of the version this instance reads.
    @_spi(Inspection)
    public var transactionID: Int { readableTxn()?.id ?? 0 }

    /// The id of the newest committed LMDB transaction of the file.
    @_spi(Inspection)
    public var lastCommittedTransactionID: Int { environment.lastCommittedTransactionID() }
}
