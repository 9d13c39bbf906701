/// Brings the stored schema in line with model classes: adds new classes with their tables,
/// adds or removes indexes, and refuses any other difference, which needs a migration.
struct SchemaChanges {
    /// Whether the stored schema was (or would be) changed.
    var any = false

    /// Every difference in stored data between the models and the stored schema, in words a
    /// developer can act on (`'Person.age' changed from Int to String`), class by class.
    /// Added classes, indexes and property order are not differences: they need no migration.
    static func differences(_ layouts: [ClassLayout], _ stored: StoredSchema) -> [(className: String, text: String)] {
        layouts.flatMap { layout -> [(className: String, text: String)] in
            guard let existing = stored.storedClass(named: layout.className) else { return [] }
            return layout.schema.dataDifferences(from: existing.objectSchema).map { difference in
                (layout.className, phrase(difference, layout.className))
            }
        }
    }

    /// A difference of `dataDifferences` with its class named.
    private static func phrase(_ difference: String, _ className: String) -> String {

        if difference.hasPrefix("property '") { return "'\(className)." + difference.dropFirst("property '".count) }
        return "'\(className)': \(difference)"
    }

    /// Checks model classes against the stored schema without writing anything.
    /// Throws ``ObjDBError/Code/migrationRequired`` for differences in stored data.
    static func check(_ layouts: [ClassLayout], against stored: inout StoredSchema, changes: inout SchemaChanges) throws {
        for layout in layouts {
            guard let existing = stored.storedClass(named: layout.className) else {
                changes.any = true
                continue
            }
            try requireSameData(layout, existing)
            if indexChanges(layout, existing).contains(where: { _ in true }) || !fullTextChanges(layout, existing).isEmpty
                || withMetadata(of: layout, existing) != existing || existing.properties.contains(where: \.lacksMixedLinks)
            {
                changes.any = true
            }
        }
    }

    /// Makes sure `layout`'s class exists in `stored` with the model's indexes, creating tables
    /// and filling new indexes inside the write transaction `txn`.
    mutating func ensure(
        _ layout: ClassLayout, in stored: inout StoredSchema, txn: Txn
    ) throws -> (StoredClass, ClassTables) {
        guard var existing = stored.storedClass(named: layout.className) else {
            let added = stored.addClass(layout.schema)
            any = true
            return (added, try ClassTables.create(added, txn: txn))
        }
        try Self.requireSameData(layout, existing)
        let changed = Array(Self.indexChanges(layout, existing))
        for (column, indexed) in changed { existing.properties[column].indexed = indexed }
        let fullText = Self.fullTextChanges(layout, existing)
        for (column, wanted) in fullText {
            existing.properties[column].fullText = wanted ? FullTextTokenizer.version : nil
            existing.properties[column].fullTextFolding = wanted ? FullTextTokenizer.foldingDigest : nil
        }
        // A mixed property from before links: its (empty) mixed-links table is created below.
        for column in existing.properties.indices where existing.properties[column].lacksMixedLinks {
            existing.properties[column].mixedLinks = StoredProperty.mixedLinksVersion
            stored.replace(existing)
            any = true
        }
        let updated = Self.withMetadata(of: layout, existing)
        let madeUnique = updated.properties.indices.filter { updated.properties[$0].unique == true && existing.properties[$0].unique != true }
        let newKeys = (updated.uniqueKeys ?? []).filter { !(existing.uniqueKeys ?? []).contains($0) }
        if !changed.isEmpty || !fullText.isEmpty || updated != existing {
            existing = updated
            stored.replace(existing)
            any = true
        }
        let tables = try ClassTables.create(existing, txn: txn)
        for (column, indexed) in changed {
            let property = existing.properties[column]
            if indexed, let index = tables.indexes[column] {
                try IndexBuilder.fill(index, column: column, kind: property.type.scalarKind, from: tables.objects, txn: txn)
            } else if !indexed {
                // Keep the (now empty) table: LMDB handles of dropped tables cannot be reused safely.
                let old = try txn.openTable(named: TableName.index(existing.id, property: property.id), flags: .multimap)
                try txn.empty(old)
            }
        }
        for (column, wanted) in fullText {
            let property = existing.properties[column]
            // Emptied first: a rebuild for another tokenizer version starts from nothing.
            let table = try txn.openTable(named: TableName.fullText(existing.id, property: property.id), flags: .postings)
            try txn.empty(table)
            if wanted { try FullTextIndexBuilder.fill(table, column: column, from: tables.objects, txn: txn) }
        }
        // Keys whose every property exists, as columns.
        let keyColumns = newKeys.map { names in names.compactMap(existing.column(of:)) }
        let groups = madeUnique.map { [$0] } + zip(newKeys, keyColumns).filter { $0.0.count == $0.1.count }.map(\.1)
        for columns in groups {
            // Unique properties and the properties of compound keys are indexed.
            guard let first = columns.first, let index = tables.indexes[first] else { continue }
            try UniqueCheck.requireDistinct(existing, columns: columns, objects: tables.objects, index: index, txn: txn)
        }
        return (existing, tables)
    }

