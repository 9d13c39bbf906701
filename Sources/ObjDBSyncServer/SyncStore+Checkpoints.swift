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

    /// Reads everything of the subscribed classes (`since == nil`) or what changed since a
    /// checkpoint, in one REPEATABLE READ transaction, with the client's last applied sequence.
    func read(since old: String?, classes: [String], clientID: UUID) async throws -> Checkpoint {
        var mappings: [ClassMapping] = []
        for name in Set(classes).sorted() { if let m = try await mapping(name) { mappings.append(m) } }
        return try await transaction { c in
            try await c.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            var snapshot = ""
            for try await s in try await c.query("SELECT pg_current_snapshot()::text", logger: logger).decode(String.self) { snapshot = s }
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
                    SELECT DISTINCT class, pk FROM objdb_changes
                    WHERE xid >= pg_snapshot_xmin(\(old)::pg_snapshot) AND pg_visible_in_snapshot(xid, \(snapshot)::pg_snapshot)
                      AND NOT pg_visible_in_snapshot(xid, \(old)::pg_snapshot) AND class = ANY(\(mappings.map(\.schema.name)))
                    """, logger: logger)
                var keys: [String: [String]] = [:]
                for try await (cls, pk) in rows.decode((String, String).self) { keys[cls, default: []].append(pk) }
                for m in mappings {
                    guard let pks = keys[m.schema.name], !pks.isEmpty else { continue }
                    var (found, batch) = try await self.rows(of: m, keys: pks, on: c)
                    for pk in pks.sorted() where !found.contains(pk) {
                        batch.rows.append(SyncObjectBatch.Row(primaryKey: try PGText.scalarValue(pk, m.primaryKey.type), values: nil))
                    }
                    batches.append(batch)
                }
            } else {
                for m in mappings { batches.append(try await self.rows(of: m, keys: nil, on: c).batch) }
            }
            var sequence: UInt64 = 0
            for try await s in try await c.query("SELECT last_sequence FROM objdb_clients WHERE client_id = \(clientID)", logger: logger)
                .decode(Int64.self)
            {
                sequence = UInt64(max(0, s))
            }
            return Checkpoint(isReset: old == nil, batches: batches, snapshot: snapshot, includesSequence: sequence)
        }
    }

    /// Deletes feed rows of transactions older than `seconds`; returns how many. Clients whose
    /// checkpoint predates the trim point bootstrap again.
    func trimFeed(olderThan seconds: Double) async throws -> Int {
        try await transaction { c in
            var locked = false
            for try await l in try await c.query("SELECT pg_try_advisory_xact_lock(7349003)", logger: logger).decode(Bool.self) { locked = l }
            guard locked else { return 0 }
            var last: String?
            for try await x in try await c.query(
                "SELECT xid::text FROM objdb_changes WHERE at < now() - make_interval(secs => \(seconds)) ORDER BY xid DESC LIMIT 1",
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
            return count
        }
    }

    /// The current state of each object named (values `nil` for one the table lacks), in one
    /// transaction: what a client whose writes were rejected is sent, so that its file returns
    /// to the service's state.
    func currentStates(of objects: [(className: String, primaryKey: SyncValue)]) async throws -> [SyncObjectState] {
        var byClass: [String: [(text: String, key: SyncValue)]] = [:]
        for object in objects {
            guard let m = try await mapping(object.className),
                let text = try? PGText.encode(object.primaryKey, .scalar(m.primaryKey.type, isLink: false), property: m.primaryKey)
            else { continue }
            byClass[object.className, default: []].append((text, object.primaryKey))
        }
        var mappings: [(ClassMapping, [(text: String, key: SyncValue)])] = []
        for (name, keys) in byClass.sorted(by: { $0.key < $1.key }) {
            if let m = try await mapping(name) { mappings.append((m, keys)) }
        }
        return try await transaction { c in
            var states: [SyncObjectState] = []
            for (m, keys) in mappings {
                let (present, batch) = try await self.rows(of: m, keys: keys.map(\.text), on: c)
                states += batch.states
                for key in keys where !present.contains(key.text) {
                    states.append(SyncObjectState(className: m.schema.name, primaryKey: key.key, values: nil))
                }
            }
            return states
        }
    }

    /// Current rows of a class (all, or those with these primary keys' text), as a batch of
    /// every stored property, with the primary keys' text of the rows found (when `keys` are
    /// given).
    ///
    /// Scalars of fixed binary form (integers, booleans, floating point, text, UUIDs, and links
    /// of such keys) are read in PostgreSQL's binary format, dates as `float8` seconds since 2001
    /// (see ``selection(_:_:)``); the others (decimals, arrays, JSON) as text.
    func rows(of m: ClassMapping, keys: [String]?, on c: PostgresConnection) async throws -> (found: Set<String>, batch: SyncObjectBatch) {
        let pkCol = quoted(m.primaryKey.name)
        let select = m.columns.map { Self.selection(quoted($0.property.name), $0.kind) }
        var sql = "SELECT \(pkCol)::text, \(select.joined(separator: ", ")) FROM \(quoted(m.schema.name))"
        var binds = PostgresBindings()
        if let keys {
            // Compared in the key's own type, so that the primary key's index serves it; in key
            // order. A whole table is read in the order PostgreSQL finds it fastest.
            let pkType = ColumnKind.scalar(m.primaryKey.type, isLink: false).sqlType
            sql += " WHERE \(pkCol) = ANY($1::text[]::\(pkType)[])"
            // Qualified: the key's own column is also selected under its name.
            sql += " ORDER BY \(quoted(m.schema.name)).\(pkCol)"
            binds.append(keys)
        }
        let result = try await c.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        var batch = SyncObjectBatch(className: m.schema.name, propertyNames: m.columns.map(\.property.name), rows: [])
        var found = Set<String>()
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
                    values.append(try Self.value(of: cells[i + 1], col.kind, property: col.property))
                }
                let pk = try PGText.scalarValue(pkText, m.primaryKey.type)
                if keys != nil { found.insert(pkText) }
                batch.rows.append(SyncObjectBatch.Row(primaryKey: pk, values: values))
            } catch {
                logger.error(
                    "A row cannot be read as its class's values; it is not sent to clients",
                    metadata: ["class": "\(m.schema.name)", "primaryKey": "\(pkText)", "error": "\(error)"])
            }
        }
        return (found, batch)
    }

    /// Whether a column of `kind` is read in PostgreSQL's binary format (see ``rows(of:keys:on:)``).
    static func readsBinary(_ kind: ColumnKind) -> Bool {
        guard case .scalar(let type, _) = kind else { return false }
        switch type {
        case .int, .bool, .float, .double, .string, .uuid, .date: return true
        default: return false
        }
    }

    /// What the `SELECT` of ``rows(of:keys:on:)`` reads of a column.
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
