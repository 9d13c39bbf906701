import Foundation

/// Sorted ``Results`` divided into sections by a key computed from each object, as Realm Swift's
/// `SectionedResults`: the data of a sectioned `UITableView` or a SwiftUI `List` with `Section`s.
///
/// ```swift
/// let sections = people.sectioned(by: \.initial, ascending: true)   // SectionedResults<String, Person>
/// sections.allKeys                          // ["A", "B", …]
/// sections[0].key                           // "A"
/// sections[0][0]                            // the first person of section "A"
/// sections[IndexPath(item: 0, section: 0)]  // the same
/// for section in sections { print(section.key, section.count) }
/// ```
///
/// Live like the results it divides: every read shows the current version. The sections are
/// computed on the first read after a change — one pass over the objects, calling the key for
/// each — and kept, shared by every copy, until the database moves to another version. Sections
/// are in the order of their first object; an object belongs to the section of its key, so a
/// key that is consistent with the sort (the usual case: a property, or a prefix of the first
/// sort key) gives sections of consecutive objects. Observe it with `observe(_:)` for Realm's
/// index paths (``SectionedResultsChange``).
public struct SectionedResults<Key: Hashable, SectionElement: ObjectBase>: RandomAccessCollection, CustomStringConvertible {
    /// One section: ``ResultsSection``.
    public typealias Element = ResultsSection<Key, SectionElement>

    /// The sorted results the sections divide.
    public let results: Results<SectionElement>
    /// The key of an object's section.
    let sectionKey: (SectionElement) -> Key
    /// The property the sections are by, for `sectioned(by:)` with a key path: observing with
    /// key paths watches it too.
    let keyProperty: String?
    /// The layout of the version last read, shared by copies.
    let cache: SectionLayoutCache<Key>

    /// Sections of `results` (sorted already) by `sectionKey`.
    init(results: Results<SectionElement>, keyProperty: String? = nil, sectionKey: @escaping (SectionElement) -> Key) {
        self.results = results
        self.keyProperty = keyProperty
        self.sectionKey = sectionKey
        cache = SectionLayoutCache()
    }

    /// `0`.
    public var startIndex: Int { 0 }

    /// The number of sections.
    public var endIndex: Int { count }

    /// The number of sections.
    ///
    /// - Complexity: O(1) once the sections of the current version are known; the first read
    ///   after a change reads every object once.
    public var count: Int { layout().keys.count }

    /// The key of every section, in section order.
    public var allKeys: [Key] { layout().keys }

    /// The section at `position`.
    public subscript(position: Int) -> ResultsSection<Key, SectionElement> {
        let keys = layout().keys
        objdbPrecondition(position >= 0 && position < keys.count, "SectionedResults index \(position) out of range 0..<\(keys.count)")
        return ResultsSection(parent: self, key: keys[position])
    }

    /// The object at `indexPath`: `indexPath.section`'s section, `indexPath.item`'s object.
    public subscript(indexPath: IndexPath) -> SectionElement {
        objdbPrecondition(indexPath.count == 2, "SectionedResults: the index path \(indexPath) is not a section and an item")
        return self[indexPath[0]][indexPath[1]]
    }

    /// Whether the results can no longer be read: those of a list, a set or linking objects
    /// whose object was deleted.
    public var isInvalidated: Bool {
        switch results.query.source {
        case .table: false
        case .collection(let home): home.isInvalidated
        case .linkingObjects(let target, _, _): target.isInvalidated
        }
    }

    /// `SectionedResults<Person> (3 sections)`.
    public var description: String { "SectionedResults<\(results.query.className)> (\(count) sections)" }

    /// The sections of the current version, computed once per version.
    func layout() -> SectionLayout<Key> {
        let stamp = results.database.resultsStamp
        if let layout = cache.layout, cache.stamp == stamp { return layout }
        let keys = results.objectKeys()
        var sectionKeys: [Key] = []
        sectionKeys.reserveCapacity(keys.count)
        // By position, as the keys: an iteration skips objects it cannot read.
        for row in keys.indices { sectionKeys.append(sectionKey(results[row])) }
        let layout = SectionLayout(objectKeys: keys, sectionKeys: sectionKeys)
        adopt(layout)
        return layout
    }

    /// Makes `layout` the sections of the current version (an observer computed it).
    func adopt(_ layout: SectionLayout<Key>) {
        cache.layout = layout
        cache.stamp = results.database.resultsStamp
    }
}

/// The objects of one section of a ``SectionedResults``: those whose section key is ``key``, in
/// the results' order.
///
/// ```swift
/// let section = sections[0]
/// print(section.key, section.count, section.first?.name ?? "")
/// ```
///
/// Live, and found again by its key: after a change it shows the objects that have that key
/// now, wherever its section moved; when no object has it any more the section is empty and
/// ``isInvalidated``.
public struct ResultsSection<Key: Hashable, Element: ObjectBase>: RandomAccessCollection, Identifiable, CustomStringConvertible {
    /// The sectioned results the section belongs to.
    let parent: SectionedResults<Key, Element>
    /// The key every object of the section has.
    public let key: Key

    /// The section of `parent` with `key` (which it may not have, or no longer).
    init(parent: SectionedResults<Key, Element>, key: Key) {
        self.parent = parent
        self.key = key
    }

    /// The key, which identifies the section among its results' sections.
    public var id: Key { key }

    /// `0`.
    public var startIndex: Int { 0 }

    /// The number of objects.
    public var endIndex: Int { count }

