import Foundation
import ObjDB

/// Keeps a store's state in its database: reads (and migrates) it at launch, writes it after
/// dispatches in coalesced transactions, retries failed writes, and reads it again when
/// someone else changes it.
@MainActor
final class PersistenceDriver<State: Codable> {
    let options: StorePersistence<State>
    var db: Database { options.database }
    let collections: [any PersistentCollection<State>]
    /// The newest state, not yet written when ``isDirty``.
    private var latest: State
    private(set) var isDirty = false
    /// Whether a write is scheduled.
    private var isScheduled = false
    /// The state's JSON and the collections' order as last written or read.
    private var writtenJSON: String?
    private var writtenOrder: String?
    /// Observations of changes by others, when the store rehydrates.
    private var tokens: [NotificationToken] = []
    /// Called with a state read after a change by others.
    var rehydrate: ((State) -> Void)?

    /// Reads the stored state — migrating it and writing the result, or writing `initial` when
    /// nothing is stored — in one write transaction.
    init(_ options: StorePersistence<State>, initial: State) throws {
        self.options = options
        self.collections = options.collections.map { $0() }
        self.latest = initial
        try checkClasses()
        if let stored = try readCurrent() {
            latest = stored
        } else {
            latest = try db.write {
                for collection in collections { try collection.createClass(in: db) }
                return try loadOrCreate(initial: initial)
            }
        }
        finishWrite()
    }

    /// The stored state when reading it is all a launch needs — it exists at the store's
    /// version and every collection's class is in the file — read without a write transaction
    /// (so a read-only database can host the store, and a launch does not wait for writers);
    /// `nil` when something must be written first.
    private func readCurrent() throws -> State? {
        guard collections.allSatisfy({ db.schema[$0.className] != nil }),
            db.schema[StoreStateObject.className] != nil,
            let object = db.object(ofType: StoreStateObject.self, forPrimaryKey: options.key),
            object.version == options.version
        else { return nil }
        do {
            let state = try read(json: object.json, order: object.collectionOrder)
            pendingJSON = object.json
            pendingOrder = object.collectionOrder
            return state
        } catch let error as ObjDBError where error.code == .stateNotDecodable && options.resetsUndecodableState {
            return nil  // the write path resets it
        }
    }

    /// Notes a new state; schedules a write.
    func stateDidChange(to state: State) {
        latest = state
        isDirty = true
        // A new state may fix what made the last write fail: write it after the interval.
        failures = 0
        schedule()
    }

    /// Writes that failed in a row, for the retry delay.
    private var failures = 0
    /// The store's lifetime: once it is released, a write that keeps failing is given up.
    var lifetime: StoreLifetime?

    /// Makes the next write write the state object (and, unless `touchedOnly`, every element of
    /// the collections) whatever was written before.
    private func forgetWhatWasWritten(touchedOnly: Bool) {
        writtenJSON = nil
        writtenOrder = nil
        pendingJSON = nil
        pendingOrder = nil
        for collection in collections { collection.forgetWritten(touchedOnly: touchedOnly) }
    }

    /// The state to start with, read at launch.
    var state: State { latest }

    /// Writes the newest state now, if it is not written yet.
    func flush() throws {
        guard isDirty else { return }
        if db.isInWriteTransaction {
            // The caller's transaction may commit or be cancelled: the state stays pending, and
            // what this write touched no longer counts as written, so the next write writes it
            // again (an update that changes nothing is skipped) whichever way it went.
            try write(latest)
            forgetWhatWasWritten(touchedOnly: true)
            schedule()
            return
        }
        try db.write(withoutNotifying: tokens) { try write(latest) }
        isDirty = false
        failures = 0
        finishWrite()
    }

    /// Starts observing changes by others.
    func startObserving() {
        guard options.rehydratesExternalChanges, tokens.isEmpty else { return }
        let key = options.key
        let onChange: () -> Void = { [weak self] in self?.externalChange() }
        tokens.append(
            db.objects(StoreStateObject.self).where { $0.key == key }.observe { change in
                if case .update = change { onChange() }
            })
        tokens += collections.map { $0.observe(db, onChange) }
    }

    // MARK: Writing

    /// Schedules a write after the interval — after a failure, after a delay that doubles with
    /// each failure in a row (from 50 ms, or the interval if longer, up to 30 s).
    private func schedule() {
        guard !isScheduled else { return }
        isScheduled = true
        var delay = options.interval
        if failures > 0 {
            let base = max(delay, .milliseconds(50))
            delay = min(base * (1 << min(failures - 1, 16)), .seconds(30))
        }
        // Strong: a state not yet written is written even if the store is released meanwhile.
        Task { @MainActor [delay] in
            if delay > .zero { try? await Task.sleep(for: delay) } else { await Task.yield() }
            self.isScheduled = false
            self.flushReportingErrors()
        }
    }

