/// A property holding distinct values (`MutableSet<String>`) or distinct objects
/// (`MutableSet<Dog>`).
///
/// ```swift
/// try db.write {
///     ann.nicknames.insert("Annie")
///     ann.nicknames.formUnion(["A", "Nan"])
///     ann.nicknames.remove("A")
/// }
/// ann.nicknames.contains("Nan")   // true
/// ```
///
/// Values are equal when their stored bytes are (so `0.0` and `-0.0` are two values, and `NaN`
/// equals itself); objects are equal when they are the same stored object (or, unmanaged, the
/// same instance). Elements keep the order they were inserted in. Like ``List``, a managed set
/// is live and changes only inside a write transaction.
///
/// - Complexity: `contains` is O(1) on a set changed in the current write transaction and O(n)
///   otherwise; `insert` and `remove` are O(1) and O(n) in a write transaction.
public final class MutableSet<Element: CollectionElementType>: RandomAccessCollection, CustomStringConvertible {
    /// Where the elements are.
    typealias Backing = CollectionBacking<[Element]>

    @exclusivity(unchecked) var backing: Backing

    /// An empty, unmanaged set.
    public init() { backing = .unmanaged([]) }

    /// An unmanaged set of the distinct elements of `elements`.
    public convenience init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.init()
        formUnion(elements)
    }

    init(home: CollectionHome) { backing = .managed(home) }

    /// Whether the set belongs to a stored object.
    public var isManaged: Bool { backing.isManaged }

    /// Whether the object holding the set was deleted.
    public var isInvalidated: Bool { backing.isInvalidated }

    /// The database of the object holding the set, if managed.
    public var database: Database? { backing.database }

    // MARK: Reading

    /// `0`.
    public var startIndex: Int { 0 }

    /// The number of elements.
    public var endIndex: Int { count }

    /// The number of elements. - Complexity: O(1).
    public var count: Int { backing.count }

    /// The element at `position`, in insertion order.
    public subscript(position: Int) -> Element {
        switch backing {
        case .unmanaged(let elements):
            objdbPrecondition(elements.indices.contains(position), "MutableSet index \(position) out of range 0..<\(elements.count)")
            return elements[position]
        case .managed(let home):
            return home.element(at: position, as: Element.self)
        }
    }

    var elementsArray: [Element] {
        switch backing {
        case .unmanaged(let elements): return elements
        case .managed(let home): return home.elements(as: Element.self)
        }
    }

    /// Whether the set holds `element`.
    public func contains(_ element: Element) -> Bool {
        switch backing {
        case .unmanaged(let elements):
            var writer = _ObjDBElementWriter()
            let wanted = ElementIdentity(member: element, &writer)
            return elements.contains { ElementIdentity(member: $0, &writer) == wanted }
        case .managed(let home):
            guard let found = home.lookupElement(element) else { return false }
            let wanted = PendingCollection.member(found, home.info, home.column)
            if let pending = home.pending { return pending.members.contains(wanted) }
            let view = SequenceView(home.stored)
            return (0..<view.count).contains { PendingCollection.member(StoredElement(view.element($0)), home.info, home.column) == wanted }
        }
    }

    /// `MutableSet<String>["a", "b"]`, or `MutableSet<Dog>(3 objects)`.
    public var description: String {
        if Element._objdbObjectType != nil { return "MutableSet<\(Element.self)>(\(count) objects)" }
        return "MutableSet<\(Element.self)>\(elementsArray)"
    }

    // MARK: Changing

    /// Inserts `element` unless the set holds it. An unmanaged object is added to the database.
    public func insert(_ element: Element) {
        switch backing {
        case .unmanaged(var elements):
            guard !contains(element) else { return }
            backing = .unmanaged([])
            elements.append(element)
            backing = .unmanaged(elements)
        case .managed(let home):
            guard let (context, pending) = home.pendingForWrite(), let stored = home.storedElement(element, context, pending),
                pending.members.insert(pending.member(stored)).inserted
            else { return }
            pending.elements.append(stored)
            pending.record(.insert(at: pending.elements.count - 1, count: 1))
        }
    }

    /// Inserts every element of a sequence.
    public func insert<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        for element in elements { insert(element) }
    }

    /// Removes `element` if the set holds it.
    public func remove(_ element: Element) {
        switch backing {
        case .unmanaged(var elements):
            var writer = _ObjDBElementWriter()
            let wanted = ElementIdentity(member: element, &writer)
            backing = .unmanaged([])
            elements.removeAll { ElementIdentity(member: $0, &writer) == wanted }
            backing = .unmanaged(elements)
        case .managed(let home):
            guard let found = home.lookupElement(element), let (_, pending) = home.pendingForWrite() else { return }
            let wanted = pending.member(found)
            guard pending.members.remove(wanted) != nil else { return }
            if let position = pending.elements.firstIndex(where: { pending.member($0) == wanted }) {
                pending.elements.remove(at: position)
                pending.record(.erase(at: position, count: 1))
            }
        }
    }

    /// Removes every element.
    public func removeAll() {
        switch backing {
        case .unmanaged:
            backing = .unmanaged([])
        case .managed(let home):
            guard let (_, pending) = home.pendingForWrite() else { return }
            if !pending.elements.isEmpty { pending.record(.erase(at: 0, count: pending.elements.count)) }
            pending.elements.removeAll()
            pending.members.removeAll()
        }
    }

    /// Inserts the elements of `other` that the set lacks.
    public func formUnion<S: Sequence>(_ other: S) where S.Element == Element {
        insert(objectsIn: Array(other))
    }

    /// Keeps only the elements that `other` holds too.
    public func formIntersection<S: Sequence>(_ other: S) where S.Element == Element {
        var writer = _ObjDBElementWriter()
        let keep = Set(other.map { ElementIdentity(member: $0, &writer) })
        for element in elementsArray where !keep.contains(ElementIdentity(member: element, &writer)) { remove(element) }
    }

    /// Removes the elements that `other` holds.
    public func subtract<S: Sequence>(_ other: S) where S.Element == Element {
        for element in Array(other) { remove(element) }
    }

    /// Whether every element is also in `other`.
    public func isSubset<S: Sequence>(of other: S) -> Bool where S.Element == Element {
        var writer = _ObjDBElementWriter()
        let all = Set(other.map { ElementIdentity(member: $0, &writer) })
        return elementsArray.allSatisfy { all.contains(ElementIdentity(member: $0, &writer)) }
    }

    /// Whether the set and `other` have an element in common.
    public func intersects<S: Sequence>(_ other: S) -> Bool where S.Element == Element {
        var writer = _ObjDBElementWriter()
        let mine = Set(elementsArray.map { ElementIdentity(member: $0, &writer) })
        return other.contains { mine.contains(ElementIdentity(member: $0, &writer)) }
    }
}

