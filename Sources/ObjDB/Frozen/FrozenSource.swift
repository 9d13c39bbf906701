import Foundation

/// What a frozen collection reads, in a form that holds no object and no `Database`: its
/// pinned version and where its elements are. Public (in the `Implementation` SPI, which apps do
/// not see) only so that the requirements of ``_ObjDBFreezable`` can name it; its contents are
/// internal.
@_spi(Implementation) public struct _FrozenSource: Sendable {
    /// The pinned version.
    let version: FrozenVersion
    /// Where the elements are.
    let home: FrozenHome
    /// The matching keys of a frozen `Results`, evaluated once and shared by every copy.
    let keys: FrozenKeys?
}

/// Where a frozen collection's elements are, by class names and object keys.
enum FrozenHome: Sendable {
    /// The objects a query selects.
    case results(FrozenQuery)
    /// A collection property (a list, set or map) of one object.
    case collection(FrozenObject, column: Int)
    /// The objects linking to one object through a property.
    case linkingObjects(FrozenObject, property: String)
}

/// A stored object named without holding it: its class and object key.
struct FrozenObject: Sendable {
    let className: String
    let key: UInt64

    /// The object `object` names (a managed object).
    init(_ object: ObjectBase) {
        className = object._objdbInfo?.name ?? ""
        key = object._objdbKey
    }

    /// The object in `database`'s current version, as a `DynamicObject` (which reads any class);
    /// `nil` if it does not exist there.
    func resolve(in database: Database) -> ObjectBase? {
        database.resolveObject(DynamicObject.self, className: className, key: key)
    }
}

/// A ``ResultsQuery`` with its objects named by ``FrozenObject``s, so it can cross threads.
struct FrozenQuery: Sendable {
    enum Source: Sendable {
        case table
        case collection(FrozenObject, column: Int)
        case linkingObjects(FrozenObject, origin: String, property: String)
    }

    let className: String
    let isDynamic: Bool
    let source: Source
    let filter: QueryPredicate?
    let sort: [SortDescriptor]
    let distinct: [String]
    let limit: Int?
    let later: [ResultsQuery.LaterStage]

    init(_ query: ResultsQuery) {
        className = query.className
        isDynamic = query.isDynamic
        switch query.source {
        case .table: source = .table
        case .collection(let home): source = .collection(FrozenObject(home.parent), column: home.column)
        case .linkingObjects(let target, let origin, let property):
            source = .linkingObjects(FrozenObject(target), origin: origin, property: property)
        }
        filter = query.filter
        sort = query.sort
        distinct = query.distinct
        limit = query.limit
        later = query.later
    }

    /// The query over `database`'s current version; `nil` if the object its source belongs to
    /// does not exist there.
    func query(in database: Database) -> ResultsQuery? {
        var query = ResultsQuery(className: className)
        query.isDynamic = isDynamic
        switch source {
        case .table: break
        case .collection(let parent, let column):
            guard let object = parent.resolve(in: database) else { return nil }
            query.source = .collection(CollectionHome(parent: object, column: column))
        case .linkingObjects(let target, let origin, let property):
            guard let object = target.resolve(in: database) else { return nil }
            query.source = .linkingObjects(target: object, origin: origin, property: property)
        }
        query.filter = filter
        query.sort = sort
        query.distinct = distinct
        query.limit = limit
        query.later = later
        return query
    }
}

/// The matching object keys of a frozen `Results`, evaluated at most once per version by
/// whichever thread reads first, then shared.
final class FrozenKeys: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [UInt64]?

    init(_ keys: [UInt64]? = nil) { stored = keys }

    /// The keys, once known.
    var keys: [UInt64]? {
        get { lock.withLock { stored } }
        set { lock.withLock { if stored == nil { stored = newValue } } }
    }
}
