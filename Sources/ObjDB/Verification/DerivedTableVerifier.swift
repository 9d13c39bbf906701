/// Checks the tables derived from one class's rows: its primary-key, index and backlink tables
/// must hold exactly the entries the rows give (``ClassFacts``), and primary keys must be unique.
struct DerivedTableVerifier {
    let facts: ClassFacts
    let walk: FileWalk

    /// At most this many entries are reported one by one per table; the rest are counted.
    static let reportedEntries = 10

    var stored: StoredClass { facts.stored }

    func problem(_ kind: VerificationProblem.Kind, _ message: String, table: String, key: UInt64? = nil) {
        walk.report.add(VerificationProblem(kind, message, table: table, className: stored.name, objectKey: key))
    }

    /// Checks every derived table of the class, taking them out of `tables`.
    func check(_ tables: inout [String: NamedTree]) {
        for (column, property) in stored.properties.enumerated() {
            let name: String
            if property.primaryKey {
                name = TableName.primaryKeys(stored.id)
            } else if property.indexed {
                name = TableName.index(stored.id, property: property.id)
            } else {
                name = ""
            }
            if !name.isEmpty, var expected = facts.keyEntries[column] {
                expected.sort()
                checkKeyTable(tables.removeValue(forKey: name), name: name, property: property, expected: expected)
            }
            if let expected = facts.fullText[column] {
                let name = TableName.fullText(stored.id, property: property.id)
                checkFullTextTable(tables.removeValue(forKey: name), name: name, property: property, expected: expected.entries, expected.statistics)
            }
            if var expected = facts.mixedLinks[column] {
                expected.sort()
                let name = TableName.mixedLinks(stored.id, property: property.id)
                checkKeyTable(tables.removeValue(forKey: name), name: name, property: property, expected: expected, mixedLinks: true)
            }
            if property.type == .object, var expected = facts.backlinks[column] {
                expected.sort()
                let backlinks = TableName.backlinks(stored.id, property: property.id)
                checkBacklinkTable(tables.removeValue(forKey: backlinks), name: backlinks, property: property, expected: expected)
            }
        }
    }

    func checkFlags(_ table: NamedTree, _ flags: TableFlags) {
        if table.record.flags != flags.rawValue16 {
            problem(.table, "The table has flags 0x\(String(table.record.flags, radix: 16)) instead of 0x\(String(flags.rawValue16, radix: 16))", table: table.name)
        }
    }

    /// Checks a table of value → object keys: a primary-key or index table, or (`mixedLinks`) the
    /// mixed-links table of a mixed property, keyed by link targets.
    private func checkKeyTable(_ table: NamedTree?, name: String, property: StoredProperty, expected: [KeyEntry], mixedLinks: Bool = false) {
        let kind: VerificationProblem.Kind = mixedLinks ? .backlink : property.primaryKey ? .primaryKey : .index
        let what = mixedLinks ? "mixed-links" : property.primaryKey ? "primary-key" : "index"
        guard let table else {
            problem(.table, "The \(what) table of '\(stored.name).\(property.name)' is missing", table: name)
            return
        }
        checkFlags(table, .multimap)
        if property.primaryKey && !mixedLinks {
            for i in expected.indices.dropFirst() where expected[i].value == expected[i - 1].value
                && !KeyEncoding.mayBeTruncated(expected[i].value)
            {
                problem(.primaryKey, "Objects \(expected[i - 1].objectKey) and \(expected[i].objectKey) have the same primary key", table: name, key: expected[i].objectKey)
            }
        }
        // An encrypted file keys the table by hashes of the values, in the hashes' order.
        let expected = walk.cipher == nil ? expected
            : expected.map { KeyEntry(value: walk.storedIndexKey($0.value, table: name), objectKey: $0.objectKey) }.sorted()
        var missing = 0
        var extra = 0
        var next = 0
        walk.walk(table) { key, value in
            guard value.count == 8 else {
                problem(kind, "An entry's object key has \(value.count) bytes instead of 8", table: name)
                return
            }
            let actual = KeyEntry(value: Array(key), objectKey: value.u64(0))
            if facts.unreadable.contains(actual.objectKey) { return }
            while next < expected.count && expected[next] < actual {
                missing += 1
                if missing <= Self.reportedEntries {
                    problem(kind, "The \(what) entry of '\(property.name)' for object \(expected[next].objectKey) is missing", table: name, key: expected[next].objectKey)
                }
                next += 1
            }
            if next < expected.count && expected[next] == actual {
                next += 1
            } else {
                extra += 1
                if extra <= Self.reportedEntries {
                    problem(kind, "The \(what) table of '\(property.name)' has an entry for object \(actual.objectKey) that its row does not give", table: name, key: actual.objectKey)
                }
            }
        }
        for entry in expected[next...] {
            missing += 1
            if missing <= Self.reportedEntries {
                problem(kind, "The \(what) entry of '\(property.name)' for object \(entry.objectKey) is missing", table: name, key: entry.objectKey)
            }
        }
        summarize(kind, missing: missing, extra: extra, table: name)
    }

