extension Database {
    /// The object of `type` whose primary key is `key`, or `nil`.
    ///
    /// ```swift
    /// let ann = db.object(ofType: Person.self, forPrimaryKey: 1)
    /// ```
    ///
    /// A key of the wrong type finds nothing. Calling it for a class without a primary key is a
    /// programmer error.
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        guard let info = classInfoForRead(type, "Database.object(ofType:forPrimaryKey:)") else { return nil }
        guard let column = info.primaryKeyColumn else {
            objdbFatal("Database.object(ofType:forPrimaryKey:) was called for class '\(info.name)', which has no primary key; declare one with @Persisted(primaryKey: true), or find the object with objects(_:).where { }")
        }
        // `encode` throws for a key of the wrong type; a `nil` key (optional primary keys) is a null column.
        let encoded: [UInt8]?
        do { encoded = try info.encode(key, column: column) } catch { return nil }
        guard let txn = readableTxn() else { return nil }
        let scratch = ScratchBuffer(capacity: 512)
        let found = lookingUp(info) {
            if let encoded {
                return try encoded.withUnsafeBytes { try RowReader.objectKey(forPrimaryKey: .value($0), info, txn: txn, scratch: scratch) }
            }
            return try RowReader.objectKey(forPrimaryKey: .null, info, txn: txn, scratch: scratch)
        }
        guard let found, let row = rows.fetch(info, key: found) else { return nil }
        return materialize(type, info, key: found, row: row)
    }

    /// The object of `type` that `identity` names, or `nil`: an identity from ``Results/identities``,
    /// a list's selection or an object's `Identifiable.id`, looked up again.
    ///
    /// ```swift
    /// for id in selection { if let todo = db.object(ofType: Todo.self, identifiedBy: id) { … } }
    /// ```
    ///
    /// `nil` when the object has been deleted since, and for an identity of another file, of
    /// another class, or of an unmanaged object.
    ///
    /// - Complexity: O(log n): one read of the object's row.
    public func object<Element: Object>(ofType type: Element.Type, identifiedBy identity: ObjectIdentity) -> Element? {
        // The class is compared by name first: an identity of a class other than `type`'s
        // gives `nil`, whatever `type` is.
        guard let stored = identity.stored, stored.path == path, stored.className == className(of: type),
            let info = classInfoForRead(type, "Database.object(ofType:identifiedBy:)")
        else { return nil }
        return object(type, info, key: stored.key)
    }

    /// The object of `type` whose primary key is `key`, or `nil`: the fast form for keys of a
    /// persistable type, encoded without going through `Any` (integers of every width share one
    /// encoding, so an `Int` finds an `Int8` key).
    public func object<Element: Object, KeyType: PersistableType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        guard let info = classInfoForRead(type, "Database.object(ofType:forPrimaryKey:)") else { return nil }
        guard info.primaryKeyColumn != nil else {
            objdbFatal("Database.object(ofType:forPrimaryKey:) was called for class '\(info.name)', which has no primary key; declare one with @Persisted(primaryKey: true), or find the object with objects(_:).where { }")
        }
        guard KeyType._objdbPropertyType == info.primaryKeyType else {
            return object(ofType: type, forPrimaryKey: key as Any)
        }
        guard let txn = readableTxn() else { return nil }
        let found: UInt64?
        if let integer = key._objdbInteger, let table = info.primaryKeyTable, !info.isDiscarded {
            // Objects added in key order: the row at the guessed key is the object if it holds
            // the key (primary keys are unique), and the primary-key table is not searched.
            if let guess = info.keyDistance.guess(integer) {
                if let row = rows.fetch(info, key: guess, txn: txn),
                    Self.primaryKey(of: row, info) == integer || FastPaths.broken.contains(.keyGuesses)
                {
                    if !info.isShared { info.keyDistance.confirm() }
                    #if OBJDB_INTERNAL_CHECKS
                    if internalChecksEnabled {
                        var encoded = KeyEncoding.IntegerKey(integer)
                        // try?: an error is a disagreement, reported by the check below.
                        let stored = withUnsafeBytes(of: &encoded) { try? RowReader.objectKey(forWholePrimaryKey: $0, table, txn: txn) }
                        internalCheck(stored == guess, "the guessed object key \(guess) of '\(info.name)' primary key \(integer) is not the primary-key table's \(String(describing: stored))")
                    }
                    #endif
                    return materialize(type, info, key: guess, row: row)
                }
                if !info.isShared { info.keyDistance.distrust() }
            }
            // An integer's key is 9 bytes, built here without the column form in between.
            var encoded = KeyEncoding.IntegerKey(integer)
            var hit = lookingUp(info) { try withUnsafeBytes(of: &encoded) { try RowReader.objectKey(forWholePrimaryKey: $0, table, txn: txn) } }
            // An encrypted file's primary-key entries are not authenticated: the row must hold the key.
            if let candidate = hit, table.seal != .none, rows.fetch(info, key: candidate, txn: txn).map({ Self.primaryKey(of: $0, info) }) != integer {
                hit = nil
            }
            found = hit
            if let found, !info.isShared { info.keyDistance.learn(integer, at: found) }
        } else {
            lookups.value.buffer.reset()
            let isValue = key._objdbEncode(into: &lookups.value)
            let buffer = lookups.value.buffer.bytes
            found = lookingUp(info) { try RowReader.objectKey(forPrimaryKey: isValue ? .value(buffer) : .null, info, txn: txn, scratch: lookups.key) }
        }
        // A key was found, so the class is not discarded.
        guard let found, let row = rows.fetch(info, key: found, txn: txn) else { return nil }
        return materialize(type, info, key: found, row: row)
    }

    /// The object key a primary-key lookup finds; a storage failure is reported through the
    /// read-failure channel and finds nothing.
    @inline(__always)
    private func lookingUp(_ info: ClassInfo, _ lookup: () throws -> UInt64?) -> UInt64? {
        do {
            return try lookup()
        } catch {
            reportReadFailure(error, while: "Looking up a primary key of '\(info.name)'")
            return nil
        }
    }

    /// The integer primary key stored in `row`, or `nil` if it is null, absent or not an integer.
    @inline(__always)
    private static func primaryKey(of row: RowView, _ info: ClassInfo) -> Int64? {
        guard let column = info.primaryKeyColumn, case .value(let bytes) = row.column(column) else { return nil }
        return ColumnCodec.integer(bytes)
    }
}
