import Foundation
import ObjDB

/// An embedded object of ``SyncedTodo``.
public final class SyncedPlace: EmbeddedObject {
    /// The city.
    @Persisted public var city: String = ""
}

/// The synced class of the client tests and the client process.
public final class SyncedTodo: Object {
    /// The primary key.
    @Persisted(primaryKey: true) public var id: String = ""
    /// A title.
    @Persisted public var title: String = ""
    /// Whether it is done.
    @Persisted public var done: Bool = false
    /// A counter.
    @Persisted public var count: Int = 0
    /// A double.
    @Persisted public var score: Double = 0
    /// An optional date.
    @Persisted public var when: Date?
    /// Lines, appended to concurrently in tests.
    @Persisted public var lines: List<String>
    /// An embedded object.
    @Persisted public var place: SyncedPlace?
    /// A link.
    @Persisted public var owner: SyncedOwner?
}

/// A class ``SyncedTodo`` links to.
public final class SyncedOwner: Object {
    /// The primary key.
    @Persisted(primaryKey: true) public var id: String = ""
    /// A name.
    @Persisted public var name: String = ""
}

/// The model classes of a synced test file.
public let syncedTestTypes: [ObjectBase.Type] = [SyncedTodo.self, SyncedOwner.self, SyncedPlace.self]