    /// Gives every mixed property of `stored` that lacks one its (empty) mixed-links table, in
    /// classes the models declare or not: a file from before links in mixed values (format 4 or
    /// older), upgraded at a writable open so that no build writes an untracked link to it.
    mutating func addMixedLinks(in stored: inout StoredSchema, txn: Txn) throws {
        for var existing in stored.classes where existing.properties.contains(where: \.lacksMixedLinks) {
            for column in existing.properties.indices where existing.properties[column].lacksMixedLinks {
                existing.properties[column].mixedLinks = StoredProperty.mixedLinksVersion
            }
            stored.replace(existing)
            _ = try ClassTables.create(existing, txn: txn)
            any = true
        }
    }

    private static func requireSameData(_ layout: ClassLayout, _ existing: StoredClass) throws {
        let differences = layout.schema.dataDifferences(from: existing.objectSchema)
        guard differences.isEmpty else {
            throw ObjDBError(
                .migrationRequired,
                "The class '\(layout.className)' in the file does not match the model: \(differences.joined(separator: "; ")). Raise Configuration.schemaVersion and migrate, or set deleteDatabaseIfMigrationNeeded",
                className: layout.className)
        }
    }

    /// `existing` with the model's delete rules, auto-increment keys, maintained dates and
    /// computed properties: metadata that changes no stored data, so it is updated without a
    /// migration.
    private static func withMetadata(of layout: ClassLayout, _ existing: StoredClass) -> StoredClass {
        var updated = existing
        for (column, property) in existing.properties.enumerated() {
            guard let model = layout.schema[property.name] else { continue }
            updated.properties[column].deleteRule = model.deleteRule == .nullify ? nil : model.deleteRule
            updated.properties[column].autoIncrement = model.isAutoIncrement && property.primaryKey ? true : nil
            updated.properties[column].timestamp = model.timestamp
            updated.properties[column].unique = model.isUnique && !property.primaryKey ? true : nil
        }
        updated.setComputed(layout.schema.properties.filter(\.isComputed))
        updated.uniqueKeys = layout.schema.uniqueKeys.isEmpty ? nil : layout.schema.uniqueKeys
        return updated
    }

    /// Columns whose full-text index the model adds, removes, or has filled by another tokenizer
    /// version or folding, with whether the model wants one.
    private static func fullTextChanges(_ layout: ClassLayout, _ existing: StoredClass) -> [(Int, Bool)] {
        existing.properties.enumerated().compactMap { column, property in
            guard let model = layout.schema[property.name] else { return nil }
            let wanted = model.isFullTextIndexed
            if wanted { return property.fullTextIsCurrent ? nil : (column, true) }
            return property.fullText == nil ? nil : (column, false)
        }
    }

    /// Columns whose index flag differs between the model and the file, with the model's flag.
    private static func indexChanges(_ layout: ClassLayout, _ existing: StoredClass) -> some Sequence<(Int, Bool)> {
        existing.properties.enumerated().compactMap { column, property in
            guard !property.primaryKey, let wanted = layout.schema[property.name]?.isIndexed,
                wanted != property.indexed
            else { return nil }
            return (column, wanted)
        }
    }
}

