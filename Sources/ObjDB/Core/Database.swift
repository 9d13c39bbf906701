import Foundation

/// An open ObjDB database: the entry point for reading, writing and querying objects.
///
/// ```swift
/// let db = try Database(configuration: Configuration(fileURL: URL(fileURLWithPath: "app.objdb")))
/// try db.write {
///     let ann = Person(); ann.id = 1; ann.name = "Ann"
///     try db.add(ann)
/// }
/// let people = db.objects(Person.self)   // live
/// ```
///
/// A `Database` reads one consistent version of the file until ``refresh()`` or a write moves
/// it to the newest one; its objects and results always show that version, including the
/// uncommitted changes of its own write transaction. It is not `Sendable`: use each instance in
/// the isolation domain (thread, serial queue or actor) that opened it, and open another
/// instance elsewhere. Instances on the same file share one LMDB environment.
public final class Database {
    /// The configuration the database was opened with.
    public let configuration: Configuration
    /// Keeps the environment open.
    let lease: EnvironmentLease
    /// The canonical path of the file.
    let path: String
    /// The `meta` table.
    let metaTable: Table
    /// The file-format version found at open, raised when this instance upgrades the file.
    var formatVersion: UInt32
    /// The classes of the file.
    @exclusivity(unchecked) var catalog: Catalog {
        didSet { caches.forgetDerived() }
    }
    /// What this instance derived from the catalog: class lookups, incoming links, the class
    /// informations it created.
    @exclusivity(unchecked) var caches: CatalogCaches
    /// The read snapshot, when not in a write transaction; begun lazily.
    @exclusivity(unchecked) var snapshot: ReadTransaction?
    /// The write transaction in progress.
    @exclusivity(unchecked) var writeContext: WriteContext?
    #if OBJDB_INTERNAL_CHECKS
    /// Tests only: the number of query scans this instance split among threads (see
    /// ``ParallelScan``), which tests read to know which way a query ran.
    @exclusivity(unchecked) var splitScanCount = 0
    #endif

    /// Notes a query scan split among threads (counted for tests in builds with internal checks).
    @inline(__always)
    func noteSplitScan() {
        #if OBJDB_INTERNAL_CHECKS
        splitScanCount += 1
        #endif
    }
    /// Changes whenever the visible data may have changed: a new snapshot, the start or end of a
    /// write transaction, or any write inside one. Objects cache row locations per generation.
    var generation: UInt64 {
        get { generationCell.pointee }
        set { generationCell.pointee = newValue }
    }
    /// Its write transactions: the current one's number, those that rolled back.
    @exclusivity(unchecked) var writes = WriteHistory()
    /// Changes whenever a managed collection is edited in the write transaction's buffer (which
    /// writes no row, so ``generation`` does not move): caches of query results compare both.
    @exclusivity(unchecked) var collectionEpoch: UInt64 = 0

    /// What cached query results must match to be current: the generation and the collection epoch.
    var resultsStamp: (UInt64, UInt64) { (generation, collectionEpoch) }

    /// Where ``generation`` lives: a heap cell, so objects can compare against it through a plain
    /// pointer, without touching (or retaining) the database on every property read.
    let generationCell: UnsafeMutablePointer<UInt64>
    /// Owns ``generationCell``, so the cell is freed even when `init` throws (a failed open runs
    /// no `deinit`).
    private let generationOwner: GenerationCell
    /// Scratch buffers for primary-key lookups, reused to avoid an allocation per lookup.
    @exclusivity(unchecked) var lookups = LookupScratch()
    /// Where the query evaluators of this instance note the first read that failed while they
    /// fetched rows or followed links (``QueryEvaluator/failure``); whoever runs an evaluation
    /// takes it and reports it. One per instance, not one per evaluation: the instance is used in
    /// one isolation domain, and an allocation per query cost as much as the rest of its plan.
    let queryReadFailures = FailureNote()

    /// The environment of the file.
    var environment: Environment { lease.environment }

    /// Its observers, and where and how notifications are delivered.
    @exclusivity(unchecked) var notifications = NotificationState()
    /// The change log's table, once it exists.
    @exclusivity(unchecked) var changesTableHandle: Table?
    /// What ``Configuration/shouldCompactOnLaunch`` led to when this instance opened the file;
    /// `nil` without it.
    public internal(set) var compactionOnLaunch: CompactionOnLaunch?
    /// The version a frozen instance reads, for ever; `nil` for a live instance.
    let frozenVersion: FrozenVersion?
    /// The frozen view and pinned version this live instance shares while anything frozen uses them.
    @exclusivity(unchecked) var frozen = FrozenViews()
    /// Whether ``LiveInstances`` lists this instance (its `deinit` then removes it).
    @exclusivity(unchecked) var isRegisteredLive = false

