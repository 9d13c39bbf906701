/// A live collection that can be frozen: ``Results``, ``List``, ``MutableSet``, ``Map`` and
/// ``LinkingObjects``. Its requirements are ObjDB's own.
public protocol _ObjDBFreezable: RandomAccessCollection where Index == Int {
    /// Whether the collection reads a frozen database.
    var isFrozen: Bool { get }
    /// The collection as a frozen source, pinning the version its database reads now.
    @_spi(Implementation) var _objdbFrozenSource: _FrozenSource { get }
    /// The collection `source` names, read in `database` (a frozen view of the source's version,
    /// or a live instance when thawing); `nil` if the object it belongs to does not exist there.
    @_spi(Implementation) static func _objdbLive(_ source: _FrozenSource, in database: Database) -> Self?
    /// Called after a read through a frozen view: keeps what the read evaluated for the next one.
    @_spi(Implementation) func _objdbDidRead(_ source: _FrozenSource)
}

extension _ObjDBFreezable {
    /// ObjDB's own: keeps what a read through a frozen view evaluated.
    @_spi(Implementation) public func _objdbDidRead(_ source: _FrozenSource) {}
}

/// An immutable, `Sendable` snapshot of a collection: every read shows the version it was
/// frozen at, from any thread, at the same time as other threads.
///
/// Spelled through its aliases: ``FrozenResults``, ``FrozenList``, ``FrozenMutableSet``,
/// ``FrozenMap`` and ``FrozenLinkingObjects``, which `freeze()` on the live collection returns.
///
/// ```swift
/// let frozen = db.objects(Person.self).where { $0.age > 50 }.freeze()
/// await withTaskGroup(of: Int.self) { group in
///     for _ in 0..<4 { group.addTask { frozen.reduce(0) { $0 + $1.age } } }   // compiles: Sendable
/// }
/// ```
///
/// It has the read API of the live collection: `count`, subscripts, iteration, `first`,
/// `last`; for objects, `where`, `filter`, `sorted`, `distinct` (which return frozen results of
/// the same version) and the aggregates; for maps, lookups by key. The objects it gives are
/// frozen objects, confined to the code that read them, like any object.
///
/// It pins its version: one read transaction shared by every frozen thing of that version, and
/// the file keeps the version's pages until the last of them is released (see
/// ``Database/activeVersionCount``).
///
/// - Complexity: Freezing is O(1): nothing is read or copied. Each call reads through a frozen
///   `Database` instance of its own (a few small allocations, no file access); a `Results`
///   evaluates its query once, on the first call that needs its objects, and every copy shares
///   the keys. Iterate rather than index in a loop: one iteration is one such instance.
public struct FrozenCollection<Live: _ObjDBFreezable>: RandomAccessCollection, Sendable, CustomStringConvertible {
    /// The source: version, location and shared keys.
    let source: _FrozenSource

    init(_ source: _FrozenSource) { self.source = source }

    /// Reads through a fresh frozen view: `body` gets the live collection of this version.
    /// `nil` if the collection cannot be read (its version could not be pinned).
    func read<Result>(_ body: (Live) throws -> Result) rethrows -> Result? {
        guard let live = Live._objdbLive(source, in: source.version.makeView()) else { return nil }
        defer { live._objdbDidRead(source) }
        return try body(live)
    }

    /// `0`.
    public var startIndex: Int { 0 }

    /// The number of elements.
    public var endIndex: Int { count }

    /// The number of elements.
    public var count: Int { read { $0.count } ?? 0 }

    /// Whether there are no elements.
    public var isEmpty: Bool { read { $0.isEmpty } ?? true }

    /// The element at `position`.
    public subscript(position: Int) -> Live.Element {
        guard let element = read({ live -> Live.Element? in
            live.indices.contains(position) ? live[position] : nil
        }) ?? nil else {
            objdbFatal("Frozen collection index \(position) out of range 0..<\(count)")
        }
        return element
    }

    /// The first element.
    public var first: Live.Element? { read { $0.first } ?? nil }

    /// The last element.
    public var last: Live.Element? { read { $0.last } ?? nil }

    /// Iterates over the elements through one frozen view.
    public func makeIterator() -> Iterator { Iterator(base: read { $0.makeIterator() }) }

    /// Always `true`.
    public var isFrozen: Bool { true }

    /// Itself: it is frozen already.
    public func freeze() -> Self { self }

    /// The live collection in the live database of the calling context, at its newest version
    /// (see ``Database/thaw()``); `nil` if the object it belongs to was deleted since.
    public func thaw(isolation: isolated (any Actor)? = #isolation) -> Live? {
        Live._objdbLive(source, in: Database.liveInstance(of: source.version, isolation: isolation))
    }

    /// `Frozen Results<Person> (3 objects)`.
    public var description: String { "Frozen " + (read { String(describing: $0) } ?? "collection (unreadable)") }

    /// Iterates over a frozen collection.
    public struct Iterator: IteratorProtocol {
        var base: Live.Iterator?

        /// The next element.
        public mutating func next() -> Live.Element? { base?.next() }
    }
}

/// A frozen ``Results``: `Sendable`, immutable, readable from many threads at once.
public typealias FrozenResults<Element: ObjectBase> = FrozenCollection<Results<Element>>
/// A frozen ``List``.
public typealias FrozenList<Element: CollectionElementType> = FrozenCollection<List<Element>>
/// A frozen ``MutableSet``.
public typealias FrozenMutableSet<Element: CollectionElementType> = FrozenCollection<MutableSet<Element>>
/// A frozen ``Map``.
public typealias FrozenMap<Key: MapKeyType, Value: CollectionElementType> = FrozenCollection<Map<Key, Value>>
/// A frozen ``LinkingObjects``.
public typealias FrozenLinkingObjects<Origin: ObjectBase> = FrozenCollection<LinkingObjects<Origin>>
