/// The objects of one class, live and lazily evaluated.
///
/// ```swift
/// let people = db.objects(Person.self)
/// people.count            // O(1), no objects read
/// people.first?.name
/// for person in people { … }   // reads rows straight from the file, one object at a time
/// ```
///
/// Results always reflect the current version of their ``Database``, including the changes of
/// its write transaction in progress. Iterating creates a new object per row and keeps none, so
/// it runs in constant memory.
public struct Results<Element: Object>: RandomAccessCollection, CustomStringConvertible {
    /// The database the results read.
    public let database: Database
    private let cache = ResultsCache()

    init(database: Database) {
        self.database = database
    }

    /// The class's runtime information, `nil` while the file has no objects of the class yet.
    var classInfo: ClassInfo? { database.classInfoForRead(Element.self) }

    /// `0`.
    public var startIndex: Int { 0 }

    /// The number of objects.
    public var endIndex: Int { count }

    /// The number of objects. - Complexity: O(1).
    public var count: Int {
        guard let info = classInfo else { return 0 }
        return database.objectCount(info)
    }

    /// Whether there are no objects. - Complexity: O(1).
    public var isEmpty: Bool { count == 0 }

    /// The object at `position`, in object-key (insertion) order.
    ///
    /// - Complexity: O(log n) once the keys of the current version are known; the first access
    ///   after a change reads the keys, O(n).
    public subscript(position: Int) -> Element {
        let keys = objectKeys()
        precondition(position >= 0 && position < keys.count, "Results index \(position) out of range 0..<\(keys.count)")
        guard let info = classInfo, let row = database.fetchRow(info, key: keys[position]) else {
            preconditionFailure("Results: object \(keys[position]) vanished")
        }
        return database.materialize(Element.self, info, key: keys[position], row: row)
    }

    /// The first object, read directly.
    public var first: Element? { edge(last: false) }

    /// The last object, read directly.
    public var last: Element? { edge(last: true) }

    /// The position of `object`, if it is one of these results.
    public func index(of object: Element) -> Int? {
        guard object._objdbDatabase === database, let info = classInfo, object._objdbInfo === info else { return nil }
        let keys = objectKeys()
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < object._objdbKey { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == object._objdbKey ? low : nil
    }

    /// `Results<Person> (3 objects)`.
    public var description: String { "Results<\(Element.className)> (\(count) objects)" }

    /// Iterates over the objects of the current version.
    public func makeIterator() -> Iterator { Iterator(database: database, info: classInfo) }

    /// The object keys of the current version, cached until it changes.
    func objectKeys() -> [UInt64] {
        if let keys = cache.keys, cache.generation == database.generation { return keys }
        var keys: [UInt64] = []
        if let info = classInfo, let txn = database.readableTxn(), let cursor = try? Cursor(txn, info.tables.objects) {
            keys.reserveCapacity(database.objectCount(info))
            var entry = try? cursor.first()
            while let current = entry {
                keys.append(current.objectKey)
                entry = try? cursor.next()
            }
        }
        cache.keys = keys
        cache.generation = database.generation
        return keys
    }

    private func edge(last: Bool) -> Element? {
        guard let info = classInfo, let txn = database.readableTxn(), let cursor = try? Cursor(txn, info.tables.objects),
            let entry = try? (last ? cursor.last() : cursor.first())
        else { return nil }
        return database.materialize(Element.self, info, key: entry.objectKey, row: RowView(entry.value) ?? .damaged)
    }
}

/// Keys cached by a ``Results`` for one database generation.
final class ResultsCache {
    var generation: UInt64 = 0
    var keys: [UInt64]?
}
