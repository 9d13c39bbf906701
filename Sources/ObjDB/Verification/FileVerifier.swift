import Foundation

/// Runs ``Database/verify()``: the page walk (``FileWalk``), then ObjDB's own checks on what the
/// tables hold (``MetaVerifier``, ``ClassVerifier``, ``DerivedTableVerifier``).
enum FileVerifier {
    /// Verifies the newest version of the file of `lease`, pinned by a read transaction.
    /// `cipher`: the key of an encrypted file, when the environment was not opened with it.
    static func verifyPinned(_ lease: EnvironmentLease, path: String, cipher: StoreCipher? = nil) throws -> VerificationReport {
        // A version stays described by a meta page until two more commits land; try again then.
        for _ in 0..<50 {
            let pin = try ReadTransaction(lease)
            // Opened after the pin, so that its size covers every page of the pinned version.
            let file = try PageFile(path: path)
            let metas = try MetaPages(file)
            if let problem = metas.problem {
                var report = VerificationReport(path: path, transactionID: pin.id)
                report.add(problem)
                return report
            }
            guard let meta = metas.version(UInt64(truncatingIfNeeded: pin.id)) else { continue }
            return withExtendedLifetime(pin) { verify(file: file, meta: meta, cipher: cipher ?? lease.environment.cipher) }
        }
        throw ObjDBError(.storage, "The file changed too fast to pin a version for verification; try again", path: path)
    }

    /// Verifies the newest version the meta pages of the file at `path` describe, without LMDB.
    static func verifyUnpinned(path: String, cipher: StoreCipher? = nil) throws -> VerificationReport {
        let file = try PageFile(path: path)
        let metas = try MetaPages(file)
        let usable = metas.pages.compactMap { $0 }.filter {
            $0.isValid && MetaPages.isPlausible(pageSize: $0.pageSize) && $0.transactionID <= UInt64(Int64.max)
        }
        guard let meta = usable.max(by: { $0.transactionID < $1.transactionID }) else {
            var report = VerificationReport(path: path, transactionID: 0)
            report.add(metas.problem ?? VerificationProblem(.metaPage, "The file has no valid LMDB meta page: it is not a database file"))
            return report
        }
        var report = verify(file: file, meta: meta, cipher: cipher)
        if let problem = metas.problem { report.problems.insert(problem, at: 0) }
        return report
    }

