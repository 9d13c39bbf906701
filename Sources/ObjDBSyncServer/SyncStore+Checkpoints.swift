import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol
import PostgresNIO

/// The read path: checkpoints read from the change feed in one snapshot, the feed's trimming,
/// and the current rows of objects.
extension SyncStore {
    // MARK: Read path

    /// A checkpoint read from one snapshot.
    struct Checkpoint {
        var isReset: Bool
        /// The changed objects, a batch per class (deleted objects as rows without values).
        var batches: [SyncObjectBatch]
        var snapshot: String
        var includesSequence: UInt64

        /// How many objects the checkpoint holds.
        var changeCount: Int { batches.reduce(0) { $0 + $1.rows.count } }

        /// The rows in `range`, counted across the batches in order, as batches.
        func batches(in range: Range<Int>) -> [SyncObjectBatch] {
            var out: [SyncObjectBatch] = []
            var start = 0
            for batch in batches {
                let end = start + batch.rows.count
                let lower = max(range.lowerBound, start), upper = min(range.upperBound, end)
                if lower < upper {
                    out.append(SyncObjectBatch(className: batch.className, propertyNames: batch.propertyNames, rows: Array(batch.rows[(lower - start)..<(upper - start)])))
                }
                start = end
            }
            return out
        }
    }

    /// Reads what a client's view selects (`since == nil`: a bootstrap) or what changed in it
    /// since a checkpoint, in one REPEATABLE READ transaction, with the client's last applied
    /// sequence.
    ///
    /// A changed object the view selects is sent whole. One it does not select (deleted, or no
    /// longer matching) is sent as removed only if the client may hold it: the view selected it
    /// before one of the changes (the feed's old row images are tested), so that a client never
    /// learns even the primary key of an object it may not see.
    func read(since old: String?, view: ClientView, clientID: UUID) async throws -> Checkpoint {
        var mappings: [ClassMapping] = []
        for name in view.classNames { if let m = try await mapping(name) { mappings.append(m) } }
        let lowercase = self.lowercase.withLock { $0 }
        return try await snapshotTransaction { c in
            // The snapshot, and the client's last operation applied in it (what the checkpoint
            // includes of its own), in one query.
            var snapshot = ""
            var sequence: UInt64 = 0
            for try await (s, last) in try await c.query(
                "SELECT pg_current_snapshot()::text, (SELECT last_sequence FROM objdb_clients WHERE client_id = \(clientID))", logger: logger
            ).decode((String, Int64?).self) {
                snapshot = s
                sequence = UInt64(max(0, last ?? 0))
            }
            var batches: [SyncObjectBatch] = []
            var old = old
            if let checkpoint = old {
                let trimmed = try await c.query(
                    "SELECT EXISTS (SELECT 1 FROM objdb_feed_trim WHERE before >= pg_snapshot_xmin(\(checkpoint)::pg_snapshot))", logger: logger)
                for try await isTrimmed in trimmed.decode(Bool.self) where isTrimmed { old = nil }
            }
            if let old {
                let rows = try await c.query(
                    """
                    SELECT DISTINCT f.class, k.pk FROM objdb_changes f CROSS JOIN LATERAL unnest(coalesce(f.pks, ARRAY[f.pk])) AS k(pk)
                    WHERE f.xid >= pg_snapshot_xmin(\(old)::pg_snapshot) AND pg_visible_in_snapshot(f.xid, \(snapshot)::pg_snapshot)
                      AND NOT pg_visible_in_snapshot(f.xid, \(old)::pg_snapshot) AND f.class = ANY(\(mappings.map(\.schema.name)))
                    """, logger: logger)
                var keys: [String: [String]] = [:]
                for try await (cls, pk) in rows.decode((String, String).self) { keys[cls, default: []].append(pk) }
                for m in mappings {
                    guard let pks = keys[m.schema.name], !pks.isEmpty else { continue }
                    let condition = try view.readCondition(m, alias: quoted(m.schema.name), lowercase: lowercase, firstParameter: 2)
                    var (found, batch) = try await self.rows(of: m, keys: pks, condition: condition, on: c)
                    var missing = pks.filter { !found.contains(ExactText($0)) }
                    if !condition.isAlways && !missing.isEmpty {
                        let seen = try await self.keysSelectedBefore(m, keys: missing, view: view, lowercase: lowercase, since: old, snapshot: snapshot, on: c)
                        missing = missing.filter { seen.contains(ExactText($0)) }
                    }
                    for pk in missing.sorted() {
                        batch.rows.append(SyncObjectBatch.Row(primaryKey: try PGText.scalarValue(pk, m.primaryKey.type), values: nil))
                    }
                    if !batch.rows.isEmpty { batches.append(batch) }
                }
            } else {
                for m in mappings {
                    let condition = try view.readCondition(m, alias: quoted(m.schema.name), lowercase: lowercase, firstParameter: 1)
                    batches.append(try await self.rows(of: m, keys: nil, condition: condition, on: c).batch)
                }
            }
            return Checkpoint(isReset: old == nil, batches: batches, snapshot: snapshot, includesSequence: sequence)
        }
    }

