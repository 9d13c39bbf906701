import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol
import PostgresNIO

/// Operations as PostgreSQL statements: their values as parameters (`EncodedOperation`), one
/// statement per operation, and the multi-row insert of a run of creates (the slow twin of
/// ``InsertColumns``).
extension SyncStore {
    /// An operation's primary key and values as statement parameters.
    struct EncodedOperation {
        var mapping: ClassMapping
        /// The primary key as text (what the feed and the duplicate check compare).
        var pkText: String
        var pk: PGCell
        /// Properties written, in the class's column order.
        var sets: [(name: String, cell: PGCell, kind: ColumnKind)]
        /// List appends: name, text, column kind.
        var appends: [(String, String, ColumnKind)]

        /// Whether `other` writes the same class's same properties with cells of the same
        /// types: rows of one multi-row insert.
        func sharesStatement(with other: EncodedOperation) -> Bool {
            guard mapping.schema.name == other.mapping.schema.name, pk.type == other.pk.type, sets.count == other.sets.count else { return false }
            for (a, b) in zip(sets, other.sets) where a.name != b.name || a.cell.type != b.cell.type { return false }
            return true
        }
    }

    enum Encoding {
        case encoded(EncodedOperation)
        case refused(String)
    }

    /// Encodes an operation's values for PostgreSQL, or says why it is refused.
    func encode(_ op: SyncOperation, previous: ClassMapping? = nil) async throws -> Encoding {
        var m: ClassMapping
        if let previous, previous.schema.name == op.className {
            m = previous
        } else {
            guard let found = try await mapping(op.className) else { return .refused("Class '\(op.className)' is not synced") }
            m = found
        }
        // A property this instance has not seen may have been added through another instance
        // since it cached the class: read the mappings again before refusing it.
        var holdsEvery = m.holdsEvery(op)
        if !holdsEvery {
            try await reloadMappings()
            if let fresh = mappings.withLock({ $0[op.className] }) { m = fresh }
            holdsEvery = m.holdsEvery(op)
        }
        let pkText: String
        do {
            guard let t = try PGText.encode(op.primaryKey, .scalar(m.primaryKey.type, isLink: false), property: m.primaryKey) else {
                return .refused("The primary key is nil")
            }
            pkText = t
        } catch let e as PGText.Mismatch { return .refused("Primary key: \(e.message)") }
        let pk: PGCell
        do {
            pk = try PGCell.of(op.primaryKey, .scalar(m.primaryKey.type, isLink: false), property: m.primaryKey)
        } catch let e as PGText.Mismatch { return .refused("Primary key: \(e.message)") }
        if !holdsEvery, let unknown = op.values.keys.first(where: { m[$0] == nil }) {
            return .refused("Class '\(op.className)' has no property '\(unknown)'")
        }
        // In the class's column order (the same for every operation that writes the same
        // properties, so that they share a statement).
        var sets: [(name: String, cell: PGCell, kind: ColumnKind)] = []
        sets.reserveCapacity(op.values.count)
        for col in m.columns where col.property.name != m.primaryKey.name {
            guard let value = op.values[col.property.name] else { continue }
            do { sets.append((col.property.name, try PGCell.of(value, col.kind, property: col.property), col.kind)) } catch let e as PGText.Mismatch {
                return .refused("\(op.className).\(e.message)")
            }
        }
        var appends: [(String, String, ColumnKind)] = []
        for (name, items) in op.listAppends.sorted(by: { $0.key < $1.key }) {
            guard let col = m[name] else { return .refused("Class '\(op.className)' has no property '\(name)'") }
            guard case .array = col.kind else { return .refused("'\(op.className).\(name)' is not a list of values or links") }
            do {
                guard let text = try PGText.encode(.list(items), col.kind, property: col.property) else { continue }
                appends.append((name, text, col.kind))
            } catch let e as PGText.Mismatch { return .refused("\(op.className).\(e.message)") }
        }
        return .encoded(EncodedOperation(mapping: m, pkText: pkText, pk: pk, sets: sets, appends: appends))
    }