    /// Verifies the version `meta` describes.
    static func verify(file: PageFile, meta: MetaRecord, cipher: StoreCipher? = nil) -> VerificationReport {
        let walk = FileWalk(
            file: file, meta: meta, report: VerificationReport(path: file.path, transactionID: Int(truncatingIfNeeded: meta.transactionID)))
        walk.walkFreeTree()
        let (tables, others) = walk.walkMainTree()
        for name in others {
            walk.report.add(VerificationProblem(.table, "The main tree holds an entry '\(name)' that is not a table"))
        }
        var remaining: [String: NamedTree] = [:]
        for table in tables { remaining[table.name] = table }
        walk.cipher = cipher
        // The meta records first, as stored: the key check decides whether the rest can be read.
        let metaRecords = remaining.removeValue(forKey: TableName.meta).map { MetaVerifier.records($0, walk) }
        if let metaRecords, !KeyCheckVerifier.check(metaRecords, walk) {
            // An encrypted file without its key: its pages are checked, what they hold cannot be.
            for table in remaining.values.sorted(by: { $0.name < $1.name }) { walk.walk(table) { _, _ in } }
            walk.finishAccounting()
            return walk.report
        }

        if let bucketsTree = remaining.removeValue(forKey: TableName.buckets) {
            if walk.cipher == nil {
                walk.report.add(VerificationProblem(.table, "The file is not encrypted but has a buckets table", table: TableName.buckets))
                walk.walk(bucketsTree) { _, _ in }
            } else {
                walk.readBuckets(bucketsTree)
            }
        }
        var schema: StoredSchema?
        var counters: [UInt32: UInt64] = [:]
        if let changesTree = remaining.removeValue(forKey: TableName.changes) {
            ChangeLogVerifier.check(changesTree, walk)
        }
        if let outboxTree = remaining.removeValue(forKey: TableName.outbox) {
            OutboxVerifier.check(outboxTree, walk)
        }
        if let syncTree = remaining.removeValue(forKey: TableName.sync) {
            OutboxVerifier.checkState(syncTree, walk)
        }
        if let metaRecords {
            (schema, counters) = MetaVerifier.check(metaRecords, walk)
        } else if tables.isEmpty && others.isEmpty {
            // An LMDB file with nothing in it yet: a database not initialised.
        } else {
            walk.report.add(VerificationProblem(.table, "The file has no 'meta' table: it is not an ObjDB file, or the table was lost"))
        }

        if let schema {
            var facts: [String: ClassFacts] = [:]
            for stored in schema.classes {
                let verifier = ClassVerifier(stored: stored, walk: walk)
                facts[stored.name] = verifier.checkRows(remaining.removeValue(forKey: TableName.objects(stored.id)))
            }
            for stored in schema.classes {
                guard let classFacts = facts[stored.name] else { continue }
                DerivedTableVerifier(facts: classFacts, walk: walk).check(&remaining)
                if let counter = counters[stored.id], let last = classFacts.keys.last, counter <= last {
                    walk.report.add(VerificationProblem(
                        .meta, "The key counter of '\(stored.name)' is \(counter), not above its largest object key \(last)",
                        table: TableName.meta, className: stored.name))
                }
            }
            LinkVerifier(facts: facts, schema: schema, walk: walk).check()
        }

        // Removing an index keeps its table, emptied (LMDB cannot reuse dropped handles safely).
        let formerIndexes = Set((schema?.classes ?? []).flatMap { stored in
            stored.properties.filter { !$0.indexed && !$0.primaryKey }.map { TableName.index(stored.id, property: $0.id) }
                + stored.properties.filter { $0.fullText == nil }.map { TableName.fullText(stored.id, property: $0.id) }
        })
        // A migration that removes a property keeps its index and backlink tables, emptied, and
        // one that removes the primary key its key table.
        let removedProperties = Set((schema?.classes ?? []).flatMap { stored -> [String] in
            let current = Set(stored.properties.map(\.id))
            let formerKey = stored.properties.contains(where: \.primaryKey) ? [] : [TableName.primaryKeys(stored.id)]
            return formerKey + (1..<max(stored.nextPropertyID, 1)).filter { !current.contains($0) }.flatMap { id in
                [
                    TableName.index(stored.id, property: id), TableName.backlinks(stored.id, property: id),
                    TableName.fullText(stored.id, property: id), TableName.mixedLinks(stored.id, property: id),
                ]
            }
        })
        // A migration that removes a class (deleteData of a class no model declares) keeps its
        // tables, emptied; class ids are never reused.
        let removedClass = RemovedClassTables(schema)
        for table in remaining.values.sorted(by: { $0.name < $1.name }) {
            if removedClass.contains(table.name) {
                if !table.record.isEmpty {
                    walk.report.add(VerificationProblem(.table, "The table of a removed class still holds entries", table: table.name))
                }
            } else if formerIndexes.contains(table.name) {
                if !table.record.isEmpty {
                    walk.report.add(VerificationProblem(.index, "The table of a removed index still holds entries", table: table.name))
                }
            } else if removedProperties.contains(table.name) {
                if !table.record.isEmpty {
                    walk.report.add(VerificationProblem(.table, "The table of a removed property still holds entries", table: table.name))
                }
            } else if schema != nil {
                walk.report.add(VerificationProblem(.table, "The file has a table '\(table.name)' that belongs to no class of its schema", table: table.name))
            }
            walk.walk(table) { _, _ in }  // its pages still count
        }
        walk.reportUnreferencedBuckets { tag in tables.first { StoreCipher.tag(ofTable: $0.name) == tag }?.name }
        walk.finishAccounting()
        return walk.report
    }
}

/// Tells the tables of classes a migration removed from the schema: `c<id>`, `c<id>.pk`,
/// `c<id>.i<n>`, `c<id>.b<n>` and `c<id>.f<n>` for a class id below the schema's next one that no class has.
struct RemovedClassTables {
    private let current: Set<UInt32>
    private let nextClassID: UInt32

