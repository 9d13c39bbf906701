/// How to sort results: a key path (through to-one links: `"owner.name"`) and a direction.
///
/// ```swift
/// people.sorted(by: [SortDescriptor(keyPath: "age", ascending: false), SortDescriptor(keyPath: "name")])
/// ```
///
/// Ascending order puts `nil` first, then values: numbers by value, strings and other byte
/// values by their bytes (for strings, Unicode scalar order), dates by time, `false` before `true`.
/// Sorting is stable: objects with equal keys keep their previous order.
public struct SortDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// The key path to sort by.
    public var keyPath: String
    /// Whether smaller values come first.
    public var ascending: Bool

    /// A sort by `keyPath`, ascending by default.
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// The same key path in the other direction.
    public func reversed() -> SortDescriptor { SortDescriptor(keyPath: keyPath, ascending: !ascending) }

    /// `age ascending`.
    public var description: String { "\(keyPath) \(ascending ? "ascending" : "descending")" }
}

/// Where the objects of a ``Results`` come from before filtering.
enum ResultsSource {
    /// Every object of the class, in object-key order.
    case table
    /// The objects of a managed list (in list order, repeats included) or set (insertion order).
    case collection(CollectionHome)
    /// The objects whose link property `property` of class `origin` points to `target`, in
    /// object-key order.
    case linkingObjects(target: ObjectBase, origin: String, property: String)
}

/// What a ``Results`` evaluates: a source, then filters (all must hold), then sorting, then
/// distinct, then a limit — whatever order the calls were chained in.
struct ResultsQuery {
    /// The class of the objects (the model's class name, or a dynamic one).
    var className: String
    /// Whether the objects are ``DynamicObject``s, read by class name rather than model class.
    var isDynamic = false
    /// Where the objects come from.
    var source: ResultsSource = .table
    /// The filters joined with `AND` (an object must match all of them), `nil` without any. One
    /// predicate rather than an array: a `where { }` allocates no list for its one filter.
    var filter: QueryPredicate?
    /// The sort keys, most significant first.
    var sort: [SortDescriptor] = []
    /// Key paths whose combined values must be distinct; the first object of each wins.
    var distinct: [String] = []
    /// At most this many objects.
    var limit: Int?
    /// The `SORT`, `DISTINCT` and `LIMIT` clauses of a predicate string that come after a
    /// `LIMIT` (or a second `DISTINCT`), in order: applied to the keys the query above gives, so
    /// that `LIMIT(2) SORT(name ASC)` sorts the first two, as Realm does. Usually empty.
    var later: [LaterStage] = []

    /// A step applied after the limit, in order.
    enum LaterStage: Sendable {
        case sort([SortDescriptor])
        case distinct([String])
        case limit(Int)
        /// The most relevant first, for a full-text search of the property (``Results/search(_:in:)``).
        case rank(property: String, FullTextQuery)
    }

    /// Whether the results are the whole class table, unfiltered and in key order: the case
    /// with O(1) counts and cursor iteration.
    var isPlainTable: Bool {
        if case .table = source { return filter == nil && sort.isEmpty && distinct.isEmpty && limit == nil && later.isEmpty }
        return false
    }

    /// Whether the sort and `distinct` read only properties of the class itself (no key path
    /// through a link).
    var readsOnlyItsClassBesidesFilter: Bool {
        sort.allSatisfy { !$0.keyPath.contains(".") } && distinct.allSatisfy { !$0.contains(".") } && later.isEmpty
    }

    /// The filters as one predicate (`TRUEPREDICATE` without any).
    var predicate: QueryPredicate { filter ?? .constant(true) }

    /// A predicate string's `SORT(…)`: sorts by `descriptors` first, the current sort keys
    /// breaking ties (Realm's order for `SORT(a) SORT(b)`); after a limit or distinct, a later
    /// stage. (``Results/sorted(by:)`` replaces the sort instead.)
    mutating func addSort(_ descriptors: [SortDescriptor]) {
        if limit != nil || !later.isEmpty { later.append(.sort(descriptors)) } else { sort = descriptors + sort.filter { !descriptors.map(\.keyPath).contains($0.keyPath) } }
    }

    /// A predicate string's `DISTINCT(…)`: keeps the first object of each combination of values
    /// at `keyPaths`; a second distinct (or one after a limit) applies to what the first left.
    mutating func addDistinct(_ keyPaths: [String]) {
        if limit != nil || !later.isEmpty || !distinct.isEmpty { later.append(.distinct(keyPaths)) } else { distinct = keyPaths }
    }

    /// A predicate string's `LIMIT(n)`: keeps at most `count` objects.
    mutating func addLimit(_ count: Int) {
        if later.isEmpty { limit = Swift.min(limit ?? .max, count) } else { later.append(.limit(count)) }
    }

    /// Adds a filter: the results also have to match `predicate`.
    mutating func addFilter(_ predicate: QueryPredicate) {
        filter = filter.map { .and(QueryPredicate.operands($0, predicate, isAnd: true)) } ?? predicate
    }
}