    /// The statements of an encoded operation.
    func statements(_ op: SyncOperation, _ e: EncodedOperation) -> [PostgresQuery] {
        let (m, pkText, sets, appends) = (e.mapping, e.pkText, e.sets, e.appends)
        let table = quoted(m.schema.name)
        let pkCol = quoted(m.primaryKey.name)
        let pkType = ColumnKind.scalar(m.primaryKey.type, isLink: false).sqlType
        var statements: [PostgresQuery] = []
        switch op.kind {
        case .delete:
            var b = PostgresBindings()
            b.append(pkText)
            statements.append(PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE \(pkCol) = $1::\(pkType)", binds: b))
        case .create:
            var b = PostgresBindings()
            b.append(pkText)
            var cols = [pkCol]
            var values = ["$1::\(pkType)"]
            for (i, (name, cell, kind)) in sets.enumerated() {
                b.append(cell)
                cols.append(quoted(name))
                values.append(PGCell.sql("$\(i + 2)", kind))
            }
            let conflict =
                sets.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + sets.map { "\(quoted($0.name)) = EXCLUDED.\(quoted($0.name))" }.joined(separator: ", ")
            statements.append(
                PostgresQuery(
                    unsafeSQL: "INSERT INTO \(table) (\(cols.joined(separator: ", "))) VALUES (\(values.joined(separator: ", "))) ON CONFLICT (\(pkCol)) \(conflict)",
                    binds: b))
        case .update:
            if !sets.isEmpty {
                var b = PostgresBindings()
                b.append(pkText)
                var assignments: [String] = []
                for (i, (name, cell, kind)) in sets.enumerated() {
                    b.append(cell)
                    assignments.append("\(quoted(name)) = \(PGCell.sql("$\(i + 2)", kind))")
                }
                statements.append(
                    PostgresQuery(
                        unsafeSQL: "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \(pkCol) = $1::\(pkType)", binds: b))
            }
        }
        if op.kind != .delete {
            for (name, text, kind) in appends {
                var b = PostgresBindings()
                b.append(pkText)
                b.append(text)
                let col = quoted(name)
                statements.append(
                    PostgresQuery(
                        unsafeSQL: "UPDATE \(table) SET \(col) = coalesce(\(col), '{}') || $2::\(kind.sqlType) WHERE \(pkCol) = $1::\(pkType)",
                        binds: b))
            }
        }
        return statements
    }

    /// One `INSERT … SELECT … FROM UNNEST(…) ON CONFLICT` for creates of one class that write
    /// the same properties with cells of the same types, with distinct primary keys: what their
    /// statements do one by one. A parameter per column (an array of the rows' cells), so the
    /// statement's text and plan do not grow with the rows. The slow twin of ``InsertColumns``.
    func insertStatement(_ rows: [EncodedOperation]) -> PostgresQuery {
        let first = rows[0]
        let m = first.mapping
        let kinds = [ColumnKind.scalar(m.primaryKey.type, isLink: false)] + first.sets.map(\.kind)
        let types = [first.pk.type] + first.sets.map(\.cell.type)
        var b = PostgresBindings()
        b.append(PGCellArray(elementType: first.pk.type, elements: rows.map(\.pk.bytes)), context: .default)
        for i in first.sets.indices {
            b.append(PGCellArray(elementType: first.sets[i].cell.type, elements: rows.map { $0.sets[i].cell.bytes }), context: .default)
        }
        let sql = Self.insertSQL(
            table: quoted(m.schema.name), pkColumn: quoted(m.primaryKey.name), columns: first.sets.map { quoted($0.name) }, types: types,
            kinds: kinds)
        return PostgresQuery(unsafeSQL: sql, binds: b)
    }

    /// The text of a multi-row insert into `table` of the key column and `columns` (quoted),
    /// from a parameter per column of cells of `types` for columns of `kinds` (the key's first).
    static func insertSQL(table: String, pkColumn: String, columns: [String], types: [PostgresDataType], kinds: [ColumnKind]) -> String {
        let parameters = types.indices.map { "$\($0 + 1)::\(PGCell.arraySQL(types[$0]))" }.joined(separator: ", ")
        let names = types.indices.map { "c\($0)" }.joined(separator: ", ")
        let selections = kinds.indices.map { PGCell.sql("u.c\($0)", kinds[$0]) }.joined(separator: ", ")
        let conflict = columns.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + columns.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
        return
            "INSERT INTO \(table) (\(([pkColumn] + columns).joined(separator: ", "))) SELECT \(selections) FROM UNNEST(\(parameters)) AS u(\(names)) ON CONFLICT (\(pkColumn)) \(conflict)"
    }
}
