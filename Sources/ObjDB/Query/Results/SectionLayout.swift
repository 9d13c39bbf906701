import Foundation

/// The sections of one version: each section's key, and where its objects are in the results.
///
/// Two storages. When each section's objects are consecutive — always for
/// `sectioned(by: keyPath)`, whose results are sorted by the key first, and for a block key that
/// follows the sort — a section is a range of rows, and the layout holds one start per section
/// (``Storage/runs(starts:)``): an observer can then move it to the next version in time
/// proportional to the change and the number of sections (``IncrementalSections``). Otherwise
/// (a block key that does not follow the sort) the layout lists each section's rows and each
/// row's section (``Storage/scattered(rows:sectionOfRow:itemOfRow:)``).
///
/// Per object it holds integers only: the code is generic over `Key` and, called from another
/// module, unspecialized, so keys are compared once per section boundary, not once per object.
struct SectionLayout<Key: Hashable> {
    /// The key of each section.
    private(set) var keys: [Key] = []
    /// The index of each key's section.
    private(set) var sectionOfKey: [Key: Int] = [:]
    /// The results' object keys.
    let objectKeys: [UInt64]
    /// Where each section's objects are.
    private(set) var storage: Storage

    /// Where each section's objects are in the results.
    enum Storage {
        /// Section `s` holds the rows `starts[s]..<starts[s + 1]`; the last entry is the number
        /// of objects.
        case runs(starts: [Int])
        /// The rows of each section, ascending; the section of each row and its position in it.
        case scattered(rows: [[Int]], sectionOfRow: [Int], itemOfRow: [Int])
    }

    /// Groups the objects by key id: `ids[row]` is an index into `keyOfID`, the keys (an id
    /// names one key; a key may have several ids). One pass of integer work, and a dictionary
    /// entry per section; a second pass only when sections interleave.
    init(objectKeys: [UInt64], ids: [Int], keyOfID: [Key]) {
        self.objectKeys = objectKeys
        var sectionOfRow: [Int] = []
        sectionOfRow.reserveCapacity(ids.count)
        var starts: [Int] = []
        var sectionOfID = [Int](repeating: -1, count: keyOfID.count)
        var lastID = -1, lastSection = -1
        var consecutive = true
        for (row, id) in ids.enumerated() {
            let section: Int
            if id == lastID {
                section = lastSection
            } else if sectionOfID[id] >= 0 {
                section = sectionOfID[id]
            } else if let known = sectionOfKey[keyOfID[id]] {
                // Another id of a key already placed.
                section = known
                sectionOfID[id] = known
            } else {
                section = keys.count
                sectionOfID[id] = section
                sectionOfKey[keyOfID[id]] = section
                keys.append(keyOfID[id])
                starts.append(row)
            }
            // A section's objects are consecutive unless one comes back after another section.
            // (Leaving the newest section is going to a newer one, or back to an older one.)
            if section != lastSection && section != keys.count - 1 { consecutive = false }
            lastID = id
            lastSection = section
            sectionOfRow.append(section)
        }
        if consecutive {
            storage = .runs(starts: starts + [ids.count])
            return
        }
        var rows = [[Int]](repeating: [], count: keys.count)
        var itemOfRow: [Int] = []
        itemOfRow.reserveCapacity(ids.count)
        for (row, section) in sectionOfRow.enumerated() {
            itemOfRow.append(rows[section].count)
            rows[section].append(row)
        }
        storage = .scattered(rows: rows, sectionOfRow: sectionOfRow, itemOfRow: itemOfRow)
    }

    /// Groups the objects by their keys, one per object: an object belongs to the section of its
    /// key, sections in the order of their first object.
    init(objectKeys: [UInt64], sectionKeys: [Key]) {
        var ids: [Int] = []
        ids.reserveCapacity(sectionKeys.count)
        var keyOfID: [Key] = []
        var idOfKey: [Key: Int] = [:]
        for key in sectionKeys {
            // Consecutive objects of one section, the usual case, skip the dictionary.
            if let lastID = ids.last, keyOfID[lastID] == key {
                ids.append(lastID)
            } else if let known = idOfKey[key] {
                ids.append(known)
            } else {
                idOfKey[key] = keyOfID.count
                ids.append(keyOfID.count)
                keyOfID.append(key)
            }
        }
        self.init(objectKeys: objectKeys, ids: ids, keyOfID: keyOfID)
    }

    /// Consecutive sections with these keys and starts (`starts` has one more entry, the number
    /// of objects); `sectionOfKey` is theirs, when the caller has it already.
    init(objectKeys: [UInt64], keys: [Key], starts: [Int], sectionOfKey: [Key: Int]? = nil) {
        self.objectKeys = objectKeys
        self.keys = keys
        self.sectionOfKey = sectionOfKey ?? Dictionary(uniqueKeysWithValues: zip(keys, keys.indices))
        storage = .runs(starts: starts)
    }

    /// The number of objects in section `section`.
    func count(ofSection section: Int) -> Int {
        switch storage {
        case .runs(let starts): starts[section + 1] - starts[section]
        case .scattered(let rows, _, _): rows[section].count
        }
    }

    /// The row in the results of the object at `item` of section `section`.
    func row(item: Int, inSection section: Int) -> Int {
        switch storage {
        case .runs(let starts): starts[section] + item
        case .scattered(let rows, _, _): rows[section][item]
        }
    }

    /// The section of the object at `row` of the results.
    ///
    /// - Complexity: O(log s) for s consecutive sections (a binary search); O(1) otherwise.
    func section(ofRow row: Int) -> Int {
        switch storage {
        case .runs(let starts):
            // The last section starting at or before `row`.
            var low = 0, high = starts.count - 1
            while high - low > 1 {
                let middle = (low + high) / 2
                if starts[middle] <= row { low = middle } else { high = middle }
            }
            return low
        case .scattered(_, let sectionOfRow, _):
            return sectionOfRow[row]
        }
    }

    /// The section of every row of the results, in one pass.
    func sectionOfEachRow() -> [Int] {
        switch storage {
        case .runs(let starts):
            var sections: [Int] = []
            sections.reserveCapacity(objectKeys.count)
            for section in keys.indices {
                sections.append(contentsOf: repeatElement(section, count: starts[section + 1] - starts[section]))
            }
            return sections
        case .scattered(_, let sectionOfRow, _):
            return sectionOfRow
        }
    }

    /// The index path of the object at `row` of the results.
    func indexPath(ofRow row: Int) -> IndexPath {
        switch storage {
        case .runs(let starts):
            let section = section(ofRow: row)
            return IndexPath(indexes: [section, row - starts[section]])
        case .scattered(_, let sectionOfRow, let itemOfRow):
            return IndexPath(indexes: [sectionOfRow[row], itemOfRow[row]])
        }
    }

    /// Whether `other` has the same sections: the same keys in the same order, the same objects,
    /// each in the same section at the same position (for internal checks).
    func hasSameSections(as other: SectionLayout) -> Bool {
        keys == other.keys && objectKeys == other.objectKeys
            && objectKeys.indices.allSatisfy { indexPath(ofRow: $0) == other.indexPath(ofRow: $0) }
    }
}
