/// What one or more commits changed: per class, the objects inserted, deleted and modified
/// (with the columns written).
///
/// Object keys are never reused, so the change sets of consecutive commits compose as sets
/// (``append(_:)``): an object inserted and deleted in between is neither, one inserted and
/// then modified is only inserted, one modified and then deleted is only deleted.
struct ChangeSet: Sendable, Equatable {
    /// Per class id.
    var classes: [UInt32: ClassChangeSet] = [:]
    /// Whether a commit changed the stored schema (columns may have moved).
    var schemaChanged = false

    /// Whether no commit changed anything.
    var isEmpty: Bool { !schemaChanged && classes.values.allSatisfy(\.isEmpty) }

    /// The changes of class `classID`, empty if it has none.
    subscript(classID: UInt32) -> ClassChangeSet { classes[classID] ?? ClassChangeSet() }

    /// Adds the changes of a later commit.
    mutating func append(_ later: ChangeSet) {
        schemaChanged = schemaChanged || later.schemaChanged
        for (classID, change) in later.classes {
            if var earlier = classes[classID] {
                earlier.append(change)
                classes[classID] = earlier
            } else {
                classes[classID] = change
            }
        }
    }
}

/// What commits changed in one class.
struct ClassChangeSet: Sendable, Equatable {
    /// Objects that did not exist before and do now.
    var inserted = KeyRanges()
    /// Objects that existed before and do not now.
    var deleted = KeyRanges()
    /// Objects that existed before and still do, with the columns written (a write that stored
    /// the same value counts, as in Realm).
    var modified: [UInt64: ColumnSet] = [:]
    /// Set when the commit changed more objects than the log lists one by one: any object that
    /// existed before and still does may have changed in these columns.
    var unlistedModifications: ColumnSet?
    /// The edits of lists, sets and maps of objects that existed before and still do, per object
    /// and column, in order (``ListEdit``). A collection changed without edits listed here
    /// (written another way than by its methods, or past ``ListEdit/limit``) is compared between
    /// the two versions instead.
    var listEdits: [UInt64: [Int: [ListEdit]]] = [:]

    /// Whether nothing changed.
    var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && modified.isEmpty && unlistedModifications == nil }

    /// The columns `key` may have changed in: its own entry, or every column the unlisted
    /// modifications name; `nil` if it cannot have changed.
    func modifiedColumns(of key: UInt64) -> ColumnSet? {
        if let unlisted = unlistedModifications {
            guard !inserted.contains(key), !deleted.contains(key) else { return nil }
            var columns = unlisted
            if let listed = modified[key] { columns.formUnion(listed) }
            return columns
        }
        return modified[key]
    }

    /// Adds the changes of a later commit (see ``ChangeSet``).
    mutating func append(_ later: ClassChangeSet) {
        appendListEdits(later)
        let bornHere = inserted
        // Deleted later: gone for good, unless it was born in between (then it never was).
        deleted.formUnion(later.deleted.subtracting(bornHere))
        inserted = inserted.union(later.inserted).subtracting(later.deleted)
        for key in modified.keys where later.deleted.contains(key) { modified[key] = nil }
        for (key, columns) in later.modified where !bornHere.contains(key) {
            modified[key, default: ColumnSet()].formUnion(columns)
        }
        if let unlisted = later.unlistedModifications {
            var columns = unlistedModifications ?? ColumnSet()
            columns.formUnion(unlisted)
            unlistedModifications = columns
        }
    }
}