extension MutableSet: SequenceCollection {
    static var kind: CollectionKind { .set }

    var home: CollectionHome? { backing.home }

    func replaceAll(with elements: [Element]) {
        removeAll()
        insert(objectsIn: elements)
    }
}

extension MutableSet: PersistableType {
    /// The element's stored type.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { Element._objdbPropertyType }
    /// Whether the elements are optional.
    @_spi(Implementation) public static var _objdbIsOptional: Bool { Element._objdbIsOptional }
    /// The element's integer width.
    @_spi(Implementation) public static var _objdbBitWidth: Int { Element._objdbBitWidth }
    /// An empty set.
    @_spi(Implementation) public static func _objdbDefaultValue() -> MutableSet<Element> { MutableSet() }
    /// The sequence encoding of the elements.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool { MutableSet.encodeUnmanaged(self, into: &bytes) }
    /// Sets are not decoded from bytes alone.
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> MutableSet<Element>? { nil }
    /// A set, or an array of convertible elements, as a new unmanaged set.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> MutableSet<Element>? { converted(value) }
    /// The managed set of the property.
    @_spi(Implementation) public static func _objdbGet(_ object: ObjectBase, _ column: Int) -> MutableSet<Element> {
        if object._objdbDatabase == nil { object._objdbRecordProbe(column) }
        return MutableSet(home: CollectionHome(parent: object, column: column))
    }
    /// Replaces the stored elements with those of `value`.
    @_spi(Implementation) public static func _objdbSet(_ object: ObjectBase, _ column: Int, _ value: MutableSet<Element>) {
        assign(value, to: object, column: column)
    }
}

extension MutableSet: RelationshipValue {
    static var collectionKind: CollectionKind? { .set }
    static var elementType: any PersistableType.Type { Element.self }

    static func heldObjects(at field: UnsafeRawPointer) -> [ObjectBase] {
        heldObjects(field.assumingMemoryBound(to: MutableSet<Element>.self).pointee)
    }

    static func encodeUnmanaged(at field: UnsafeRawPointer, into bytes: inout _ObjDBBytes) -> Bool {
        encodeUnmanaged(field.assumingMemoryBound(to: MutableSet<Element>.self).pointee, into: &bytes)
    }

    static func releaseUnmanaged(at field: UnsafeMutableRawPointer) {
        let value = field.assumingMemoryBound(to: MutableSet<Element>.self)
        // Objects, or mixed values, which may hold objects.
        guard Element._objdbObjectType != nil || Element.self == MixedValue.self, !value.pointee.isEmpty else { return }
        value.pointee = MutableSet<Element>()
    }
}

extension MutableSet: _LinkValue where Element: ObjectBase {}

extension CollectionHome {
    /// The stored form of `element` for looking it up: `nil` for an object this collection cannot
    /// hold (unmanaged, or of another database), which is never found.
    func lookupElement<E: CollectionElementType>(_ element: E) -> StoredElement? {
        var writer = _ObjDBElementWriter()
        E._objdbWriteElement(element, to: &writer)
        // A mixed value linking to an object this collection cannot hold is never found.
        if writer.mixedObjects.contains(where: { $0._objdbDatabase !== parent._objdbDatabase || $0._objdbInfo == nil }) { return nil }
        guard let object = writer.object else { return writer.element }
        guard object._objdbDatabase === parent._objdbDatabase, object._objdbInfo != nil else { return nil }
        return StoredElement(objectKey: object._objdbKey)
    }
}