/// Builds full-text indexes from existing rows.
enum FullTextIndexBuilder {
    /// Adds the postings of every row's text in `column` of `objects` to the empty full-text
    /// index `table`, grouped by word, a batch of rows at a time.
    static func fill(_ table: Table, column: Int, from objects: Table, txn: Txn) throws {
        let pending = PendingFullText()
        var logged = 0
        var next: UInt64 = 0
        var more = true
        // Rows are read in batches and the postings written between them: a write invalidates
        // the cursor's pointers into the map, so the cursor is opened again after each batch.
        while more {
            more = false
            let cursor = try Cursor(txn, objects)
            var entry = try cursor.seek(atLeast: next)
            while let current = entry {
                let key = current.objectKey
                let row = RowView(current.value) ?? RowView.damaged
                let document = FullTextDocument(row.column(column).textBytes)
                for (word, occurrences) in document.words {
                    pending.add(table, word: word, .init(objectKey: key, occurrences: occurrences, textLength: document.length))
                }
                pending.adjust(table, documents: document.words.isEmpty ? 0 : 1, words: Int64(document.length))
                logged += document.words.count
                entry = try cursor.next()
                if logged >= 1 << 20, entry != nil, key < .max {
                    next = key + 1
                    more = true
                    break
                }
            }
            try pending.write(txn)
            logged = 0
        }
    }
}

/// Builds index tables from existing rows.
enum IndexBuilder {
    /// Adds an entry for every row of `objects` to `index`.
    static func fill(_ index: Table, column: Int, kind: ScalarKind, from objects: Table, txn: Txn) throws {
        let cursor = try Cursor(txn, objects)
        var key: [UInt8] = []
        var entry = try cursor.first()
        while let current = entry {
            key.removeAll(keepingCapacity: true)
            let objectKey = current.objectKey
            let row = RowView(current.value) ?? RowView.damaged
            if !KeyEncoding.append(row.column(column), kind: kind, to: &key) {
                key = [KeyEncoding.nullTag]
            }
            try key.withUnsafeBytes { k in
                try withUnsafeBytes(of: objectKey) { _ = try txn.put(index, key: k, value: $0) }
            }
            entry = try cursor.next()
        }
    }
}

/// Checks existing objects when a property becomes unique.
enum UniqueCheck {
    /// Throws ``ObjDBError/Code/uniqueConstraintViolation`` if two objects of `stored` hold the
    /// same non-nil values in `columns`, naming both objects. `index` is the index of
    /// `columns[0]`, up to date with the rows: only objects that share an index key are read and
    /// compared (a key may be shared by different long values, whose index keys are cut).
    ///
    /// - Complexity: O(e) for the e entries of the index, plus a row read for each object that
    ///   shares its index key with another; memory for one such group at a time.
    static func requireDistinct(_ stored: StoredClass, columns: [Int], objects: Table, index: Table, txn: Txn) throws {
        let cursor = try Cursor(txn, index)
        var entry = try cursor.first()
        while let current = entry {
            // A nil never conflicts, and one object alone under a key cannot.
            // In an encrypted file the key is a hash, so nil is not told apart here (the rows say).
            if index.seal == .keys || current.key.first != KeyEncoding.nullTag, try cursor.duplicateCount() > 1 {
                // The key's entries read through the cursor: the stored key is not the one a
                // lookup takes in an encrypted file.
                var keys = [current.valueObjectKey]
                while let next = try cursor.nextDuplicate() { keys.append(next.valueObjectKey) }
                try requireDistinct(stored, columns: columns, among: keys, objects: objects, txn: txn)
            }
            entry = try cursor.nextKey()
        }
    }

    /// The objects `keys` (which share an index key) hold pairwise different values in `columns`
    /// (a nil in any of them never conflicts).
    private static func requireDistinct(_ stored: StoredClass, columns: [Int], among keys: [UInt64], objects: Table, txn: Txn) throws {
        var seen: [[[UInt8]]: UInt64] = [:]
        for key in keys {
            guard let bytes = try txn.get(objects, key: key), let row = RowView(bytes) else { continue }
            let values = columns.compactMap { column -> [UInt8]? in
                if case .value(let bytes) = row.column(column) { return Array(bytes) }
                return nil
            }
            guard values.count == columns.count else { continue }
            if let first = seen[values] {
                let names = columns.map { stored.properties[$0].name }.joined(separator: ", ")
                let single = columns.count == 1 && stored.properties[columns[0]].type == .string
                let text = single ? "'\(String(decoding: values[0], as: UTF8.self))'" : "the same values"
                throw ObjDBError(
                    .uniqueConstraintViolation,
                    "'\(stored.name).\(names)' is declared unique, but objects \(first) and \(key) both hold \(text); make the values distinct in a migration first",
                    className: stored.name)
            }
            seen[values] = key
        }
    }
}