    private func checkBacklinkTable(_ table: NamedTree?, name: String, property: StoredProperty, expected: [BacklinkEntry]) {
        guard let table else {
            problem(.table, "The backlink table of '\(stored.name).\(property.name)' is missing", table: name)
            return
        }
        checkFlags(table, .backlinks)
        var missing = 0
        var extra = 0
        var next = 0
        walk.walk(table) { key, value in
            guard key.count == 8, value.count == 8 else {
                problem(.backlink, "A backlink entry is not two object keys", table: name)
                return
            }
            let actual = BacklinkEntry(target: key.u64(0), origin: value.u64(0))
            if facts.unreadable.contains(actual.origin) { return }
            while next < expected.count && expected[next] < actual {
                missing += 1
                if missing <= Self.reportedEntries {
                    problem(.backlink, "The backlink of '\(property.name)' from object \(expected[next].origin) to \(expected[next].target) is missing", table: name, key: expected[next].origin)
                }
                next += 1
            }
            if next < expected.count && expected[next] == actual {
                next += 1
            } else {
                extra += 1
                if extra <= Self.reportedEntries {
                    problem(.backlink, "A backlink of '\(property.name)' from object \(actual.origin) to \(actual.target) has no link in the rows", table: name, key: actual.origin)
                }
            }
        }
        for entry in expected[next...] {
            missing += 1
            if missing <= Self.reportedEntries {
                problem(.backlink, "The backlink of '\(property.name)' from object \(entry.origin) to \(entry.target) is missing", table: name, key: entry.origin)
            }
        }
        summarize(.backlink, missing: missing, extra: extra, table: name)
    }

    func summarize(_ kind: VerificationProblem.Kind, missing: Int, extra: Int, table: String) {
        if missing > Self.reportedEntries || extra > Self.reportedEntries {
            problem(kind, "In all, \(missing) entries are missing and \(extra) are not given by any row", table: table)
        }
    }
}

/// Checks that links and collection elements point to objects that exist, and that each
/// embedded object has exactly one parent.
struct LinkVerifier {
    let facts: [String: ClassFacts]
    let schema: StoredSchema
    let walk: FileWalk

    func check() {
        var parents: [String: [UInt64: Int]] = [:]
        for stored in schema.classes {
            guard let origin = facts[stored.name] else { continue }
            for reference in origin.references {
                let property = stored.properties[reference.column]
                guard let targetName = property.objectClass, let target = facts[targetName] else { continue }
                if !target.contains(reference.target) {
                    walk.report.add(VerificationProblem(
                        .link,
                        "'\(stored.name).\(property.name)' of object \(reference.origin) points to object \(reference.target) of '\(targetName)', which does not exist",
                        table: TableName.objects(stored.id), className: stored.name, objectKey: reference.origin))
                } else if target.stored.isEmbedded {
                    parents[targetName, default: [:]][reference.target, default: 0] += 1
                }
            }
        }
        for stored in schema.classes where stored.isEmbedded {
            guard let embedded = facts[stored.name] else { continue }
            let counts = parents[stored.name] ?? [:]
            for key in embedded.keys {
                let count = counts[key] ?? 0
                guard count != 1 else { continue }
                walk.report.add(VerificationProblem(
                    .link,
                    count == 0 ? "The embedded object has no parent" : "The embedded object has \(count) parents",
                    table: TableName.objects(stored.id), className: stored.name, objectKey: key))
            }
        }
    }
}