    /// Of `keys`, those whose object the view selected before one of its changes between the
    /// two snapshots: the feed's old row images (`old`, the row before an update or a delete)
    /// read back as rows of the class's table and tested by the view's condition.
    func keysSelectedBefore(
        _ m: ClassMapping, keys: [String], view: ClientView, lowercase: String, since old: String, snapshot: String, on c: PostgresConnection
    ) async throws -> Set<ExactText> {
        let condition = try view.readCondition(m, alias: "r", lowercase: lowercase, firstParameter: 5)
        guard condition.sql != SQLCondition.never.sql else { return [] }
        var binds = PostgresBindings()
        binds.append(m.schema.name)
        binds.append(keys)
        binds.append(old)
        binds.append(snapshot)
        for cell in condition.parameters { binds.append(cell) }
        let sql = """
            SELECT DISTINCT f.pk FROM objdb_changes f CROSS JOIN LATERAL jsonb_populate_record(NULL::\(quoted(m.schema.name)), f.old) AS r
            WHERE f.class = $1 AND f.pk = ANY($2::text[]) AND f.old IS NOT NULL
              AND f.xid >= pg_snapshot_xmin($3::pg_snapshot) AND pg_visible_in_snapshot(f.xid, $4::pg_snapshot)
              AND NOT pg_visible_in_snapshot(f.xid, $3::pg_snapshot) AND \(condition.sql)
            """
        var seen = Set<ExactText>()
        for try await pk in try await c.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).decode(String.self) { seen.insert(ExactText(pk)) }
        return seen
    }

    /// Deletes feed rows of transactions older than `seconds`, and the rejections recorded up to
    /// the same point; returns how many feed rows. Clients whose checkpoint predates the trim
    /// point bootstrap again.
    func trimFeed(olderThan seconds: Double) async throws -> Int {
        try await transaction { c in
            var locked = false
            for try await l in try await c.query("SELECT pg_try_advisory_xact_lock(7349003)", logger: logger).decode(Bool.self) { locked = l }
            guard locked else { return 0 }
            var last: String?
            for try await x in try await c.query(
                // Ordered by the column, not by the text selected under its name (which sorts
                // "966" after "1204").
                "SELECT xid::text AS last FROM objdb_changes WHERE at < now() - make_interval(secs => \(seconds)) ORDER BY objdb_changes.xid DESC LIMIT 1",
                logger: logger
            ).decode(String.self) {
                last = x
            }
            guard let last else { return 0 }
            var count = 0
            for try await n in try await c.query(
                "WITH d AS (DELETE FROM objdb_changes WHERE xid <= \(last)::xid8 RETURNING 1) SELECT count(*) FROM d", logger: logger
            ).decode(Int64.self) {
                count = Int(n)
            }
            try await c.query(
                """
                INSERT INTO objdb_feed_trim (id, before) VALUES (1, \(last)::xid8)
                ON CONFLICT (id) DO UPDATE SET before = greatest(objdb_feed_trim.before, EXCLUDED.before)
                """, logger: logger)
            // Rejections up to the trim point too: a client that has not had them holds a
            // checkpoint from before them, so older than the trim, and bootstraps.
            try await c.query("DELETE FROM objdb_rejections WHERE xid <= \(last)::xid8", logger: logger)
            return count
        }
    }

    /// The current state of each object named (values `nil` for one the table lacks, or the
    /// view does not select), in one transaction: what a client whose writes were rejected is
    /// sent, so that its file returns to the service's state as far as it may see it.
    func currentStates(of objects: [(className: String, primaryKey: SyncValue)], view: ClientView) async throws -> [SyncObjectState] {
        let lowercase = self.lowercase.withLock { $0 }
        var byClass: [String: [(text: String, key: SyncValue)]] = [:]
        var named = Set<[ExactText]>()
        for object in objects {
            guard let m = try await mapping(object.className),
                let text = try? PGText.encode(object.primaryKey, .scalar(m.primaryKey.type, isLink: false), property: m.primaryKey)
            else { continue }
            // Once per object, however many of its operations were rejected.
            guard named.insert([ExactText(object.className), ExactText(text)]).inserted else { continue }
            byClass[object.className, default: []].append((text, object.primaryKey))
        }
        var mappings: [(ClassMapping, [(text: String, key: SyncValue)])] = []
        for (name, keys) in byClass.sorted(by: { $0.key < $1.key }) {
            if let m = try await mapping(name) { mappings.append((m, keys)) }
        }
        return try await transaction { c in
            var states: [SyncObjectState] = []
            for (m, keys) in mappings {
                let condition = try view.readCondition(m, alias: quoted(m.schema.name), lowercase: lowercase, firstParameter: 2)
                let (present, batch) = try await self.rows(of: m, keys: keys.map(\.text), condition: condition, on: c)
                states += batch.states
                for key in keys where !present.contains(ExactText(key.text)) {
                    states.append(SyncObjectState(className: m.schema.name, primaryKey: key.key, values: nil))
                }
            }
            return states
        }
    }

    /// Current rows of a class (all, or those with these primary keys' text) that meet
    /// `condition` (its parameters numbered from 2 with `keys`, from 1 without), as a batch of
    /// every stored property, with the primary keys' text of the rows found (when `keys` are
    /// given).
    ///
    /// Scalars of fixed binary form (integers, booleans, floating point, text, UUIDs, and links
    /// of such keys) are read in PostgreSQL's binary format, dates as `float8` seconds since 2001
    /// (see ``selection(_:_:)``); the others (decimals, arrays, JSON) as text.
    func rows(of m: ClassMapping, keys: [String]?, condition: SQLCondition, on c: PostgresConnection) async throws -> (
        found: Set<ExactText>, batch: SyncObjectBatch
    ) {
        let read = try await keyedRows(of: m, keys: keys, condition: condition, on: c)
        return (keys == nil ? [] : Set(read.texts.map(ExactText.init)), read.batch)
    }

    /// ``rows(of:keys:condition:on:)`` with the primary key's text of each row, in the batch's
    /// order.
    func keyedRows(of m: ClassMapping, keys: [String]?, condition: SQLCondition, on c: PostgresConnection) async throws -> (
        texts: [String], batch: SyncObjectBatch
    ) {
        let pkCol = quoted(m.primaryKey.name)
        let select = m.columns.map { Self.selection(quoted($0.property.name), $0.kind) }
        var sql = "SELECT \(pkCol)::text, \(select.joined(separator: ", ")) FROM \(quoted(m.schema.name))"
        var binds = PostgresBindings()
        var conditions: [String] = []
        if let keys {
            // Compared in the key's own type, so that the primary key's index serves it.
            let pkType = ColumnKind.scalar(m.primaryKey.type, isLink: false).sqlType
            conditions.append("\(pkCol) = ANY($1::text[]::\(pkType)[])")
            binds.append(keys)
        }
        if !condition.isAlways {
            conditions.append(condition.sql)
            for cell in condition.parameters { binds.append(cell) }
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        // In key order; a whole table is read in the order PostgreSQL finds it fastest.
        // Qualified: the key's own column is also selected under its name.
        if keys != nil { sql += " ORDER BY \(quoted(m.schema.name)).\(pkCol)" }
        let result = try await c.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        var batch = SyncObjectBatch(className: m.schema.name, propertyNames: m.columns.map(\.property.name), rows: [])
        var texts: [String] = []
        for try await row in result {
            let cells = row.makeRandomAccess()
            guard let pkText = try cells[0].decode(String?.self) else { continue }
            // A row a SQL client wrote that does not read as the class's values (a number past
            // Decimal's range, JSON that is not the tagged form) is left out and logged: sent as
            // it is, it would stop every client's downloads of the class, again at each retry.
            do {
                var values: [SyncValue] = []
                values.reserveCapacity(m.columns.count)
                for (i, col) in m.columns.enumerated() {
                    let value = try Self.value(of: cells[i + 1], col.kind, property: col.property)
                    // NULL where the class requires a value (a SQL client's insert that left the
                    // column out): no client could store the object.
                    if value == .null, !col.property.isOptional, case .scalar(_, isLink: false) = col.kind {
                        throw ObjDBError(.typeMismatch, "'\(col.property.name)' is NULL, and the class requires a value")
                    }
                    values.append(value)
                }
                let pk = try PGText.scalarValue(pkText, m.primaryKey.type)
                texts.append(pkText)
                batch.rows.append(SyncObjectBatch.Row(primaryKey: pk, values: values))
            } catch {
                logger.error(
                    "A row cannot be read as its class's values; it is not sent to clients",
                    metadata: ["class": "\(m.schema.name)", "primaryKey": "\(pkText)", "error": "\(error)"])
            }
        }
        return (texts, batch)
    }

    /// Whether a column of `kind` is read in PostgreSQL's binary format (see ``rows(of:keys:condition:on:)``).
    static func readsBinary(_ kind: ColumnKind) -> Bool {
        guard case .scalar(let type, _) = kind else { return false }
        switch type {
        case .int, .bool, .float, .double, .string, .uuid, .date: return true
        default: return false
        }
    }

    /// What the `SELECT` of ``rows(of:keys:condition:on:)`` reads of a column.
    ///
    /// A date (`numeric` seconds since 1970, exact) is read as its seconds since 2001, the
    /// `Double` a `Date` holds: the subtraction is exact in `numeric`, and the conversion to
    /// `float8` rounds correctly (PostgreSQL converts through the decimal text), so a date a
    /// client wrote comes back to the bit, and one a SQL client wrote as the nearest `Date`.
    static func selection(_ column: String, _ kind: ColumnKind) -> String {
        guard readsBinary(kind) else { return "\(column)::text" }
        if case .scalar(.date, _) = kind { return "(\(column) - \(SyncValueJSON.secondsFrom1970To2001))::float8" }
        return column
    }

    /// The value of a cell read as ``readsBinary(_:)`` says.
    static func value(of cell: PostgresCell, _ kind: ColumnKind, property: SyncPropertySchema) throws -> SyncValue {
        guard readsBinary(kind), case .scalar(let type, let isLink) = kind else {
            return try PGText.decode(try cell.decode(String?.self), kind, property: property)
        }
        let value: SyncValue
        switch type {
        case .int: value = try cell.decode(Int64?.self).map { .int($0) } ?? .null
        case .bool: value = try cell.decode(Bool?.self).map { .bool($0) } ?? .null
        case .float: value = try cell.decode(Float?.self).map { .float($0) } ?? .null
        case .double: value = try cell.decode(Double?.self).map { .double($0) } ?? .null
        case .uuid: value = try cell.decode(UUID?.self).map { .uuid($0) } ?? .null
        case .date: value = try cell.decode(Double?.self).map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null
        default: value = try cell.decode(String?.self).map { .string($0) } ?? .null
        }
        return isLink && value != .null ? .link(value) : value
    }
}
