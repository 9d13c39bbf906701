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
        var changes: [SyncObjectState]
        var snapshot: String
        var includesSequence: UInt64
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
            var changes: [SyncObjectState] = []
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
                    let found = try await self.rows(of: m, keys: pks, on: c)
                    var seen = Set<String>()
                    for (pkText, state) in found {
                        seen.insert(pkText)
                        changes.append(state)
                    }
                    for pk in pks.sorted() where !seen.contains(pk) {
                        changes.append(
                            SyncObjectState(className: m.schema.name, primaryKey: try PGText.scalarValue(pk, m.primaryKey.type), values: nil))
                    }
                }
            } else {
                for m in mappings { changes += try await self.rows(of: m, keys: nil, on: c).map(\.1) }
            }
            var sequence: UInt64 = 0
            for try await s in try await c.query("SELECT last_sequence FROM objdb_clients WHERE client_id = \(clientID)", logger: logger)
                .decode(Int64.self)
            {
                sequence = UInt64(max(0, s))
            }
            return Checkpoint(isReset: old == nil, changes: changes, snapshot: snapshot, includesSequence: sequence)
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
                let found = try await self.rows(of: m, keys: keys.map(\.text), on: c)
                let present = Set(found.map(\.0))
                states += found.map(\.1)
                for key in keys where !present.contains(key.text) {
                    states.append(SyncObjectState(className: m.schema.name, primaryKey: key.key, values: nil))
                }
            }
            return states
        }
    }

    /// Current rows of a class (all, or those with these primary keys' text).
    func rows(of m: ClassMapping, keys: [String]?, on c: PostgresConnection) async throws -> [(String, SyncObjectState)] {
        let pkCol = quoted(m.primaryKey.name)
        let select = m.columns.map { "\(quoted($0.property.name))::text" }.joined(separator: ", ")
        var sql = "SELECT \(pkCol)::text, \(select) FROM \(quoted(m.schema.name))"
        var binds = PostgresBindings()
        if let keys {
            // Compared in the key's own type, so that the primary key's index serves it.
            let pkType = ColumnKind.scalar(m.primaryKey.type, isLink: false).sqlType
            sql += " WHERE \(pkCol) = ANY($1::text[]::\(pkType)[])"
            binds.append(keys)
        }
        sql += " ORDER BY \(pkCol)"
        let rows = try await c.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        var out: [(String, SyncObjectState)] = []
        for try await row in rows {
            let cells = row.makeRandomAccess()
            guard let pkText = try cells[0].decode(String?.self) else { continue }
            // A row a SQL client wrote that does not read as the class's values (a number past
            // Decimal's range, JSON that is not the tagged form) is left out and logged: sent as
            // it is, it would stop every client's downloads of the class, again at each retry.
            do {
                var values: [String: SyncValue] = [:]
                for (i, col) in m.columns.enumerated() {
                    values[col.property.name] = try PGText.decode(try cells[i + 1].decode(String?.self), col.kind, property: col.property)
                }
                let pk = try PGText.scalarValue(pkText, m.primaryKey.type)
                out.append((pkText, SyncObjectState(className: m.schema.name, primaryKey: pk, values: values)))
            } catch {
                logger.error(
                    "A row cannot be read as its class's values; it is not sent to clients",
                    metadata: ["class": "\(m.schema.name)", "primaryKey": "\(pkText)", "error": "\(error)"])
            }
        }
        return out
    }
}
