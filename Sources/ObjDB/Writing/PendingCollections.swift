/// Identifies one collection column of one stored object.
struct CollectionSlot: Hashable {
    let classID: UInt32
    let key: UInt64
    let column: Int
}

/// A collection column changed in a write transaction and not written back yet.
///
/// Changing a managed ``List``, ``MutableSet`` or ``Map`` edits this in-memory copy; the row is
/// written once, when the transaction commits or before anything reads the column another way
/// (a delete, an upsert, a query, linking objects). So appending to a large list in a loop costs
/// O(1) per element instead of rewriting the list each time.
final class PendingCollection {
    /// The class of the object.
    let info: ClassInfo
    /// The object.
    let key: UInt64
    /// The column.
    let column: Int
    /// Elements of a list or set; values of a map.
    @exclusivity(unchecked) var elements: [StoredElement]
    /// Keys of a map (UTF-8), ascending bytewise, parallel to ``elements``.
    @exclusivity(unchecked) var mapKeys: [[UInt8]] = []
    /// Members of a set, for O(1) membership tests (see ``member(_:)``).
    @exclusivity(unchecked) var members: Set<StoredElement> = []
    /// Whether the collection is a set of mixed values, whose numbers are members by value.
    let hasMixedMembers: Bool
    /// Embedded objects created by adding them to this collection: if they are gone from it by
    /// the time it is written back, nothing owns them and they are deleted.
    @exclusivity(unchecked) var addedEmbedded: [UInt64] = []
    /// The edits of the collection since the copy was made (``ListEdit``), for notifications;
    /// handed to the write context when the copy is written back.
    @exclusivity(unchecked) var edits: [ListEdit] = []
    /// Set when ``edits`` passed ``ListEdit/limit``: the list's notifications compare versions.
    @exclusivity(unchecked) var editsOverflowed = false

    /// Whether edits are recorded: for the collections whose notifications use them, lists,
    /// sets of objects and maps (a list's edits also tell the outbox of a synced file which
    /// elements were appended).
    private(set) lazy var recordsEdits: Bool = {
        switch info.columnKinds[column] {
        case .list: return true
        case .set: return info.linkTargets[column] != nil
        case .map: return true
        case .value, .link: return false
        }
    }()

    /// Records an edit of the collection.
    @inline(__always)
    func record(_ edit: ListEdit) {
        guard recordsEdits else { return }
        if !editsOverflowed && !ListEdit.append(edit, to: &edits) {
            editsOverflowed = true
            edits = []
        }
    }

    init(info: ClassInfo, key: UInt64, column: Int, stored: ColumnRead) {
        self.info = info
        self.key = key
        self.column = column
        hasMixedMembers = info.columnKinds[column] == .set && info.stored.properties[column].type == .mixed
        switch info.columnKinds[column] {
        case .map:
            let map = MapView(stored)
            elements = [StoredElement](map.values)
            mapKeys = (0..<map.count).map { i in
                if case .value(let bytes) = map.keys.element(i) { return Array(bytes) }
                return []
            }
        case .set:
            elements = [StoredElement](SequenceView(stored))
            members = Set(elements.map { hasMixedMembers ? MixedFormat.setMember($0) : $0 })
        default:
            elements = [StoredElement](SequenceView(stored))
        }
    }

    /// The identity of `element` in a set of column `column`: for mixed values, numbers by their
    /// value (``MixedFormat/setMember(_:)``); otherwise the element itself.
    @inline(__always)
    static func member(_ element: StoredElement, _ info: ClassInfo, _ column: Int) -> StoredElement {
        info.stored.properties[column].type == .mixed ? MixedFormat.setMember(element) : element
    }

    /// The identity of `element` in this set (see ``member(_:_:_:)``).
    @inline(__always)
    func member(_ element: StoredElement) -> StoredElement { hasMixedMembers ? MixedFormat.setMember(element) : element }