    /// An instance on a file another instance opened: a frozen view of `frozen`'s version, or
    /// (`frozen` `nil`) a live instance that begins at the newest version.
    init(
        configuration: Configuration, path: String, lease: EnvironmentLease, meta: Table,
        formatVersion: UInt32, catalog: Catalog, frozen: FrozenVersion?
    ) {
        generationOwner = GenerationCell()
        generationCell = generationOwner.pointer
        self.configuration = configuration
        self.path = path
        self.lease = lease
        caches = CatalogCaches(keeping: Array(catalog.byName.values))
        metaTable = meta
        self.formatVersion = formatVersion
        self.catalog = catalog
        frozenVersion = frozen
        snapshot = frozen?.transaction
    }

    /// Makes the isolation domain `isolation` the owner of this live instance: where other
    /// instances' commits are delivered, and where ``thaw()`` finds it.
    func belong(to isolation: (any Actor)?) {
        if let isolation, isolation !== MainActor.shared {
            notifications.actor = isolation
        } else {
            notifications.queue = isolation != nil || MainQueue.isCurrent ? .main : nil
        }
        if let context = IsolationContext(isolation) { LiveInstances.shared.register(self, context: context) }
    }

    deinit {
        // Before the memory goes: the registry does not retain its instances.
        if isRegisteredLive { LiveInstances.shared.remove(Unmanaged.passUnretained(self).toOpaque(), path: path) }
        // End transactions before the lease closes the environment.
        writeContext = nil
        snapshot = nil
    }

    /// The schema stored in the file: every class, including those this process has no model for.
    public var schema: Schema { catalog.stored.schema }

    // MARK: Versions

    /// Moves the database to the newest committed version, so its objects and results show
    /// changes committed by other instances and processes.
    ///
    /// Observers of this instance are told what changed before it returns (collections that
    /// have not had their `.initial` call get it now).
    ///
    /// - Returns: whether there was a newer version.
    /// Does nothing inside a write transaction, which always sees the newest version, inside a
    /// notification callback, and on a frozen database, which reads its version for ever.
    @discardableResult
    public func refresh() -> Bool {
        guard frozenVersion == nil, writeContext == nil, !(notifications.observers?.isDelivering ?? false) else { return false }
        let latest = environment.lastCommittedTransactionID()
        if let snapshot, snapshot.id == latest {
            notifications.observers?.catchUpIfBehind()
            return false
        }
        snapshot = nil
        generation &+= 1
        if let txn = readableTxn() { reloadCatalogIfChanged(txn) }
        notifications.observers?.didRefresh()
        return true
    }

    /// Whether a write transaction is in progress.
    public var isInWriteTransaction: Bool { writeContext != nil }

    /// The transaction reads go through: the write transaction if one is open, else the read
    /// snapshot, begun if needed. `nil` only if a snapshot cannot be begun (every reader slot
    /// taken), which is reported through the read-failure channel.
    func readableTxn() -> Txn? {
        if let context = writeContext, let txn = context.transaction.txn { return txn }
        if let snapshot { return snapshot.txn }
        do {
            try checkNotEmptyFrozen()
            let snapshot = try ReadTransaction(lease)
            self.snapshot = snapshot
            return snapshot.txn
        } catch {
            reportReadFailure(error, while: "Beginning a read snapshot")
            return nil
        }
    }

    /// Like ``readableTxn()``, but throws the reason when no transaction can be begun.
    func requireReadableTxn() throws -> Txn {
        if let context = writeContext, let txn = context.transaction.txn { return txn }
        if let snapshot { return snapshot.txn }
        try checkNotEmptyFrozen()
        let snapshot = try ReadTransaction(lease)
        self.snapshot = snapshot
        return snapshot.txn
    }
}

extension Database {
    /// Throws for a frozen instance without a transaction: it must not begin one of another version.
    func checkNotEmptyFrozen() throws {
        guard frozenVersion == nil else {
            throw ObjDBError(
                .readersFull,
                "The frozen version has no read transaction: none could begin when it was frozen (every reader slot was taken)",
                path: path)
        }
    }
}

/// A heap word holding a database's generation counter, freed with its owner.
final class GenerationCell {
    /// The word; starts at 1.
    let pointer: UnsafeMutablePointer<UInt64>

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: 1)
    }

    deinit { pointer.deallocate() }
}
