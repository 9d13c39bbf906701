/// Checks the rows of one class: each decodes against the class's schema and matches its
/// checksum. Collects what the other tables must hold (``ClassFacts``).
struct ClassVerifier {
    let stored: StoredClass
    let walk: FileWalk

    private func problem(_ kind: VerificationProblem.Kind, _ message: String, key: UInt64? = nil) {
        walk.report.add(VerificationProblem(kind, message, table: TableName.objects(stored.id), className: stored.name, objectKey: key))
    }

    /// Walks the class's table (`nil`: missing) and returns the facts its rows give.
    func checkRows(_ table: NamedTree?) -> ClassFacts {
        var facts = ClassFacts(stored: stored)
        guard let table else {
            problem(.table, "The table of class '\(stored.name)' is missing")
            return facts
        }
        if table.record.flags != TableFlags.objects.rawValue16 {
            problem(.table, "The table of class '\(stored.name)' has flags 0x\(String(table.record.flags, radix: 16)) instead of 0x\(String(TableFlags.objects.rawValue16, radix: 16))")
        }
        let properties = stored.properties
        let keyed = properties.indices.filter { properties[$0].primaryKey || properties[$0].indexed }
        for column in keyed { facts.keyEntries[column] = [] }
        for column in properties.indices where properties[column].fullText != nil { facts.fullText[column] = ([], .init()) }
        let links = properties.indices.filter { properties[$0].type == .object }
        for column in links { facts.backlinks[column] = [] }
        for column in properties.indices where properties[column].type == .mixed && !properties[column].lacksMixedLinks {
            facts.mixedLinks[column] = []
        }
        var checked = 0
        var withoutChecksum = 0
        walk.walkOpened(table, visit: { key, value in
            guard key.count == 8 else {
                problem(.row, "A row's key has \(key.count) bytes instead of 8")
                return
            }
            let objectKey = key.u64(0)
            facts.keys.append(objectKey)
            checked += 1
            guard let row = RowView(value) else {
                problem(.row, "The row's header does not parse (\(value.count) bytes)", key: objectKey)
                return
            }
            switch RowChecksum.matches(row, key: objectKey) {
            case false?: problem(.checksum, "The row does not match its checksum: a byte of it or of its key changed", key: objectKey)
            case nil: withoutChecksum += 1
            case true?: break
            }
            if row.columnCount > properties.count {
                problem(.row, "The row has \(row.columnCount) columns; the class has \(properties.count) properties", key: objectKey)
            }
            for (column, property) in properties.enumerated() {
                let read = row.column(column)
                if case .absent = read, column < row.columnCount {
                    problem(.row, "The column of '\(property.name)' lies outside the row", key: objectKey)
                }
                if let message = ColumnVerifier.problem(read, property) {
                    problem(.row, "'\(property.name)': \(message)", key: objectKey)
                }
                if facts.keyEntries[column] != nil {
                    facts.keyEntries[column]?.append(KeyEntry(value: Self.keyBytes(read, property), objectKey: objectKey))
                }
                if facts.fullText[column] != nil {
                    let document = FullTextDocument(read.textBytes)
                    for (word, occurrences) in document.words {
                        let posting = FullTextPostings.bytes(.init(objectKey: objectKey, occurrences: occurrences, textLength: document.length))
                        facts.fullText[column]?.entries.append(FullTextEntry(word: word, posting: posting))
                    }
                    if !document.words.isEmpty {
                        facts.fullText[column]?.statistics.documents += 1
                        facts.fullText[column]?.statistics.words += UInt64(document.length)
                    }
                }
                if facts.mixedLinks[column] != nil {
                    for target in Database.mixedLinkKeys(read, kind: ColumnKind(property)) ?? [] {
                        facts.mixedLinks[column]?.append(KeyEntry(value: target, objectKey: objectKey))
                    }
                }
                if property.type == .object {
                    let kind = ColumnKind(property)
                    for target in Database.linkedKeys(read, kind: kind) {
                        facts.references.append((column, objectKey, target))
                    }
                    for target in Set(Database.linkedKeys(read, kind: kind)) {
                        facts.backlinks[column]?.append(BacklinkEntry(target: target, origin: objectKey))
                    }
                }
            }
        }, failed: { key in
            // Counted as an object, so the key tables' entries for it are not reported too.
            let objectKey = key.count == 8 ? key.u64(0) : 0
            facts.keys.append(objectKey)
            facts.unreadable.insert(objectKey)
            checked += 1
            problem(.checksum, "The encrypted row does not authenticate: a byte of it or of its key changed, or it was moved", key: objectKey)
        })
        walk.report.objectsChecked[stored.name, default: 0] += checked
        walk.report.rowsWithoutChecksum += withoutChecksum
        return facts
    }

    /// The primary-key or index key of a column, as the write path encodes it: a column that is
    /// null, absent or does not decode is keyed as `nil`.
    static func keyBytes(_ read: ColumnRead, _ property: StoredProperty) -> [UInt8] {
        var key: [UInt8] = []
        if !KeyEncoding.append(read, kind: property.type.scalarKind, to: &key) {
            key = [KeyEncoding.nullTag]
        }
        return key
    }
}

extension TableFlags {
    /// The flags as stored in a tree record's 16-bit field.
    var rawValue16: UInt16 { UInt16(truncatingIfNeeded: rawValue) }
}
