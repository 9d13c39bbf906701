import ObjDB
import ObjDBSyncProtocol

/// A subscription: the objects of a class a ``SyncClient`` downloads — all of them, or those
/// that match a query (Realm's flexible sync).
///
/// ```swift
/// try await sync.subscriptions.update { subs in
///     subs.append(QuerySubscription<Todo>(name: "mine") { $0.owner == "ann" && !$0.done })
///     subs.append(QuerySubscription<Todo>(name: "urgent", where: "priority >= %@", 3))
///     subs.append(QuerySubscription<Project>())          // every project
/// }
/// ```
///
/// The service evaluates queries in PostgreSQL, so they use the part of the predicate language
/// both engines evaluate alike: comparisons of the class's own properties with values
/// (`==`, `!=`, `<`, `<=`, `>`, `>=`, `IN`, `BETWEEN`, `BEGINSWITH`, `ENDSWITH`, `CONTAINS`,
/// `LIKE`, `[c]`, `nil`) joined by `AND`, `OR` and `NOT`. Anything else — key paths through
/// links or collections, aggregates, subqueries, `[d]`, full-text search — is refused by
/// ``SyncClient/Subscriptions/update(_:)`` with an error naming it.
public struct QuerySubscription<T: Object>: AnySubscription, PortableSubscription {
    /// The subscription's name, to find or remove it; the class name when none is given.
    public let name: String
    /// The class whose objects it downloads.
    public var className: String { T.className }
    /// The predicate, its values written `%@` (see ``arguments``); `nil` for every object.
    public let predicate: String?
    /// The values of ``predicate``'s `%@`, in order.
    public let arguments: [SyncValue]
    /// Why the query cannot be synced, reported by ``SyncClient/Subscriptions/update(_:)``.
    let refusal: ObjDBError?

    /// Whether a query narrows the subscription.
    public var hasQuery: Bool { predicate != nil }

    /// A subscription to every object of `T`.
    public init(name: String? = nil) {
        self.name = name ?? T.className
        predicate = nil
        arguments = []
        refusal = nil
    }

    /// A subscription to the objects of `T` a `where { }` query selects.
    ///
    /// ```swift
    /// QuerySubscription<Todo>(name: "mine") { $0.owner == "ann" }
    /// ```
    public init(name: String? = nil, query: (Query<T>) -> Query<Bool>) {
        self.init(name: name) { try PortablePredicate(of: T.self, query) }
    }

    /// A subscription to the objects of `T` a predicate string selects, with `%@` or `$0`
    /// arguments, as `Results.filter(_:_:)` takes them.
    ///
    /// ```swift
    /// QuerySubscription<Todo>(name: "urgent", where: "priority >= %@ AND done == false", 3)
    /// ```
    public init(name: String? = nil, where predicateFormat: String, _ arguments: Any?...) {
        self.init(name: name) { try PortablePredicate(parsing: predicateFormat, anyArguments: arguments) }
    }

    private init(name: String?, _ make: () throws -> PortablePredicate) {
        self.name = name ?? T.className
        do {
            let format = try make().predicateFormat
            predicate = format.text
            arguments = format.arguments
            refusal = nil
        } catch {
            predicate = ""
            arguments = []
            refusal = error as? ObjDBError ?? ObjDBError(.invalidQuery, "\(error)")
        }
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
    /// The predicate of a query subscription, its values written `%@`; `nil` for a whole class.
    var predicate: String? { get }
    /// The values of ``predicate``'s `%@`, in order.
    var arguments: [SyncValue] { get }
}

extension AnySubscription {
    /// Whether a query narrows the subscription.
    public var hasQuery: Bool { predicate != nil }
    /// `nil`: a subscription to every object of its class, unless it says otherwise.
    public var predicate: String? { nil }
    /// None, unless the subscription says otherwise.
    public var arguments: [SyncValue] { [] }
}

/// A subscription whose query may have been refused when it was made.
protocol PortableSubscription {
    /// Why its query cannot be synced, if it cannot.
    var refusal: ObjDBError? { get }
}

/// One stored subscription.
public struct SyncSubscription: AnySubscription, Hashable {
    /// The subscription's name.
    public let name: String
    /// The class whose objects it downloads.
    public let className: String
    /// The predicate of a query subscription, its values written `%@`; `nil` for every object.
    public let predicate: String?
    /// The values of ``predicate``'s `%@`, in order.
    public let arguments: [SyncValue]

    /// Whether a query narrows the subscription.
    public var hasQuery: Bool { predicate != nil }

    init(name: String, className: String, predicate: String? = nil, arguments: [SyncValue] = []) {
        self.name = name
        self.className = className
        self.predicate = predicate
        self.arguments = arguments
    }

    /// As the file stores it.
    var stored: StoredSyncSubscription {
        StoredSyncSubscription(name: name, className: className, predicate: predicate, arguments: arguments)
    }

    /// What the hello sends of it: a query (`TRUEPREDICATE` for a whole class).
    var query: ClientMessage.SubscriptionQuery {
        ClientMessage.SubscriptionQuery(className: className, predicate: predicate ?? "TRUEPREDICATE", arguments: arguments)
    }
}

/// The subscriptions of a ``SyncClient``, stored in its file.
public struct SyncSubscriptionSet: Sendable, Hashable, Sequence {
    /// The subscriptions, in the order they were added.
    public private(set) var subscriptions: [SyncSubscription]
    /// Subscriptions appended with a query sync cannot evaluate, and why.
    var refusals: [ObjDBError] = []

    /// A set holding `subscriptions`.
    init(_ subscriptions: [SyncSubscription]) {
        self.subscriptions = subscriptions
    }

    /// Number of subscriptions.
    public var count: Int { subscriptions.count }

    /// The subscription named `name`, if any.
    public func first(named name: String) -> SyncSubscription? { subscriptions.first { $0.name == name } }

    /// The names of the classes whose objects are downloaded (all of them or by a query).
    public var classNames: [String] {
        var seen = Set<String>()
        return subscriptions.map(\.className).filter { seen.insert($0).inserted }
    }

    /// What the subscriptions select, names left out: a change of it needs a new download.
    var selection: Set<ClientMessage.SubscriptionQuery> { Set(subscriptions.map(\.query)) }

    /// Adds a subscription; one with the same name is replaced. A query sync cannot evaluate
    /// makes ``SyncClient/Subscriptions/update(_:)`` throw.
    public mutating func append(_ subscription: some AnySubscription) {
        if let refusal = (subscription as? PortableSubscription)?.refusal {
            refusals.append(ObjDBError(.invalidQuery, "Subscription '\(subscription.name)': \(refusal.message)", className: subscription.className))
            return
        }
        if subscription.hasQuery && subscription.predicate == nil {
            refusals.append(
                ObjDBError(.invalidQuery, "Subscription '\(subscription.name)' says it has a query but gives no predicate", className: subscription.className))
            return
        }
        // `TRUEPREDICATE` selects what a whole-class subscription does, and is stored as one.
        let predicate = subscription.predicate == "TRUEPREDICATE" && subscription.arguments.isEmpty ? nil : subscription.predicate
        let stored = SyncSubscription(
            name: subscription.name, className: subscription.className, predicate: predicate, arguments: predicate == nil ? [] : subscription.arguments)
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

    /// Two sets are equal when they hold the same subscriptions in the same order.
    public static func == (a: SyncSubscriptionSet, b: SyncSubscriptionSet) -> Bool { a.subscriptions == b.subscriptions }

    /// Hashes the subscriptions.
    public func hash(into hasher: inout Hasher) { hasher.combine(subscriptions) }
}