    /// The number of objects; `0` once no object has the key.
    public var count: Int {
        let layout = parent.layout()
        return layout.sectionOfKey[key].map { layout.count(ofSection: $0) } ?? 0
    }

    /// The object at `position`.
    public subscript(position: Int) -> Element {
        let layout = parent.layout()
        let section = layout.sectionOfKey[key]
        let count = section.map { layout.count(ofSection: $0) } ?? 0
        objdbPrecondition(position >= 0 && position < count, "ResultsSection index \(position) out of range 0..<\(count)")
        // The precondition holds, so the section exists.
        return parent.results[layout.row(item: position, inSection: section ?? 0)]
    }

    /// Whether the section can no longer be read: no object has its key any more, or its
    /// results are invalidated.
    public var isInvalidated: Bool {
        parent.isInvalidated || parent.layout().sectionOfKey[key] == nil
    }

    /// The sectioned results the section belongs to.
    public var sectionedResults: SectionedResults<Key, Element> { parent }

    /// `ResultsSection<Person> "A" (2 objects)`.
    public var description: String { "ResultsSection<\(parent.results.query.className)> \"\(key)\" (\(count) objects)" }
}

#if !canImport(Darwin)
extension IndexPath {
    /// The index path of `item` in `section`, as UIKit and AppKit declare it on Apple platforms
    /// (for ``SectionedResults`` elsewhere, where neither exists).
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The section: the first index.
    public var section: Int {
        get { self[0] }
        set { self[0] = newValue }
    }

    /// The item in the section: the second index.
    public var item: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
}
#endif

/// The layout a ``SectionedResults`` computed, for one version (``Database/resultsStamp``).
/// Used in its results' isolation domain only, like the results' own cache.
final class SectionLayoutCache<Key: Hashable> {
    /// The version ``layout`` belongs to.
    @exclusivity(unchecked) var stamp: (UInt64, UInt64) = (0, 0)
    /// The sections of that version; `nil` before the first read.
    @exclusivity(unchecked) var layout: SectionLayout<Key>?
}

extension Results {
    /// The results divided into sections by the value of `keyPath`, sorted by it (`ascending`
    /// or not) and then by the results' own sort, as Realm's `sectioned(by:ascending:)`.
    ///
    /// ```swift
    /// let byName = people.sectioned(by: \.name)                 // one section per name
    /// let byInitial = people.sectioned(by: \.initial)           // a computed `String(name.prefix(1))`
    /// ```
    ///
    /// `keyPath` names a `@Persisted` property, or a computed property of the same type that
    /// reads one (the sort is by that property); any other key path is a programmer error —
    /// use ``sectioned(by:sortDescriptors:)-(((Element)->Key),_)`` with a block instead.
    public func sectioned<Key: Hashable>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true) -> SectionedResults<Key, Element> {
        let name = Self.sectionProperty(keyPath, "sectioned(by:ascending:)")
        let own = query.sort.filter { $0.keyPath != name }
        return SectionedResults(results: sorted(by: [SortDescriptor(keyPath: name, ascending: ascending)] + own), keyProperty: name) { $0[keyPath: keyPath] }
    }

    /// The results divided into sections by the value of `keyPath`, sorted by `sortDescriptors`,
    /// whose first one must sort by `keyPath`'s property (a programmer error otherwise, as in
    /// Realm).
    public func sectioned<Key: Hashable>(by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        let name = Self.sectionProperty(keyPath, "sectioned(by:sortDescriptors:)")
        objdbPrecondition(!sortDescriptors.isEmpty, "sectioned(by:sortDescriptors:) was given no sort descriptor; sections need sorted results: pass at least one")
        objdbPrecondition(
            sortDescriptors[0].keyPath == name,
            "sectioned(by:sortDescriptors:): the first sort descriptor sorts by '\(sortDescriptors[0].keyPath)', but the sections are by '\(name)'; the section key path must be the first sort key")
        return SectionedResults(results: sorted(by: sortDescriptors), keyProperty: name) { $0[keyPath: keyPath] }
    }

    /// The results sorted by `sortDescriptors` and divided into sections by the key `block`
    /// computes for each object, as Realm's `sectioned(by:sortDescriptors:)` with a block.
    ///
    /// ```swift
    /// let byDecade = people.sectioned(by: { ($0.age ?? 0) / 10 * 10 },
    ///                                 sortDescriptors: [SortDescriptor(keyPath: "age")])
    /// ```
    ///
    /// An object belongs to the section of its key; give a key consistent with the sort (here,
    /// the decade of the age the results are sorted by) for sections of consecutive objects.
    /// `block` is called once per object on the first read after each change, in this
    /// isolation domain. Empty `sortDescriptors` is a programmer error, as in Realm.
    public func sectioned<Key: Hashable>(
        by block: @escaping (Element) -> Key, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        objdbPrecondition(!sortDescriptors.isEmpty, "sectioned(by:sortDescriptors:) was given no sort descriptor; sections need sorted results: pass at least one")
        return SectionedResults(results: sorted(by: sortDescriptors), sectionKey: block)
    }

    /// The property `keyPath` sorts by; one it does not name is a programmer error.
    private static func sectionProperty<Key>(_ keyPath: KeyPath<Element, Key>, _ function: String) -> String {
        guard let name = KeyPathNames.name(of: keyPath) else {
            objdbFatal("\(function): the key path does not name a @Persisted property of \(Element.className), so there is nothing to sort the sections by; use sectioned(by: { … }, sortDescriptors: […]) with a block")
        }
        return name
    }
}
