import Foundation
import ObjDB

/// The object a persisted ``Store`` keeps its state in: one per store key, class name
/// `ObjDBStoreState` in the file (what `objdb store` reads).
///
/// List it in `Configuration.objectTypes` when you list your model classes:
///
/// ```swift
/// config.objectTypes = [Todo.self, StoreStateObject.self]
/// ```
public final class StoreStateObject: Object {
    /// The class name in the file.
    public override class var className: String { "ObjDBStoreState" }

    /// The store's key (``StorePersistence/database(_:key:version:migrations:)``).
    @Persisted(primaryKey: true) public var key: String = ""
    /// The version of the state's shape, as the store's `version` was when it wrote.
    @Persisted public var version: Int = 0
    /// When the state was last written.
    @Persisted public var updatedAt: Date = Date(timeIntervalSince1970: 0)
    /// The Swift type of the state, for messages and tools.
    @Persisted public var stateType: String = ""
    /// The state as a JSON object (keys sorted), without the collections stored as objects.
    @Persisted public var json: String = ""
    /// For each collection stored as objects in an array, its class name and the order of
    /// its elements' ids, as a JSON object (`{"Todo": [3, 1, 2]}`).
    @Persisted public var collectionOrder: String = ""
}
