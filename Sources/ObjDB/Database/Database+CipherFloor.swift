#if canImport(CCryptoBoringSSL)
/// The benchmark's cipher floor (``CipherFloor``) on this instance's rows.
extension Database {
    /// The rows of the class named `className` in ``CipherFloor``, read from the version this
    /// instance reads (opened if the file is encrypted); `nil` for an unknown class or where
    /// BoringSSL refuses a key.
    @_spi(Benchmarks)
    public func cipherFloor(ofClassNamed className: String) throws -> CipherFloor? {
        guard let info = catalog.byName[className] else { return nil }
        let txn = try requireReadableTxn()
        let cursor = try Cursor(txn, info.objectsTable, readsLeafPages: false)
        var rows: [(key: UInt64, bytes: [UInt8])] = []
        var entry = try cursor.first()
        while let current = entry {
            rows.append((current.objectKey, Array(current.value)))
            entry = try cursor.next()
        }
        return CipherFloor(rows: rows, tag: StoreCipher.tag(ofTable: "floor"))
    }
}
#endif
