import ObjDB

/// A subscription: the objects a ``SyncClient`` downloads. In this version a subscription
/// covers every object of a class, as Realm's flexible sync did for a query without a filter.
///
/// ```swift
/// try await sync.subscriptions.update { subs in
///     subs.append(QuerySubscription<Todo>())
/// }
/// ```
public struct QuerySubscription<T: Object>: AnySubscription {
    /// The subscription's name, to find or remove it; the class name when none is given.
    public let name: String
    /// The class whose objects it downloads.
    public var className: String { T.className }
    /// Whether a query narrows the subscription (not supported yet: see ``init(name:query:)``).
    public let hasQuery: Bool

    /// A subscription to every object of `T`.
    public init(name: String? = nil) {
        self.name = name ?? T.className
        hasQuery = false
    }

    /// A subscription to the objects of `T` that match a query, in the shape sync's API takes
    /// (`QuerySubscription<Todo>(name: "mine") { $0.owner == "ann" }`).
    ///
    /// This version of the service downloads whole classes only: ``SyncClient/Subscriptions/update(_:)``
    /// refuses a subscription with a query with ``ObjDBError/Code/invalidValue``, rather than
    /// download more than it asks for. Subscribe to the whole class meanwhile.
    public init(name: String? = nil, query: (Query<T>) -> Query<Bool>) {
        self.name = name ?? T.className
        hasQuery = true
    }
}

/// A subscription of any class, as a ``SyncSubscriptionSet`` holds it.
public protocol AnySubscription: Sendable {
    /// The subscription's name.
    var name: String { get }
    /// The class whose objects it downloads.
    var className: String { get }
    /// Whether a query narrows the subscription.
    var hasQuery: Bool { get }
}

/// One stored subscription.
public struct SyncSubscription: AnySubscription, Hashable {
    /// The subscription's name.
    public let name: String
    /// The class whose objects it downloads.
    public let className: String
    /// Whether a query narrows the subscription (always `false` in this version).
    public var hasQuery: Bool { false }
}

/// The subscriptions of a ``SyncClient``, stored in its file.
public struct SyncSubscriptionSet: Sendable, Hashable, Sequence {
    /// The subscriptions, in the order they were added.
    public private(set) var subscriptions: [SyncSubscription]
    /// Names of subscriptions appended with a query, which this version refuses.
    var refusedQueries: [String] = []

    /// A set holding `subscriptions`.
    init(_ subscriptions: [SyncSubscription]) {
        self.subscriptions = subscriptions
    }

    /// Number of subscriptions.
    public var count: Int { subscriptions.count }

    /// The subscription named `name`, if any.
    public func first(named name: String) -> SyncSubscription? { subscriptions.first { $0.name == name } }

    /// The names of the classes whose objects are downloaded.
    public var classNames: [String] {
        var seen = Set<String>()
        return subscriptions.map(\.className).filter { seen.insert($0).inserted }
    }

    /// Adds a subscription; one with the same name is replaced. A subscription with a query is
    /// refused by ``SyncClient/Subscriptions/update(_:)`` in this version.
    public mutating func append(_ subscription: some AnySubscription) {
        if subscription.hasQuery { refusedQueries.append(subscription.name) }
        let stored = SyncSubscription(name: subscription.name, className: subscription.className)
        if let index = subscriptions.firstIndex(where: { $0.name == stored.name }) {
            subscriptions[index] = stored
        } else {
            subscriptions.append(stored)
        }
    }

    /// Removes the subscription named `name`; returns whether there was one.
    @discardableResult
    public mutating func remove(named name: String) -> Bool {
        let before = subscriptions.count
        subscriptions.removeAll { $0.name == name }
        return subscriptions.count != before
    }

    /// Removes every subscription.
    public mutating func removeAll() { subscriptions.removeAll() }

    /// Iterates over the subscriptions.
    public func makeIterator() -> IndexingIterator<[SyncSubscription]> { subscriptions.makeIterator() }
}
