/// One local change of a synced file, as its outbox keeps it until the sync service
/// acknowledges it: what an upload carries.
///
/// An update carries only the properties the commit wrote; list appends travel as operations
/// (``listAppends``), so that appends made on several devices at once all survive.
public struct SyncOperation: Sendable, Hashable {
    /// What the operation does to its object.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The object was created: ``SyncOperation/values`` holds every property.
        case create
        /// Properties of an existing object were written.
        case update
        /// The object was deleted.
        case delete
    }

    /// The position of the operation in the file's outbox: ascending, from 1, never reused.
    public var sequence: UInt64
    /// The name of the object's class.
    public var className: String
    /// The object's primary key.
    public var primaryKey: SyncValue
    /// What the operation does.
    public var kind: Kind
    /// The properties written, by name (links as ``SyncValue/link(_:)``).
    public var values: [String: SyncValue]
    /// Elements appended to list properties, by name, in order; such a list is not also in
    /// ``values``.
    public var listAppends: [String: [SyncValue]]

    /// An operation.
    public init(
        sequence: UInt64, className: String, primaryKey: SyncValue, kind: Kind, values: [String: SyncValue] = [:],
        listAppends: [String: [SyncValue]] = [:]
    ) {
        self.sequence = sequence
        self.className = className
        self.primaryKey = primaryKey
        self.kind = kind
        self.values = values
        self.listAppends = listAppends
    }
}

/// The state of one object as the sync service sends it: every property's value, or `nil`
/// values for an object that no longer exists.
public struct SyncObjectState: Sendable, Hashable {
    /// The name of the object's class.
    public var className: String
    /// The object's primary key.
    public var primaryKey: SyncValue
    /// Every stored property's value by name; `nil` when the object was deleted.
    public var values: [String: SyncValue]?

    /// An object's state.
    public init(className: String, primaryKey: SyncValue, values: [String: SyncValue]?) {
        self.className = className
        self.primaryKey = primaryKey
        self.values = values
    }
}
