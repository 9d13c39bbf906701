/// A sync subscription as the file stores it: a name, a class, and for a query subscription
/// its predicate (in the portable part of the predicate language, values as `%@`) and values.
package struct StoredSyncSubscription: Sendable, Hashable {
    /// The subscription's name.
    package var name: String
    /// The class whose objects it selects.
    package var className: String
    /// The predicate; `nil` for every object of the class.
    package var predicate: String?
    /// The values of the predicate's `%@`, in order.
    package var arguments: [SyncValue]

    /// A stored subscription.
    package init(name: String, className: String, predicate: String? = nil, arguments: [SyncValue] = []) {
        self.name = name
        self.className = className
        self.predicate = predicate
        self.arguments = arguments
    }

    /// What it selects, its name left out: a change of it makes the next download a full one.
    var selection: Selection { Selection(className: className, predicate: predicate, arguments: arguments) }

    /// The class and query of a subscription.
    struct Selection: Hashable {
        /// The class.
        var className: String
        /// The predicate; `nil` for every object.
        var predicate: String?
        /// The predicate's values.
        var arguments: [SyncValue]
    }
}
