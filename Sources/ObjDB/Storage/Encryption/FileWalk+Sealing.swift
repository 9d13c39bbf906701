extension FileWalk {
    /// Walks `table` as ``walk(_:readingLeaves:visit:)`` does, handing `visit` each value opened
    /// where the file seals it (``cipher``; see ``TableSeal``); a value that does not
    /// authenticate goes to `failed` with its key instead.
    func walkOpened(
        _ table: NamedTree, visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void,
        failed: (UnsafeRawBufferPointer) -> Void
    ) {
        guard let cipher else {
            walk(table, visit: visit)
            return
        }
        let seal = TableSeal(flags: TableFlags(rawValue: UInt32(table.record.flags)), encrypted: true)
        let tag = StoreCipher.tag(ofTable: table.name)
        walk(table) { key, value in
            guard seal.sealsValue(under: key) else { return visit(key, value) }
            if cipher.open(value, tag: tag, key: key, { visit(key, $0) }) == nil { failed(key) }
        }
    }

    /// The key an index or primary-key table named `table` stores for the encoded key `key`:
    /// its keyed hash in an encrypted file.
    func storedIndexKey(_ key: [UInt8], table: String) -> [UInt8] {
        guard let cipher else { return key }
        return key.withUnsafeBytes { cipher.indexKey($0, tag: StoreCipher.tag(ofTable: table)) }
    }
}