    init(_ schema: StoredSchema?) {
        current = Set((schema?.classes ?? []).map(\.id))
        nextClassID = schema?.nextClassID ?? 0
    }

    /// Whether `name` is a table of a removed class.
    func contains(_ name: String) -> Bool {
        guard name.hasPrefix("c") else { return false }
        let digits = name.dropFirst().prefix { $0 >= "0" && $0 <= "9" }
        guard let id = UInt32(digits), id >= 1, id < nextClassID, !current.contains(id),
            name.hasPrefix(TableName.objects(id))
        else { return false }
        let rest = name.dropFirst(TableName.objects(id).count)
        if rest.isEmpty || rest == ".pk" { return true }
        guard rest.hasPrefix(".i") || rest.hasPrefix(".b") || rest.hasPrefix(".f"), let property = UInt32(rest.dropFirst(2)) else { return false }
        return rest.dropFirst(2) == "\(property)"
    }
}

/// Checks ObjDB's `meta` table: the magic bytes, the format, the checksum of its records, the
/// schema and the key counters.
enum MetaVerifier {
    /// The table's records as stored, in key order.
    static func records(_ tree: NamedTree, _ walk: FileWalk) -> [(key: [UInt8], value: [UInt8])] {
        var records: [(key: [UInt8], value: [UInt8])] = []
        walk.walk(tree) { key, value in records.append((Array(key), Array(value))) }
        return records
    }

    /// Checks the records; returns the schema (if it reads) and the key counter of each class id.
    static func check(_ stored: [(key: [UInt8], value: [UInt8])], _ walk: FileWalk) -> (StoredSchema?, [UInt32: UInt64]) {
        var records: [String: [UInt8]] = [:]
        var crc: UInt32 = 0
        let seal = TableSeal(flags: .plain, encrypted: walk.cipher != nil)
        let tag = StoreCipher.tag(ofTable: TableName.meta)
        for (key, sealed) in stored {
            let name = String(decoding: key, as: UTF8.self)
            var value = sealed
            if let cipher = walk.cipher, key.withUnsafeBytes({ seal.sealsValue(under: $0) }) {
                guard let opened = key.withUnsafeBytes({ k in sealed.withUnsafeBytes { cipher.open($0, tag: tag, key: k) { Array($0) } } }) else {
                    walk.report.add(VerificationProblem(
                        .meta, "The encrypted record '\(name)' does not authenticate: it was damaged or altered", table: TableName.meta))
                    continue
                }
                value = opened
            }
            records[name] = value
            // The checksum covers every other record in key order, as `FileMeta.checksum` does.
            guard name != FileMeta.Key.checksum else { continue }
            for part in [key, value] {
                var length = UInt32(part.count).littleEndian
                crc = withUnsafeBytes(of: &length) { Checksum.crc32c($0, continuing: crc) }
                crc = part.withUnsafeBytes { Checksum.crc32c($0, continuing: crc) }
            }
        }
        func problem(_ message: String) {
            walk.report.add(VerificationProblem(.meta, message, table: TableName.meta))
        }
        guard records[FileMeta.Key.magic] == FileMeta.magic else {
            problem("The 'meta' table lacks ObjDB's magic bytes: this is not an ObjDB file")
            return (nil, [:])
        }
        guard let formatBytes = records[FileMeta.Key.format], formatBytes.count == 4 else {
            problem("The format version record is missing or damaged")
            return (nil, [:])
        }
        let format = formatBytes.withUnsafeBytes { UInt32(littleEndian: $0.u32(0)) }
        guard format >= 1, format <= FileMeta.currentFormat else {
            problem("The file has format version \(format); this version of ObjDB reads 1 to \(FileMeta.currentFormat)")
            return (nil, [:])
        }
        if let stored = records[FileMeta.Key.checksum] {
            if stored.count != 4 || stored.withUnsafeBytes({ UInt32(littleEndian: $0.u32(0)) }) != crc {
                problem("The meta records do not match their checksum: the schema, versions or key counters are damaged")
            }
        } else if format >= 3 {
            problem("The meta records of a format-\(format) file have no checksum")
        }
        var counters: [UInt32: UInt64] = [:]
        for (name, value) in records.sorted(by: { $0.key < $1.key }) {
            switch name {
            case FileMeta.Key.magic, FileMeta.Key.format, FileMeta.Key.checksum, FileMeta.Key.schema, FileMeta.Key.encryption:
                continue
            case FileMeta.Key.syncClasses:
                if value.withUnsafeBytes({ SyncTables.classNames(decoding: $0) }) == nil {
                    problem("The record of the synced classes is damaged")
                }
            case FileMeta.Key.schemaVersion, FileMeta.Key.schemaStamp:
                if value.count != 8 { problem("The record '\(name)' has \(value.count) bytes instead of 8") }
            default:
                let prefix = FileMeta.Key.nextKey(0).dropLast()
                let autoPrefix = FileMeta.Key.autoIncrement(0).dropLast()
                if name.hasPrefix(prefix), let id = UInt32(name.dropFirst(prefix.count)), value.count == 8 {
                    counters[id] = value.withUnsafeBytes { UInt64(littleEndian: $0.u64(0)) }
                } else if name.hasPrefix(autoPrefix), UInt32(name.dropFirst(autoPrefix.count)) != nil, value.count == 8 {
                    continue
                } else {
                    problem("The 'meta' table holds an unknown or damaged record '\(name)'")
                }
            }
        }
        guard let schemaBytes = records[FileMeta.Key.schema] else { return (StoredSchema(), counters) }
        do {
            return (try schemaBytes.withUnsafeBytes { try StoredSchema.decode($0, path: walk.file.path) }, counters)
        } catch let error as ObjDBError {
            problem("The stored schema cannot be used: \(error.message)")
        } catch {
            problem("The stored schema cannot be used: \(error)")
        }
        return (nil, counters)
    }
}

