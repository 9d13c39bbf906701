import ObjDB

/// One per committed transaction of the crash worker: its sequence number and the state it
/// leaves, written in the same transaction as its changes.
public final class CrashMarker: Object {
    /// The transaction's sequence number: 1, 2, 3, … with no gaps.
    @Persisted(primaryKey: true) public var sequence: Int = 0
    /// What the transaction did (``CrashOperation/name``).
    @Persisted public var operation: String = ""
    /// The number of items alive after the transaction.
    @Persisted public var liveItems: Int = 0
    /// The next item id after the transaction.
    @Persisted public var nextItem: Int = 0
}

/// An item the crash worker inserts, updates and deletes; every property is a function of its
/// `id` and `version` (``CrashContent``), so its row can be checked exactly.
public final class CrashItem: Object {
    /// The item's id, never reused.
    @Persisted(primaryKey: true) public var id: Int = 0
    /// How often it was updated.
    @Persisted public var version: Int = 0
    /// The sequence number of the transaction that wrote it last (indexed: an index entry
    /// moves with every update).
    @Persisted(indexed: true) public var writtenBy: Int = 0
    /// A text of the id and version.
    @Persisted public var label: String = ""
    /// Numbers of the id and version.
    @Persisted public var values: List<Int>
    /// Words of the id and version.
    @Persisted public var tags: List<String>
    /// Parts made with the item and deleted with it.
    @Persisted(deleteRule: .cascade) public var parts: List<CrashPart>
}

/// A part of a ``CrashItem``: a linked object with a primary key, deleted with its item.
public final class CrashPart: Object {
    /// `item id × 4 + position`.
    @Persisted(primaryKey: true) public var id: Int = 0
    /// A text of the id.
    @Persisted public var name: String = ""
    /// The items that list it (one).
    @Persisted(originProperty: "parts") public var items: LinkingObjects<CrashItem>
}

/// The classes of the crash-cycle database.
public let crashModelTypes: [ObjectBase.Type] = [CrashMarker.self, CrashItem.self, CrashPart.self]