    /// A scheduled write: a failure goes to the error handler and is retried later, until it
    /// succeeds — or, once the store is released, gives up after reporting it.
    private func flushReportingErrors() {
        guard isDirty else { return }
        do {
            try flush()
        } catch {
            failures += 1
            report(error)
            if let error = error as? ObjDBError, error.code == .migrationRequired {
                return  // a newer version owns the stored state: retrying cannot help
            }
            if lifetime?.isReleased ?? true {
                report(ObjDBError(
                    .storage, "The store under key '\(options.key)' was released and its last state could not be written; it is lost",
                    className: StoreStateObject.className, key: options.key))
                return
            }
            schedule()
        }
    }

    /// Writes `state` in the open write transaction: the JSON and order when they changed, the
    /// changed objects of each collection.
    private func write(_ state: State) throws {
        var stripped = state
        for collection in collections { collection.strip(&stripped) }
        let json = try Self.encode(stripped, key: options.key)
        var orders: [String: Any] = [:]
        for collection in collections {
            if let order = try collection.write(state, to: db) {
                orders[collection.className] = try JSONSerialization.jsonObject(with: order)
            }
        }
        let order = orders.isEmpty ? "" : try Self.text(JSONSerialization.data(withJSONObject: orders, options: [.sortedKeys]))
        pendingJSON = json
        pendingOrder = order
        guard json != writtenJSON || order != writtenOrder else { return }
        // Only what changed since this store last wrote or read: a field someone else changed
        // meanwhile, and this store did not, keeps their value.
        try store(json: json, order: order, changedJSON: json != writtenJSON, changedOrder: order != writtenOrder)
    }

    private var pendingJSON: String?
    private var pendingOrder: String?

    /// Makes what was written the written state: its transaction committed.
    private func finishWrite() {
        if let pendingJSON { writtenJSON = pendingJSON }
        if let pendingOrder { writtenOrder = pendingOrder }
        pendingJSON = nil
        pendingOrder = nil
        for collection in collections { collection.didCommit() }
    }

    /// Writes the state object: the state's JSON and the collections' order where they changed
    /// (both for a new object).
    private func store(json: String, order: String, changedJSON: Bool, changedOrder: Bool) throws {
        let existing = db.object(ofType: StoreStateObject.self, forPrimaryKey: options.key)
        if let existing, existing.version > options.version {
            throw ObjDBError(
                .migrationRequired,
                "The state under key '\(options.key)' was written at version \(existing.version) by a newer version of the app; this store (version \(options.version)) does not write over it",
                className: StoreStateObject.className, key: options.key)
        }
        let object = existing ?? StoreStateObject()
        if existing == nil {
            object.key = options.key
            try db.add(object)
        }
        object.version = options.version
        object.updatedAt = Date()
        object.stateType = String(reflecting: State.self)
        if changedJSON || existing == nil { object.json = json }
        if changedOrder || existing == nil { object.collectionOrder = order }
    }

    // MARK: Reading

    /// The stored state (migrated and written back), or `initial` written when none is stored
    /// (replacing any objects of the collections) or when it cannot be decoded and the store
    /// resets.
    private func loadOrCreate(initial: State) throws -> State {
        guard let object = db.object(ofType: StoreStateObject.self, forPrimaryKey: options.key) else {
            return try replace(with: initial)
        }
        let migrated = object.version != options.version
        let json = migrated ? try migrate(object.json, from: object.version) : object.json
        let state: State
        do {
            state = try read(json: json, order: object.collectionOrder)
        } catch let error as ObjDBError where error.code == .stateNotDecodable && options.resetsUndecodableState {
            return try replace(with: initial)
        }
        pendingJSON = object.json
        pendingOrder = object.collectionOrder
        if migrated { try write(state) }
        return state
    }

    /// Writes `state` over whatever is stored, objects of the collections included.
    private func replace(with state: State) throws -> State {
        var scratch = state
        for collection in collections { try collection.load(into: &scratch, order: nil, from: db) }
        try write(state)
        return state
    }

    /// The state stored as `json` and the objects of the collections in `order`.
    private func read(json: String, order: String) throws -> State {
        var state: State
        do {
            state = try JSONDecoder().decode(State.self, from: Data(json.utf8))
        } catch {
            throw ObjDBError(
                .stateNotDecodable,
                "The state stored under key '\(options.key)' (version \(options.version)) cannot be decoded as \(State.self): \(Self.describe(error)). The stored state was left as it was; add a state migration, or opt in to resettingUndecodableState()",
                className: StoreStateObject.className, key: options.key)
        }
        let orders = order.isEmpty ? [:] : (try? JSONSerialization.jsonObject(with: Data(order.utf8))) as? [String: Any] ?? [:]
        for collection in collections {
            let ids = try orders[collection.className].map { try JSONSerialization.data(withJSONObject: $0) }
            try collection.load(into: &state, order: ids, from: db)
        }
        return state
    }