    /// The position of map key `key`, or where it would be inserted.
    func mapIndex(of key: [UInt8]) -> (index: Int, found: Bool) {
        var low = 0
        var high = mapKeys.count
        while low < high {
            let middle = (low + high) / 2
            let order = mapKeys[middle].withUnsafeBytes { a in key.withUnsafeBytes { b in compareBytes(a, b) } }
            if order == 0 { return (middle, true) }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return (low, false)
    }

    /// The column bytes.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        if info.columnKinds[column] == .map {
            MapFormat.appendMap(keys: mapKeys.map { StoredElement(bytes: $0) }, values: elements, to: &bytes)
        } else {
            elements.appendEncoded(to: &bytes)
        }
        return bytes
    }
}

extension Database {
    /// The pending copy of a collection column, creating it from the stored column when
    /// `create` is set. `nil` outside a write transaction.
    func pendingCollection(_ info: ClassInfo, key: UInt64, column: Int, stored: () -> ColumnRead, create: Bool) -> PendingCollection? {
        guard let context = writeContext else { return nil }
        let slot = CollectionSlot(classID: info.classID, key: key, column: column)
        if let pending = context.pending.collections[slot] { return pending }
        guard create else { return nil }
        let pending = PendingCollection(info: info, key: key, column: column, stored: stored())
        context.pending.collections[slot] = pending
        return pending
    }

    /// Writes every pending collection back into its row, then the logged secondary-index
    /// entries (``PendingIndexEntries``) and full-text postings (``PendingFullText``). Called before anything that reads collection columns
    /// from rows or reads index tables, and at commit.
    func flushPendingWrites(_ context: WriteContext) throws {
        try flushPendingCollections(context)
        if !context.pending.index.isEmpty {
            try context.storage { txn in try flushPendingIndexEntries(context, txn) }
        }
        if !context.pending.fullText.isEmpty {
            try context.storage { txn in try flushPendingFullText(context, txn) }
        }
    }

    /// Writes every pending collection back into its row, leaving logged index entries logged:
    /// before an insert, which reads no index.
    func flushPendingCollections(_ context: WriteContext) throws {
        guard !context.pending.collections.isEmpty else { return }
        let pending = context.pending.collections.values.sorted { ($0.info.classID, $0.key, $0.column) < ($1.info.classID, $1.key, $1.column) }
        context.pending.collections.removeAll()
        context.pending.writesBackCollections = true
        defer { context.pending.writesBackCollections = false }
        for collection in pending {
            if collection.editsOverflowed || !collection.edits.isEmpty {
                context.pending.addListEdits(
                    CollectionSlot(classID: collection.info.classID, key: collection.key, column: collection.column), collection.edits,
                    overflowed: collection.editsOverflowed)
            }
            if let old = rows.fetch(collection.info, key: collection.key) {
                let bytes = collection.encoded()
                _ = try bytes.withUnsafeBytes { value -> RowView in
                    if old.column(collection.column).sameContent(as: .value(value)) { return old }
                    return try writeColumn(collection.info, key: collection.key, old: old, column: collection.column, value: value, context)
                }
            }
            try deleteDroppedEmbedded(collection, context)
        }
    }

    /// Deletes the embedded objects that were added through `collection` and left it again
    /// before it was written back (so no stored link ever owned them).
    private func deleteDroppedEmbedded(_ collection: PendingCollection, _ context: WriteContext) throws {
        guard !collection.addedEmbedded.isEmpty, let target = targetInfo(collection.info, column: collection.column) else { return }
        let kept = Set(collection.elements)
        for key in collection.addedEmbedded where !kept.contains(StoredElement(objectKey: key)) {
            if try !isOwned(target, key: key, context) { try deleteRow(target, key: key, context) }
        }
    }

    /// ``flushPendingWrites(_:)`` for the write transaction in progress, if any; an error
    /// dooms it.
    func flushPendingWritesIfWriting() {
        guard let context = writeContext,
            !context.pending.collections.isEmpty || !context.pending.index.isEmpty || !context.pending.fullText.isEmpty
        else { return }
        _ = dooming(context) { try flushPendingWrites(context) }
    }
}
