import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol

/// One reader of the change feed per service instance: at each notification (and poll), the
/// changes since the connected clients' checkpoints are read once, in one snapshot, and each
/// client's part is chosen in memory (``FanoutRound``), instead of a read per client per
/// commit. Views alike but for their values (`owner == $user` for each user) are selected
/// together, by looking the changed rows' values up (``FanoutSelector``).
///
/// A client takes part from its first checkpoint on (the hello's own read). Clients whose
/// checkpoints are equal (after a round, all of them) share the queries; a client's part holds
/// the changed objects its view selects, and, as removed, those it no longer selects that one
/// of their old rows since its checkpoint matched (so no client learns another's keys). A
/// client with nothing new moves to the new checkpoint without a message. A slow client holds
/// one part at most, and no round reads for it until it has sent that part.
actor FeedFanout {
    let store: SyncStore
    let hub: SessionHub
    let logger: Logger
    private var isPending = false
    private var isRunning = false
    /// The most rows (current and old) one round read since ``resetLargestRead()``: what a
    /// round holds in memory grows with it.
    private(set) var largestRead = 0

    /// Starts counting ``largestRead`` again.
    func resetLargestRead() { largestRead = 0 }

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
        // Sessions sending a part, or with one to take, stay out: their checkpoints are ones
        // they are leaving, and a stalled one's would make the read go back further each round.
        let members = await hub.all().compactMap { session in
            // Whether it joins first: a session that finishes sending in between then stands at
            // its new checkpoint.
            session.joinsRound() ? session.position.withLock { $0 }.map { (session, $0) } : nil
        }
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
        let oldCount = read.oldRows.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.count } } }
        largestRead = max(largestRead, read.rows.values.reduce(0) { $0 + $1.count } + oldCount)
        var mappings: [String: ClassMapping] = [:]
        for name in classes { mappings[name] = try await store.mapping(name) }
        // Sessions whose views select alike (the same subscriptions and rules, and the same
        // values of the variables those use) from the same checkpoint get the same part:
        // computed once.
        var distinct: [PartKey: Int] = [:]
        var views: [FanoutRound.Member] = []
        var offers: [(session: Session, position: FanoutPosition, view: Int)] = []
        for (session, p) in members {
            if read.trimmed.contains(p.checkpoint) {
                session.post(.wake)  // its own read bootstraps it
                continue
            }
            guard read.changed[p.checkpoint] != nil else { continue }
            let key = PartKey(base: p.checkpoint, view: p.view)
            let index = distinct[key] ?? views.count
            if index == views.count {
                distinct[key] = index
                views.append(FanoutRound.Member(base: p.checkpoint, view: p.view))
            }
            offers.append((session, p, index))
        }
        var round = FanoutRound(read: read, mappings: mappings)
        let parts = FastPaths.enabled.contains(.fanoutLookups) ? round.parts(views) : views.map { round.referencePart($0) }
        #if OBJDB_INTERNAL_CHECKS
            if internalChecksEnabled { round.checkParts(parts, of: views) }
        #endif
        for (session, p, index) in offers {
            let checkpoint = SyncStore.Checkpoint(
                isReset: false, batches: parts[index], snapshot: read.snapshot, includesSequence: read.sequences[p.clientID] ?? 0)
            session.offer(SharedPart(base: p.checkpoint, checkpoint: checkpoint))
        }
    }

    /// What makes two sessions' parts of a round equal: the checkpoint they follow, and what
    /// their views select (``ClientView/selectionBytes``).
    struct PartKey: Hashable {
        /// The checkpoint (ASCII: a PostgreSQL snapshot).
        let base: String
        /// The view's selection, as bytes.
        let selection: [UInt8]

        init(base: String, view: ClientView) {
            self.base = base
            self.selection = view.selectionBytes
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