/// Checks the change log: integer keys, and every entry one this build can read.
enum ChangeLogVerifier {
    static func check(_ tree: NamedTree, _ walk: FileWalk) {
        var reported = 0
        walk.walkOpened(tree, visit: { key, value in
            guard reported < 10 else { return }
            if key.count != 8 {
                walk.report.add(VerificationProblem(.table, "The change log has a key of \(key.count) bytes", table: TableName.changes))
                reported += 1
                return
            }
            do {
                _ = try ChangeLogFormat.decode(value)
            } catch let error as ObjDBError {
                let version = key.loadUnaligned(as: UInt64.self)
                walk.report.add(VerificationProblem(.table, "The change log's entry of version \(version): \(error.message)", table: TableName.changes))
                reported += 1
            } catch {
                reported += 1
            }
        }, failed: { key in
            guard reported < 10 else { return }
            reported += 1
            walk.report.add(VerificationProblem(
                .table, "The change log's encrypted entry under key \(key.count == 8 ? key.loadUnaligned(as: UInt64.self) : 0) does not authenticate: it was damaged or altered",
                table: TableName.changes))
        })
    }
}

/// Checks the key-check record of `meta` against the walk's cipher, before anything sealed is
/// read: an encrypted file needs its key, and a key is no use on a plain file.
enum KeyCheckVerifier {
    /// Returns whether what the tables hold can be checked; sets the walk's cipher to `nil` for
    /// a plain file.
    static func check(_ records: [(key: [UInt8], value: [UInt8])], _ walk: FileWalk) -> Bool {
        let record = records.first { $0.key.elementsEqual(FileMeta.Key.encryption.utf8) }?.value
        func problem(_ message: String) {
            walk.report.add(VerificationProblem(.meta, message, table: TableName.meta))
        }
        switch (record, walk.cipher) {
        case (nil, nil):
            return true
        case (nil, _?):
            problem("The file is not encrypted, but a key was given; verify it without one")
            walk.cipher = nil
            return true
        case (_?, nil):
            problem("The file is encrypted: its rows, schema and logs can only be checked with its key")
            return false
        case (let bytes?, let cipher?):
            switch bytes.withUnsafeBytes({ KeyCheck.check($0, cipher: cipher, tag: StoreCipher.tag(ofTable: TableName.meta)) }) {
            case .matches: return true
            case .otherKey:
                problem("The file is encrypted with another key than the one given")
                return false
            case .damaged:
                problem("The key-check record of the encrypted file is damaged")
                return true
            }
        }
    }
}
