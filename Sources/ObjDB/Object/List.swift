/// An ordered collection property: of values (`List<String>`, `List<Int?>`) or of objects
/// (`List<Dog>`, a to-many link).
///
/// ```swift
/// final class Person: Object {
///     @Persisted var dogs: List<Dog>
///     @Persisted var tags: List<String>
/// }
///
/// try db.write {
///     ann.dogs.append(rex)             // an unmanaged dog is added to the database
///     ann.tags.append(contentsOf: ["a", "b"])
///     ann.dogs.move(from: 0, to: 1)
/// }
/// ann.dogs.count; ann.dogs[0].name
/// ```
///
/// An unmanaged list holds its elements in memory. A managed list (read from a managed object)
/// is live: it reads the object's current version, and changing it — only inside a write
/// transaction — changes the database. Changes are buffered in the write transaction and
/// written once at commit, so appending in a loop costs O(1) per element.
///
/// The same object may appear several times in a list. Appending the same *unmanaged* instance
/// twice stores one object, referenced twice. Deleting an object removes it from every list.
public final class List<Element: CollectionElementType>: RandomAccessCollection, MutableCollection, RangeReplaceableCollection,
    CustomStringConvertible
{
    /// Where the elements are.
    typealias Backing = CollectionBacking<[Element]>

    @exclusivity(unchecked) var backing: Backing

    /// An empty, unmanaged list.
    public init() { backing = .unmanaged([]) }

    /// An unmanaged list of `elements`.
    public convenience init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.init()
        backing = .unmanaged(Array(elements))
    }

    /// The managed list of `column` of `parent`.
    init(home: CollectionHome) { backing = .managed(home) }

    // MARK: State

    /// Whether the list belongs to a stored object.
    public var isManaged: Bool { backing.isManaged }

    /// Whether the object holding the list was deleted.
    public var isInvalidated: Bool { backing.isInvalidated }

    /// The database of the object holding the list, if managed.
    public var database: Database? { backing.database }

    // MARK: Reading

    /// `0`.
    public var startIndex: Int { 0 }

    /// The number of elements.
    public var endIndex: Int { count }

    /// The number of elements. - Complexity: O(1).
    public var count: Int { backing.count }

    /// The element at `position`. Setting it on a managed list needs a write transaction.
    /// - Complexity: O(1).
    public subscript(position: Int) -> Element {
        get {
            switch backing {
            case .unmanaged(let elements):
                objdbPrecondition(elements.indices.contains(position), "List index \(position) out of range 0..<\(elements.count)")
                return elements[position]
            case .managed(let home):
                return home.element(at: position, as: Element.self)
            }
        }
        set {
            guard case .managed(let home) = backing else {
                return replaceSubrange(position..<position + 1, with: CollectionOfOne(newValue))
            }
            guard let (context, pending) = home.pendingForWrite() else { return }
            objdbPrecondition(
                position >= 0 && position < pending.elements.count,
                "List index \(position) out of range 0..<\(pending.elements.count) of '\(home.propertyName)'")
            guard let value = home.storedElement(newValue, context, pending) else { return }
            pending.elements[position] = value
            pending.record(.set(at: position))
        }
    }

    /// The elements as an array (objects of a managed list are read once each).
    var elementsArray: [Element] {
        switch backing {
        case .unmanaged(let elements): return elements
        case .managed(let home): return home.elements(as: Element.self)
        }
    }

    /// `List<String>["a", "b"]`, or `List<Dog>(3 objects)` for objects.
    public var description: String {
        if Element._objdbObjectType != nil { return "List<\(Element.self)>(\(count) objects)" }
        return "List<\(Element.self)>\(elementsArray)"
    }

    // MARK: Changing

    /// Replaces the elements in `subrange` with `newElements`: every change of a list comes to this.
    /// - Complexity: O(n) in the length of the list.
    public func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Element {
        switch backing {
        case .unmanaged(var elements):
            objdbPrecondition(subrange.lowerBound >= 0 && subrange.upperBound <= elements.count, "List range \(subrange) out of range 0..<\(elements.count)")
            backing = .unmanaged([])
            elements.replaceSubrange(subrange, with: newElements)
            backing = .unmanaged(elements)
        case .managed(let home):
            guard let (context, pending) = home.pendingForWrite() else { return }
            objdbPrecondition(
                subrange.lowerBound >= 0 && subrange.upperBound <= pending.elements.count,
                "List range \(subrange) out of range 0..<\(pending.elements.count) of '\(home.propertyName)'")
            var stored: [StoredElement] = []
            stored.reserveCapacity(newElements.count)
            for element in newElements {
                guard let value = home.storedElement(element, context, pending) else { return }
                stored.append(value)
            }
            pending.elements.replaceSubrange(subrange, with: stored)
            if !subrange.isEmpty { pending.record(.erase(at: subrange.lowerBound, count: subrange.count)) }
            if !stored.isEmpty { pending.record(.insert(at: subrange.lowerBound, count: stored.count)) }
        }
    }

    /// Appends an element. - Complexity: amortized O(1).
    public func append(_ newElement: Element) {
        if case .managed(let home) = backing {
            guard let (context, pending) = home.pendingForWrite(), let value = home.storedElement(newElement, context, pending) else { return }
            pending.elements.append(value)
            pending.record(.insert(at: pending.elements.count - 1, count: 1))
            return
        }
        replaceSubrange(count..<count, with: CollectionOfOne(newElement))
    }

    /// Appends the elements of a sequence.
    public func append<S: Sequence>(contentsOf newElements: S) where S.Element == Element {
        let elements = Array(newElements)
        replaceSubrange(count..<count, with: elements)
    }

    /// Inserts an element at `i`.
    public func insert(_ newElement: Element, at i: Int) {
        replaceSubrange(i..<i, with: CollectionOfOne(newElement))
    }

    /// Inserts the elements of a collection at `i`.
    public func insert<C: Collection>(contentsOf newElements: C, at i: Int) where C.Element == Element {
        replaceSubrange(i..<i, with: newElements)
    }

    /// Removes and returns the element at `i`.
    @discardableResult
    public func remove(at i: Int) -> Element {
        let element = self[i]
        replaceSubrange(i..<i + 1, with: EmptyCollection())
        return element
    }

    /// Removes the elements in `bounds`.
    public func removeSubrange(_ bounds: Range<Int>) {
        replaceSubrange(bounds, with: EmptyCollection())
    }

    /// Removes and returns the first element; the list must not be empty.
    @discardableResult
    public func removeFirst() -> Element { remove(at: 0) }

    /// Removes and returns the last element; the list must not be empty.
    @discardableResult
    public func removeLast() -> Element { remove(at: count - 1) }

    /// Removes every element.
    public func removeAll() {
        replaceSubrange(0..<count, with: EmptyCollection())
    }

    /// Removes every element that satisfies `predicate`.
    public func removeAll(where predicate: (Element) throws -> Bool) rethrows {
        var index = count - 1
        while index >= 0 {
            if try predicate(self[index]) { remove(at: index) }
            index -= 1
        }
    }

    /// Moves the element at `from` so that it ends up at `to` (both in `0..<count`).
    public func move(from: Int, to: Int) {
        objdbPrecondition(indices.contains(from) && indices.contains(to), "List.move(from: \(from), to: \(to)) out of range 0..<\(count)")
        guard from != to else { return }
        if case .managed(let home) = backing {
            guard let (_, pending) = home.pendingForWrite() else { return }
            let element = pending.elements.remove(at: from)
            pending.elements.insert(element, at: to)
            pending.record(.move(from: from, to: to))
            return
        }
        let element = remove(at: from)
        insert(element, at: to)
    }

    /// Exchanges the elements at `i` and `j`.
    public func swapAt(_ i: Int, _ j: Int) {
        objdbPrecondition(indices.contains(i) && indices.contains(j), "List.swapAt(\(i), \(j)) out of range 0..<\(count)")
        guard i != j else { return }
        if case .managed(let home) = backing {
            guard let (_, pending) = home.pendingForWrite() else { return }
            pending.elements.swapAt(i, j)
            // As Realm records a swap: two moves.
            let (low, high) = (Swift.min(i, j), Swift.max(i, j))
            pending.record(.move(from: low, to: high))
            if low + 1 != high { pending.record(.move(from: high - 1, to: low)) }
            return
        }
        let first = self[i]
        self[i] = self[j]
        self[j] = first
    }

    /// The position of the first element equal to `element` (objects: the same stored object).
    public func index(of element: Element) -> Int? {
        var writer = _ObjDBElementWriter()
        let wanted = ElementIdentity(element, &writer)
        return indices.first { ElementIdentity(self[$0], &writer) == wanted }
    }
}
