import Foundation
import ObjDB
import ObjDBSyncProtocol
import PostgresNIO

/// Subscriptions and rules checked against the classes' columns.
extension SyncStore {
    /// Translates each of a view's download predicates for its class's columns; returns the
    /// view with the classes whose condition holds for no object marked so
    /// (``ClientView/resolved(_:)``).
    /// - Throws: ``ObjDBError/Code/invalidQuery`` naming a property the class lacks or a
    ///   comparison its type does not support.
    func check(_ view: ClientView) async throws -> ClientView {
        let lowercase = self.lowercase.withLock { $0 }
        var never = Set<String>()
        for name in view.classNames {
            guard let m = try await mapping(name) else { continue }
            let condition = try view.readCondition(m, alias: quoted(name), lowercase: lowercase, firstParameter: 1)
            if condition.sql == SQLCondition.never.sql { never.insert(name) }
        }
        return view.resolved(never)
    }

    /// Checks rules against the synced classes: each class they name must be one (unless the
    /// service creates classes from clients' schemas, when it is checked once a client creates
    /// it), and each predicate must fit its class's properties.
    /// - Throws: ``ObjDBError/Code/unknownClass`` or ``ObjDBError/Code/invalidQuery``, naming
    ///   the class.
    func check(_ rules: SyncRules) async throws {
        guard let classes = rules.classes else { return }
        try await reloadMappings()
        let lowercase = self.lowercase.withLock { $0 }
        for (name, classRules) in classes.sorted(by: { $0.key < $1.key }) {
            guard let m = try await mapping(name) else {
                if createsTables { continue }
                throw ObjDBError(
                    .unknownClass, "The sync rules name class '\(name)', which PostgreSQL holds no synced table of (check its spelling)",
                    className: name)
            }
            for (kind, predicate) in [("read", classRules.readPredicate), ("write", classRules.writePredicate)] {
                // `$user` is a string; claims are checked once a token brings them.
                var translator = PredicateSQL(mapping: m, alias: quoted(name), variables: ["user": .string("")], lowercase: lowercase)
                translator.variablesUnknown = true
                do {
                    _ = try translator.condition(predicate, firstParameter: 1)
                } catch let error as ObjDBError {
                    throw ObjDBError(.invalidQuery, "The \(kind) rule of class '\(name)': \(error.message)", className: name)
                }
            }
        }
    }

    /// The objects of a client's rejected writes whose states it may not have applied: those
    /// rejected after the checkpoint it reports. The others are forgotten: that checkpoint was
    /// read after they were rejected, and a client is sent the states before any checkpoint
    /// read after a rejection (the answer to the upload, or this, first at the hello).
    func pendingRejections(clientID: UUID, checkpoint: String) async throws -> [(className: String, primaryKey: SyncValue)] {
        try await transaction { c in
            try await c.query("SAVEPOINT objdb_checkpoint", logger: logger)
            do {
                try await c.query(
                    "DELETE FROM objdb_rejections WHERE client_id = \(clientID) AND pg_visible_in_snapshot(xid, \(checkpoint)::pg_snapshot)",
                    logger: logger)
            } catch is PSQLError {
                // A checkpoint that does not read as a snapshot (the session bootstraps).
                try await c.query("ROLLBACK TO SAVEPOINT objdb_checkpoint", logger: logger)
            }
            var pending: [(className: String, primaryKey: SyncValue)] = []
            for try await (className, key) in try await c.query(
                "SELECT class, pk FROM objdb_rejections WHERE client_id = \(clientID) ORDER BY xid", logger: logger
            ).decode((String, String).self) {
                guard let value = try? SyncValueJSON.decode(SyncJSON.parse(key)) else { continue }
                pending.append((className, value))
            }
            return pending
        }
    }
}
