import Foundation
import Logging
import ObjDB
import ObjDBSyncProtocol

/// Keeps one ObjDB file in sync with PostgreSQL through the `objdb-sync` service: local commits
/// are uploaded, the service's changes applied as commits of their own. Offline first: the app
/// writes to its file as always and never waits for the network.
///
/// ```swift
/// var config = Configuration(fileURL: url)
/// config.objectTypes = [Todo.self]
/// let sync = try SyncClient(configuration: config, sync: SyncConfiguration(
///     serverURL: URL(string: "ws://127.0.0.1:7800/sync")!, token: { try await auth.currentToken() }))
/// try await sync.subscriptions.update { $0.append(QuerySubscription<Todo>()) }
/// await sync.start()
/// try await sync.waitForUpload()
/// ```
///
/// The client opens its own instance of the file; the app keeps its own, and sees downloads as
/// commits of another instance (notifications, `refresh()`). Every commit on a synced class, by
/// any instance or process — the `objdb` command too — enters the file's outbox in the same
/// transaction, and leaves it once the service has it. One `SyncClient` per file.
///
/// The client runs on a thread of its own, so the file's writer lock never blocks the
/// cooperative pool. Once started, it runs until ``stop()``: call it before letting the client
/// go (a started client is kept alive by its connection loop).
public actor SyncClient {
    /// The file's configuration.
    public nonisolated let configuration: Configuration
    /// Where and as whom the file syncs.
    public nonisolated let sync: SyncConfiguration
    /// The classes kept in sync.
    public nonisolated let syncedClasses: [String]

    private nonisolated let executor: SyncThreadExecutor
    private nonisolated let board = SyncStatusBoard()
    private nonisolated let fileLock: SyncFileLock
    let logger: Logger

    /// The client's instance of the file, opened on its thread at first use.
    var database: Database?
    /// The connection loop, while started.
    var runTask: Task<Void, Never>?
    /// The current connection, once welcomed.
    var connection: SyncConnection?
    /// The highest sequence sent on the current connection and not yet acknowledged.
    var sentThrough: UInt64 = 0
    /// Whether ``uploadPending()`` is sending, and whether it was asked to look again meanwhile.
    var upload = (isSending: false, isRequested: false)
    /// Parts of a download not yet final.
    var downloadParts: [ServerMessage.Download] = []
    /// What the current connection's hello subscribed to: its downloads are applied for it, and
    /// ignored once the subscriptions changed (the next connection bootstraps).
    var connectionSubscriptions = SyncSubscriptionSet([])
    /// Callers of ``waitForUpload()`` and the sequence each waits for.
    var uploadWaiters: [(UInt64, CheckedContinuation<Void, any Error>)] = []
    /// Callers of ``waitForDownload()`` and the download request each waits for.
    var downloadWaiters: [(UInt64, CheckedContinuation<Void, any Error>)] = []
    /// Download requests sent (each answered by one final download), and answered.
    var downloadRequests: (sent: UInt64, answered: UInt64) = (0, 0)
    /// The database observer that wakes the uploader at local commits.
    var commitToken: NotificationToken?

    /// The executor of the client's thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens the file named by `configuration` for sync (creating it and its classes if needed)
    /// and makes it a synced file: from now on every commit on its synced classes is recorded
    /// for upload, whoever makes it.
    ///
    /// - Throws: ``ObjDBError/Code/fileInUse`` if another `SyncClient` holds the file;
    ///   ``ObjDBError/Code/invalidSchema`` for a class (not in ``SyncConfiguration/localClasses``)
    ///   without a `String`, `UUID` or `ObjectId` primary key; the errors of opening a `Database`.
    public init(configuration: Configuration, sync: SyncConfiguration) throws {
        guard let url = configuration.fileURL else {
            throw ObjDBError(.invalidValue, "SyncClient needs a configuration with a fileURL (an in-memory database cannot be synced)")
        }
        self.configuration = configuration
        self.sync = sync
        fileLock = try SyncFileLock(fileURL: url)
        let db = try Database(configuration: configuration, isolation: nil)
        let classes = db.schema.objectSchema.filter { !$0.isEmbedded && !sync.localClasses.contains($0.className) }.map(\.className)
        try db.enableSync(classNames: classes)
        // A copied or restored file must not upload under the original's client id.
        try db.adoptSyncFileIdentity(try SyncFileLock.identity(of: url))
        syncedClasses = classes
        board.setSubscriptions(
            SyncSubscriptionSet(
                try db.syncSubscriptions().map { SyncSubscription(name: $0.name, className: $0.className, predicate: $0.predicate, arguments: $0.arguments) }
            ))
        executor = SyncThreadExecutor(name: "ObjDBSync \(url.lastPathComponent)")
        var logger = Logger(label: "objdb.sync")
        logger[metadataKey: "file"] = "\(url.lastPathComponent)"
        self.logger = logger
    }

    deinit {
        executor.shutdown()
        board.finish()
    }

    /// The client's state, readable from any code.
    public nonisolated var state: SyncState { board.currentState }

    /// The states the client goes through, starting with the current one; a slow reader gets
    /// the newest.
    public nonisolated var states: AsyncStream<SyncState> { board.states() }

    /// What the client reports: rejected writes and errors. A reader that falls more than 256
    /// events behind loses the oldest.
    public nonisolated var events: AsyncStream<SyncEvent> { board.events() }

    /// The subscriptions, readable from any code.
    public nonisolated var subscriptions: Subscriptions { Subscriptions(client: self) }

    /// The subscriptions of a client: read them directly, change them with ``update(_:)``.
    public struct Subscriptions: Sendable {
        let client: SyncClient

        /// Number of subscriptions.
        public var count: Int { client.board.currentSubscriptions.count }

        /// The subscription named `name`, if any.
        public func first(named name: String) -> SyncSubscription? { client.board.currentSubscriptions.first(named: name) }

        /// The subscriptions as a set.
        public var all: SyncSubscriptionSet { client.board.currentSubscriptions }

        /// Changes the subscriptions and stores them in the file. When what they select changes,
        /// a connected client reconnects and downloads what they now select: objects that no
        /// longer match any subscription leave the file, objects that now match arrive, in one
        /// commit.
        ///
        /// - Throws: ``ObjDBError/Code/invalidValue`` for a class that is not synced;
        ///   ``ObjDBError/Code/invalidQuery`` for a query sync cannot evaluate (naming what it
        ///   cannot), or one the class cannot be filtered with (an unknown property, a value of
        ///   the wrong type). Nothing is changed then.
        public func update(_ body: @Sendable (inout SyncSubscriptionSet) -> Void) async throws {
            try await client.updateSubscriptions(body)
        }
    }

    // MARK: Starting and stopping

    /// Starts syncing: connects, uploads the outbox, applies downloads; reconnects with backoff
    /// when the connection fails. Returns at once.
    public func start() {
        guard runTask == nil else { return }
        board.setState(.connecting)
        runTask = Task { await self.run() }
    }

    /// Stops syncing and closes the connection. Writes go on being recorded in the outbox.
    /// Waiters of ``waitForUpload()`` and ``waitForDownload()`` get an error.
    public func stop() async {
        let task = runTask
        runTask = nil
        task?.cancel()
        await connection?.close()
        await task?.value
        connection = nil
        commitToken?.invalidate()
        commitToken = nil
        board.setState(.stopped)
        failWaiters(Self.notStarted("The wait"))
    }

    // MARK: Waiting

    /// Returns once every commit made to the file before the call (by any instance or process)
    /// is in PostgreSQL. Waits through disconnections; throws if the client is stopped.
    public func waitForUpload() async throws {
        let db = try openDatabase()
        db.refresh()
        guard let state = try db.syncFileState() else { return }
        let target = state.nextSequence - 1
        if state.acknowledged >= target { return }
        guard runTask != nil else { throw Self.notStarted("waitForUpload()") }
        try await withCheckedThrowingContinuation { uploadWaiters.append((target, $0)) }
    }

    /// Returns once everything the service held when the call was made is applied to the file.
    /// Waits through disconnections; throws if the client is stopped.
    public func waitForDownload() async throws {
        guard runTask != nil else { throw Self.notStarted("waitForDownload()") }
        downloadRequests.sent += 1
        let request = downloadRequests.sent
        if let connection, state == .connected { try? await connection.send(.requestDownload(id: request)) }
        // The answer, or a stop, may have come while the request was being sent.
        if downloadRequests.answered >= request { return }
        guard runTask != nil else { throw Self.notStarted("waitForDownload()") }
        try await withCheckedThrowingContinuation { downloadWaiters.append((request, $0)) }
    }

    /// The error of a wait on a client that is not started, or was stopped meanwhile.
    static func notStarted(_ call: String) -> ObjDBError {
        ObjDBError(.invalidValue, "\(call) needs a started SyncClient: call start() first (stop() ends the waits)")
    }

    func failWaiters(_ error: ObjDBError) {
        let waiters = uploadWaiters.map(\.1) + downloadWaiters.map(\.1)
        uploadWaiters = []
        downloadWaiters = []
        for waiter in waiters { waiter.resume(throwing: error) }
    }

    /// The client's instance of the file, opened on its thread.
    func openDatabase() throws -> Database {
        if let database { return database }
        let db = try Database(configuration: configuration)
        database = db
        return db
    }

    func updateSubscriptions(_ body: (inout SyncSubscriptionSet) -> Void) async throws {
        var set = board.currentSubscriptions
        body(&set)
        if let refusal = set.refusals.first { throw refusal }
        for subscription in set where !syncedClasses.contains(subscription.className) {
            throw ObjDBError(
                .invalidValue, "Subscription '\(subscription.name)': '\(subscription.className)' is not a synced class of the file",
                className: subscription.className)
        }
        let db = try openDatabase()
        for subscription in set {
            guard let predicate = subscription.predicate else { continue }
            do {
                try db.checkPortablePredicate(predicate, arguments: subscription.arguments, className: subscription.className)
            } catch let error as ObjDBError {
                throw ObjDBError(.invalidQuery, "Subscription '\(subscription.name)': \(error.message)", className: subscription.className)
            }
        }
        let changed = set.selection != board.currentSubscriptions.selection
        try db.setSyncSubscriptions(set.subscriptions.map(\.stored))
        board.setSubscriptions(set)
        // What is selected changed: a new bootstrap, on a new connection.
        if changed, let connection { await connection.close() }
    }

    nonisolated func setState(_ state: SyncState) { board.setState(state) }
    nonisolated func report(_ event: SyncEvent) { board.report(event) }
}
