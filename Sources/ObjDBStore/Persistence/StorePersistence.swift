import Foundation
import ObjDB

/// How a ``Store`` persists its state: into which database, under which key, at which
/// version, with which state migrations — and the options added with ``collection(_:as:)``,
/// ``writeInterval(_:)``, ``onError(_:)``, ``resettingUndecodableState()`` and
/// ``rehydratingExternalChanges()``.
///
/// ```swift
/// let store = try Store(
///     reducer: appReducer, state: AppState(),
///     persistence: .database(db, key: "app", version: 2, migrations: [2: migrateV1toV2])
///         .collection(\.todos, as: TodoObject.self)
/// )
/// ```
public struct StorePersistence<State: Codable> {
    /// A state migration: changes a stored state of version `v - 1` into version `v`.
    public typealias StateMigration = (inout StoredState) throws -> Void

    let database: Database
    let key: String
    let version: Int
    let migrations: [Int: StateMigration]
    /// Collections stored as objects, made for the store that uses them.
    var collections: [() -> any PersistentCollection<State>] = []
    var interval: Duration = .milliseconds(100)
    var errorHandler: (@MainActor (any Error) -> Void)?
    var resetsUndecodableState = false
    var rehydratesExternalChanges = false

    /// Persists the state as a ``StoreStateObject`` in `db` under `key`.
    ///
    /// - Parameters:
    ///   - db: An open database, used on the main actor (open it there).
    ///   - key: Names this store's state in the file; two stores need two keys.
    ///   - version: The version of the state's shape. Raise it when a change of `State` needs
    ///     a migration.
    ///   - migrations: `migrations[v]` changes a stored state from version `v - 1` to `v`.
    ///     At launch a stored state runs through every step up to `version`, in one
    ///     transaction with the write of the result.
    public static func database(
        _ db: Database, key: String, version: Int = 1, migrations: [Int: StateMigration] = [:]
    ) -> StorePersistence<State> {
        StorePersistence(database: db, key: key, version: version, migrations: migrations)
    }

    /// Stores the array at `keyPath` as objects of `entity`, one per element, instead of in the
    /// state's JSON: the app and `objdb` can query them, and a dispatch that changes one
    /// element writes one object. The array's order is kept.
    public func collection<Entity: StoreEntity>(
        _ keyPath: WritableKeyPath<State, [Entity.Value]>, as entity: Entity.Type
    ) -> StorePersistence {
        var copy = self
        copy.collections.append { EntityCollection<State, Entity>(.array(keyPath)) }
        return copy
    }

    /// Stores the dictionary at `keyPath` (elements by id) as objects of `entity`, one per
    /// element.
    public func collection<Entity: StoreEntity>(
        _ keyPath: WritableKeyPath<State, [Entity.Value.ID: Entity.Value]>, as entity: Entity.Type
    ) -> StorePersistence {
        var copy = self
        copy.collections.append { EntityCollection<State, Entity>(.dictionary(keyPath)) }
        return copy
    }

    /// Waits `interval` after a dispatch before writing, so that a burst of dispatches becomes
    /// one write transaction (100 ms unless set; `.zero` writes once the current main-actor
    /// work is done). ``Store/flush()`` writes at once.
    public func writeInterval(_ interval: Duration) -> StorePersistence {
        var copy = self
        copy.interval = max(interval, .zero)
        return copy
    }

    /// Calls `handler` when a write fails. The state stays in memory and the write is retried
    /// after the next interval (and by ``Store/flush()``). Without a handler, failures are
    /// printed to standard error.
    public func onError(_ handler: @escaping @MainActor (any Error) -> Void) -> StorePersistence {
        var copy = self
        copy.errorHandler = handler
        return copy
    }

    /// When the stored state cannot be decoded (after its migrations), starts from the initial
    /// state and overwrites it, instead of throwing ``ObjDB/ObjDBError/Code/stateNotDecodable``.
    public func resettingUndecodableState() -> StorePersistence {
        var copy = self
        copy.resetsUndecodableState = true
        return copy
    }

    /// When another process, another database instance or `objdb` changes the stored state or
    /// its collections, reads them again and dispatches ``StoreRehydrated`` with the result.
    /// Changes of this store not yet written are written first, and win.
    public func rehydratingExternalChanges() -> StorePersistence {
        var copy = self
        copy.rehydratesExternalChanges = true
        return copy
    }
}

/// The action a store dispatches when it reads its state again after a change from outside
/// (see ``StorePersistence/rehydratingExternalChanges()``): middleware and subscribers see it
/// like any action, and the store takes ``state`` as its new state without calling the reducer.
public struct StoreRehydrated<State>: Action {
    /// The state read from the database.
    public let state: State
}