extension ClassChangeSet {
    /// Adds the list edits of a later commit: a list's edits go on only while every commit that
    /// changed it listed its edits (before the later commit's modifications are merged).
    fileprivate mutating func appendListEdits(_ later: ClassChangeSet) {
        if later.unlistedModifications != nil {
            listEdits = [:]
            return
        }
        for (key, columns) in later.listEdits where !inserted.contains(key) {
            for (column, edits) in columns {
                // Changed before without edits: the later edits do not start from the old list.
                let changedUnlisted = modifiedColumns(of: key)?.contains(column) == true && listEdits[key]?[column] == nil
                if changedUnlisted { continue }
                // Past the limit, compared instead (and kept out: the column stays changed
                // without edits).
                guard (listEdits[key]?[column]?.count ?? 0) + edits.count <= ListEdit.limit else {
                    listEdits[key]?[column] = nil
                    continue
                }
                listEdits[key, default: [:]][column, default: []].append(contentsOf: edits)
            }
        }
        // Changed later without edits, or deleted: compared instead.
        for (key, columns) in later.modified where listEdits[key] != nil {
            for column in columns.columns where later.listEdits[key]?[column] == nil { listEdits[key]?[column] = nil }
        }
        for key in listEdits.keys where later.deleted.contains(key) { listEdits[key] = nil }
    }
}

/// A set of object keys as sorted, disjoint, non-adjacent ranges: compact for what commits
/// insert (keys are handed out in order) and for what `deleteAll()` removes.
struct KeyRanges: Sendable, Equatable {
    /// The ranges, ascending.
    private(set) var ranges: [ClosedRange<UInt64>] = []

    init() {}

    /// The keys of `keys`, which need not be sorted or distinct.
    init(_ keys: some Sequence<UInt64>) {
        for key in keys.sorted() where ranges.last.map({ key > $0.upperBound }) ?? true { append(key...key) }
    }

    /// Whether there is no key.
    var isEmpty: Bool { ranges.isEmpty }

    /// The number of keys.
    var count: UInt64 {
        // Saturating: a damaged log entry may describe more keys than a UInt64 counts.
        ranges.reduce(0) { total, range in
            let (length, overflow) = (range.upperBound - range.lowerBound).addingReportingOverflow(1)
            let (sum, overflowAgain) = total.addingReportingOverflow(length)
            return overflow || overflowAgain ? UInt64.max : sum
        }
    }

    /// Every key, ascending. Only for sets known to be small.
    var keys: [UInt64] { ranges.flatMap { Array($0) } }

    /// Whether `key` is in the set.
    ///
    /// - Complexity: O(log r) for r ranges.
    func contains(_ key: UInt64) -> Bool {
        var low = 0, high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < key { low = middle + 1 } else { high = middle }
        }
        return low < ranges.count && ranges[low].contains(key)
    }

    /// Adds `range`, which must start after every key in the set (merged with the last range
    /// when adjacent).
    mutating func append(_ range: ClosedRange<UInt64>) {
        if let last = ranges.last {
            precondition(range.lowerBound > last.upperBound, "KeyRanges.append: ranges must ascend")
            if last.upperBound &+ 1 == range.lowerBound {
                ranges[ranges.count - 1] = last.lowerBound...range.upperBound
                return
            }
        }
        ranges.append(range)
    }

    /// The keys in either set.
    func union(_ other: KeyRanges) -> KeyRanges {
        if other.isEmpty { return self }
        if isEmpty { return other }
        var result = KeyRanges()
        for range in (ranges + other.ranges).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.ranges.last, last.upperBound == .max || range.lowerBound <= last.upperBound + 1 {
                result.ranges[result.ranges.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                result.ranges.append(range)
            }
        }
        return result
    }

    /// Adds the keys of `other`.
    mutating func formUnion(_ other: KeyRanges) { self = union(other) }

    /// The keys of this set that are not in `other`.
    func subtracting(_ other: KeyRanges) -> KeyRanges {
        if isEmpty || other.isEmpty { return self }
        var result = KeyRanges()
        var j = 0
        for range in ranges {
            var start = range.lowerBound
            let end = range.upperBound
            var done = false
            while j < other.ranges.count && other.ranges[j].upperBound < start { j += 1 }
            var k = j
            while !done, k < other.ranges.count, other.ranges[k].lowerBound <= end {
                let cut = other.ranges[k]
                if cut.lowerBound > start { result.ranges.append(start...(cut.lowerBound - 1)) }
                if cut.upperBound >= end {
                    done = true
                } else {
                    start = cut.upperBound + 1
                    k += 1
                }
            }
            if !done { result.ranges.append(start...end) }
        }
        return result
    }
}
