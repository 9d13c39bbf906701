import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol

/// One reader of the change feed per service instance: at each notification (and poll), the
/// changes since the connected clients' checkpoints are read once, in one snapshot, and each
/// client's part is chosen in memory by its view (``PortablePredicate/matches(_:variables:)``),
/// instead of a read per client per commit.
///
/// A client takes part from its first checkpoint on (the hello's own read). Clients whose
/// checkpoints are equal (after a round, all of them) share the queries; a client's part holds
/// the changed objects its view selects, and, as removed, those it no longer selects that one
/// of their old rows since its checkpoint matched (so no client learns another's keys). A
/// client with nothing new moves to the new checkpoint without a message. A slow client keeps
/// one part at most: the next round recomputes it from its checkpoint.
actor FeedFanout {
    let store: SyncStore
    let hub: SessionHub
    let logger: Logger
    private var isPending = false
    private var isRunning = false

    init(store: SyncStore, hub: SessionHub, logger: Logger) {
        self.store = store
        self.hub = hub
        self.logger = logger
    }

    /// Asks for a round; rounds asked for while one runs coalesce into the next.
    func wake() {
        isPending = true
        guard !isRunning else { return }
        isRunning = true
        Task { await self.run() }
    }

    private func run() async {
        while isPending {
            isPending = false
            do {
                try await round()
            } catch {
                // The sessions read for themselves, as a fallback.
                logger.warning("Sync fan-out read failed; sessions read alone", metadata: ["error": "\(String(reflecting: error))"])
                for session in await hub.all() { session.post(.wake) }
            }
        }
        isRunning = false
    }

    /// One round: a shared read, then each member's part posted to its session.
    func round() async throws {
        let members = await hub.all().compactMap { session in session.position.withLock { $0 }.map { (session, $0) } }
        guard !members.isEmpty else { return }
        var classes = Set<String>(), oldRowsOf = Set<String>()
        for (_, p) in members {
            for name in p.view.classNames {
                classes.insert(name)
                if p.view.reads[name] != .constant(true) { oldRowsOf.insert(name) }
            }
        }
        guard !classes.isEmpty else { return }
        let read = try await store.readShared(
            since: Set(members.map(\.1.checkpoint)), classes: classes.sorted(), oldRowsOf: oldRowsOf, clients: members.map(\.1.clientID))
        var mappings: [String: ClassMapping] = [:]
        for name in classes { mappings[name] = try await store.mapping(name) }
        // Per round, not per session: each base's changed keys in order, rows and old rows by
        // property name (the names of the read, which decoded them).
        var sortedChanges: [String: [(className: String, keys: [String])]] = [:]
        for (base, changed) in read.changed {
            sortedChanges[base] = changed.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value.sorted()) }
        }
        var rowValues: [String: [String: [String: SyncValue]]] = [:]
        var oldValues: [String: [String: [String: [[String: SyncValue]]]]] = [:]
        // Sessions whose views select alike (the same subscriptions and rules, and the same
        // values of the variables those use) from the same checkpoint get the same part:
        // computed once.
        var parts: [PartKey: [SyncObjectBatch]] = [:]
        for (session, p) in members {
            if read.trimmed.contains(p.checkpoint) {
                session.post(.wake)  // its own read bootstraps it
                continue
            }
            guard let changed = sortedChanges[p.checkpoint] else { continue }
            let partKey = PartKey(base: p.checkpoint, view: p.view)
            if let batches = parts[partKey] {
                session.offer(
                    SharedPart(
                        base: p.checkpoint,
                        checkpoint: SyncStore.Checkpoint(
                            isReset: false, batches: batches, snapshot: read.snapshot, includesSequence: read.sequences[p.clientID] ?? 0)))
                continue
            }
            var batches: [SyncObjectBatch] = []
            for (className, keys) in changed {
                guard let predicate = p.view.reads[className], predicate != .constant(false), let m = mappings[className],
                    let names = read.propertyNames[className]
                else { continue }
                var batch = SyncObjectBatch(className: className, propertyNames: names, rows: [])
                func selects(_ values: [String: SyncValue]) -> Bool {
                    (try? predicate.matches({ values[$0] }, variables: p.view.variables)) ?? false
                }
                for key in keys {
                    if let row = read.rows[className]?[key], let values = row.values {
                        if predicate == .constant(true) { batch.rows.append(row); continue }
                        let named = rowValues[className]?[key] ?? Dictionary(zip(names, values), uniquingKeysWith: { first, _ in first })
                        rowValues[className, default: [:]][key] = named
                        if selects(named) { batch.rows.append(row); continue }
                    }
                    // Not selected now: removed where the client may hold it.
                    if predicate != .constant(true) {
                        let old =
                            oldValues[p.checkpoint]?[className]?[key]
                            ?? (read.oldRows[p.checkpoint]?[className]?[key] ?? []).map {
                                Dictionary(zip(names, $0), uniquingKeysWith: { first, _ in first })
                            }
                        oldValues[p.checkpoint, default: [:]][className, default: [:]][key] = old
                        guard old.contains(where: selects) else { continue }
                    }
                    guard let primaryKey = try? PGText.scalarValue(key, m.primaryKey.type) else { continue }
                    batch.rows.append(SyncObjectBatch.Row(primaryKey: primaryKey, values: nil))
                }
                if !batch.rows.isEmpty { batches.append(batch) }
            }
            parts[partKey] = batches
            let checkpoint = SyncStore.Checkpoint(
                isReset: false, batches: batches, snapshot: read.snapshot, includesSequence: read.sequences[p.clientID] ?? 0)
            session.offer(SharedPart(base: p.checkpoint, checkpoint: checkpoint))
        }
    }

    /// What makes two sessions' parts of a round equal: the checkpoint they follow, what their
    /// views select by class, and the values of the variables those use — as bytes, since Swift
    /// strings that differ only in Unicode normalization compare equal, and the selection
    /// compares bytes.
    struct PartKey: Hashable {
        let bytes: [UInt8]

        init(base: String, view: ClientView) {
            var bytes: [UInt8] = []
            SyncValueBytes.append(base, to: &bytes)
            let used = view.reads.values.reduce(into: Set<String>()) { $0.formUnion($1.variableNames) }
            for (className, predicate) in view.reads.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }) {
                let format = predicate.predicateFormat
                SyncValueBytes.append(className, to: &bytes)
                SyncValueBytes.append(format.text, to: &bytes)
                SyncValueBytes.append(.list(format.arguments), to: &bytes)
            }
            for name in used.sorted() {
                SyncValueBytes.append(name, to: &bytes)
                SyncValueBytes.append(view.variables[name] ?? .null, to: &bytes)
            }
            self.bytes = bytes
        }
    }
}

/// A client's part of a fan-out round: the checkpoint that follows `base`.
struct SharedPart: Sendable {
    /// The checkpoint the part is the delta from.
    let base: String
    /// The part.
    let checkpoint: SyncStore.Checkpoint
}

/// Where a session stands for the fan-out: its checkpoint (one the service read), its view and
/// client id.
struct FanoutPosition: Sendable {
    let checkpoint: String
    let view: ClientView
    let clientID: UUID
}