    /// Runs the state migrations from `stored` up to the store's version over `json`.
    private func migrate(_ json: String, from stored: Int) throws -> String {
        let key = options.key
        guard stored < options.version else {
            throw ObjDBError(
                .migrationRequired,
                "The state stored under key '\(key)' has version \(stored), newer than this store's version \(options.version); raise the store's version to at least \(stored)",
                className: StoreStateObject.className, key: key)
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(json.utf8))
        } catch {
            throw ObjDBError(.stateNotDecodable, "The state stored under key '\(key)' is not JSON: \(error)", className: StoreStateObject.className, key: key)
        }
        guard let values = object as? [String: Any] else {
            throw ObjDBError(
                .stateNotDecodable, "The state stored under key '\(key)' is not a JSON object, which state migrations need",
                className: StoreStateObject.className, key: key)
        }
        var state = StoredState(values)
        for version in (stored + 1)...options.version {
            guard let migration = options.migrations[version] else {
                throw ObjDBError(
                    .migrationFailed,
                    "The state stored under key '\(key)' has version \(stored), and no state migration leads to version \(version) (migrations[\(version)] is missing); the stored state was left as it was",
                    className: StoreStateObject.className, key: key)
            }
            do {
                try migration(&state)
            } catch {
                throw ObjDBError(
                    .migrationFailed,
                    "The state migration to version \(version) of key '\(key)' threw: \(error); the stored state was left as it was",
                    className: StoreStateObject.className, key: key)
            }
        }
        guard JSONSerialization.isValidJSONObject(state.values) else {
            throw ObjDBError(
                .migrationFailed,
                "The state migrations of key '\(key)' left values that are not JSON (use String, numbers, Bool, arrays, [String: Any] and NSNull); the stored state was left as it was",
                className: StoreStateObject.className, key: key)
        }
        return try Self.text(JSONSerialization.data(withJSONObject: state.values, options: [.sortedKeys]))
    }

    /// A change by others: handled once the notifications of this commit are delivered.
    private func externalChange() {
        guard !isRehydrationScheduled else { return }
        isRehydrationScheduled = true
        Task { @MainActor in
            self.isRehydrationScheduled = false
            self.rehydrateFromDatabase()
        }
    }

    private var isRehydrationScheduled = false

    /// Reads the state again after a change by others, writing this store's pending state
    /// first (it wins), and hands it to ``rehydrate``.
    private func rehydrateFromDatabase() {
        do {
            try flush()
            db.refresh()
            guard let object = db.object(ofType: StoreStateObject.self, forPrimaryKey: options.key) else {
                // Deleted by someone else: this store's state is written again, whole.
                forgetWhatWasWritten(touchedOnly: false)
                isDirty = true
                try flush()
                return
            }
            guard object.version == options.version else {
                throw ObjDBError(
                    .migrationRequired,
                    "The state under key '\(options.key)' was rewritten by another program at version \(object.version); this store (version \(options.version)) keeps its state and does not read it",
                    className: StoreStateObject.className, key: options.key)
            }
            let state = try read(json: object.json, order: object.collectionOrder)
            writtenJSON = object.json
            writtenOrder = object.collectionOrder
            for collection in collections { collection.didCommit() }
            // A commit that left the state as this store has it (its own, reported because
            // another commit came in between) is not a change.
            let same = (try? Self.encode(state, key: options.key)) == (try? Self.encode(latest, key: options.key))
            latest = state
            if !same { rehydrate?(state) }
        } catch {
            report(error)
        }
    }

    /// Gives `error` to the error handler, or prints it.
    private func report(_ error: any Error) {
        if let handler = options.errorHandler {
            handler(error)
        } else {
            FileHandle.standardError.write(Data("ObjDBStore: store '\(options.key)': \(error)\n".utf8))
        }
    }

    // MARK: Checks and encoding

    /// Throws a clear error when the database's configured classes leave out the store's.
    private func checkClasses() throws {
        guard db.configuration.objectTypes != nil else { return }
        let needed = [StoreStateObject.self] + collections.map(\.entityType)
        for type in needed where db.schema[type.className] == nil {
            throw ObjDBError(
                .unknownClass,
                "The Store persists into class '\(type.className)', which is not part of this database: add \(type).self to Configuration.objectTypes",
                className: type.className)
        }
    }

    static func encode(_ state: State, key: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try text(encoder.encode(state))
        } catch {
            throw ObjDBError(
                .invalidValue, "The state of store '\(key)' (\(State.self)) cannot be encoded as JSON: \(describe(error))",
                className: StoreStateObject.className, key: key)
        }
    }

    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    /// A decoding error as a sentence naming the coding path.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.isEmpty ? "the top level" : context.codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(path(context)) is not a \(type) (\(context.debugDescription))"
        case .valueNotFound(let type, let context): return "\(path(context)) has no \(type) value"
        case .keyNotFound(let key, let context):
            return "the key '\(key.stringValue)' is missing at \(path(context))"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}


/// Whether a store is still alive, readable from any thread: the store's `deinit` (which
/// cannot touch main-actor state) marks it, and its persistence gives up retrying then.
final class StoreLifetime: @unchecked Sendable {
    private let lock = NSLock()
    private var released = false

    var isReleased: Bool { lock.withLock { released } }
    func markReleased() { lock.withLock { released = true } }
}
