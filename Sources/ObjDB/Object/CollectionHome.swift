/// Where a managed collection lives: one collection column of one stored object.
///
/// Reads go to the write transaction's pending copy of the column when there is one (see
/// ``PendingCollection``), else straight to the object's current row.
struct CollectionHome {
    /// The object holding the collection.
    let parent: ObjectBase
    /// The column.
    let column: Int

    /// The database of the parent.
    var database: Database { parent._objdbDatabase.unsafelyUnwrapped }
    /// The class of the parent.
    var info: ClassInfo {
        guard let info = parent._objdbInfo else { objdbFatal("Internal error: a managed collection lost its object's class (an ObjDB bug; please report it)") }
        return info
    }
    /// `Class.property`, for messages.
    var propertyName: String { "\(info.name).\(info.stored.properties[column].name)" }
    /// The class of object elements, if the elements are objects.
    var target: ClassInfo? { database.targetInfo(info, column: column) }
    /// Whether the parent object was deleted.
    var isInvalidated: Bool { parent._objdbCurrentRow() == nil }

    /// The pending copy, if the transaction in progress changed the collection.
    var pending: PendingCollection? {
        guard database.writeContext != nil else { return nil }
        return database.pendingCollection(info, key: parent._objdbKey, column: column, stored: { .null }, create: false)
    }

    /// The column as stored in the parent's current row.
    var stored: ColumnRead { parent._objdbRead(column) }

    /// A reader for decoding elements.
    func reader(_ read: ColumnRead, target: ClassInfo?) -> _ObjDBElementReader {
        _ObjDBElementReader(read: read, database: database, target: target)
    }

    /// The pending copy to change, created on first change; `nil` when the transaction is doomed
    /// (changes are then ignored, and `commitWrite()` reports why). Changing a collection
    /// outside a write transaction is a programmer error.
    func pendingForWrite() -> (WriteContext, PendingCollection)? {
        guard let context = database.writeContext else { database.cannotWrite(propertyName) }
        guard context.transaction.acceptsWrites else { return nil }
        guard !isInvalidated else { parent._objdbInvalidatedAccess() }
        // Cached query results over this data are stale from now on.
        database.collectionEpoch &+= 1
        let parent = self.parent
        let column = self.column
        guard let pending = database.pendingCollection(info, key: parent._objdbKey, column: column, stored: { parent._objdbRead(column) }, create: true)
        else { return nil }
        return (context, pending)
    }

    /// The stored form of `value` as an element of this collection; an unmanaged object is
    /// added first. `nil` if that failed (the transaction is then doomed).
    func storedElement<Element: CollectionElementType>(_ value: Element, _ context: WriteContext, _ pending: PendingCollection) -> StoredElement? {
        var writer = _ObjDBElementWriter(context.value)
        Element._objdbWriteElement(value, to: &writer)
        if !writer.mixedObjects.isEmpty, let mixed = value as? MixedValue {
            // A mixed value's objects: added or checked, then the value encoded with their keys.
            let database = self.database
            guard database.dooming(context, { try database.prepareMixedObjects(mixed, context) }) != nil else { return nil }
            writer.encode(mixed)
            return writer.element
        }
        guard let object = writer.object else { return writer.element }
        let database = self.database
        let info = self.info
        let column = self.column
        let wasUnmanaged = object._objdbDatabase == nil
        guard let key = database.dooming(context, { try database.linkableKey(object, from: info, column: column, context) }) else {
            return nil
        }
        if wasUnmanaged, object._objdbInfo?.stored.isEmbedded == true { pending.addedEmbedded.append(key) }
        return StoredElement(objectKey: key)
    }

    /// Whether `other` is the same collection.
    func isSame(as other: CollectionHome) -> Bool {
        parent._objdbDatabase === other.parent._objdbDatabase && parent._objdbInfo === other.parent._objdbInfo
            && parent._objdbKey == other.parent._objdbKey && column == other.column
    }
}

/// Where a collection's elements are: in memory while unmanaged, or in a stored object.
enum CollectionBacking<Storage: Collection> {
    case unmanaged(Storage)
    case managed(CollectionHome)

    /// The stored object and column, when managed.
    var home: CollectionHome? { if case .managed(let home) = self { home } else { nil } }
    /// Whether the collection belongs to a stored object.
    var isManaged: Bool { home != nil }
    /// Whether the object holding the collection was deleted.
    var isInvalidated: Bool { home?.isInvalidated ?? false }
    /// The database of the object holding the collection.
    var database: Database? { home?.database }
    /// The number of elements (entries of a map).
    var count: Int {
        switch self {
        case .unmanaged(let storage): storage.count
        case .managed(let home): home.count
        }
    }
}

extension CollectionHome {
    /// The number of elements (entries of a map), pending or stored.
    var count: Int {
        if let pending { return pending.elements.count }
        if info.columnKinds[column] == .map { return MapView(stored).count }
        return SequenceView(stored).count
    }
}

/// How collections compare elements: by stored bytes, or by object identity.
enum ElementIdentity: Hashable {
    /// A value, by its encoding.
    case value(StoredElement)
    /// A managed object, by class and key.
    case stored(String, UInt64)
    /// An unmanaged object, by instance.
    case instance(ObjectIdentifier)
    /// A mixed value linking to an unmanaged object: by its `Hashable` (objects by instance).
    case mixed(MixedValue)

    /// The identity of `value`, encoded through `writer` (reuse one across a loop: each new
    /// writer allocates its scratch buffer).
    init<Element: CollectionElementType>(_ value: Element, _ writer: inout _ObjDBElementWriter) {
        Element._objdbWriteElement(value, to: &writer)
        if writer.mixedObjects.contains(where: { $0._objdbDatabase == nil }), let mixed = value as? MixedValue {
            self = .mixed(mixed)
            return
        }
        if let object = writer.object {
            if let info = object._objdbInfo {
                self = .stored(info.name, object._objdbKey)
            } else {
                self = .instance(ObjectIdentifier(object))
            }
        } else {
            self = .value(writer.element)
        }
    }

    /// The identity of `value` as a member of a set: a mixed number by the real number it is
    /// (``MixedFormat/setMember(_:)``), other elements as ``init(_:_:)`` gives them.
    init<Element: CollectionElementType>(member value: Element, _ writer: inout _ObjDBElementWriter) {
        self.init(value, &writer)
        if Element.self == MixedValue.self, case .value(let element) = self { self = .value(MixedFormat.setMember(element)) }
    }
}

extension CollectionHome {
    /// Decodes one element; a damaged element reads as the type's default.
    func decode<E: CollectionElementType>(_ read: ColumnRead, target: ClassInfo?, as type: E.Type) -> E {
        E._objdbReadElement(reader(read, target: target)) ?? E._objdbDefaultValue()
    }

    /// The element at `position` of a list or set.
    func element<E: CollectionElementType>(at position: Int, as type: E.Type) -> E {
        let target = E._objdbObjectType != nil ? self.target : nil
        if let pending {
            objdbPrecondition(pending.elements.indices.contains(position), "Index \(position) out of range 0..<\(pending.elements.count) of '\(propertyName)'")
            return pending.elements[position].withRead { decode($0, target: target, as: type) }
        }
        let view = SequenceView(stored)
        objdbPrecondition(position >= 0 && position < view.count, "Index \(position) out of range 0..<\(view.count) of '\(propertyName)'")
        return decode(view.element(position), target: target, as: type)
    }

    /// Every element of a list or set, in order.
    func elements<E: CollectionElementType>(as type: E.Type) -> [E] {
        let target = E._objdbObjectType != nil ? self.target : nil
        if let pending { return pending.elements.map { $0.withRead { decode($0, target: target, as: type) } } }
        let view = SequenceView(stored)
        return (0..<view.count).map { decode(view.element($0), target: target, as: type) }
    }
}

/// The `PersistableType` and relationship behaviour shared by ``List`` and ``MutableSet``: both
/// store a sequence of elements.
protocol SequenceCollection: AnyObject {
    associatedtype Element: CollectionElementType
    /// The collection kind.
    static var kind: CollectionKind { get }
    /// An empty unmanaged collection.
    init()
    /// The managed collection of a column.
    init(home: CollectionHome)
    /// The managed home, if managed.
    var home: CollectionHome? { get }
    /// The elements, in order.
    var elementsArray: [Element] { get }
    /// Replaces every element (of a managed collection, in the write transaction).
    func replaceAll(with elements: [Element])
}

extension SequenceCollection {
    /// The stored elements of an unmanaged collection whose objects are all managed by now.
    static func encodeUnmanaged(_ collection: Self, into bytes: inout _ObjDBBytes) -> Bool {
        var writer = _ObjDBElementWriter()
        let stored = collection.elementsArray.map { element -> StoredElement in
            Element._objdbWriteElement(element, to: &writer)
            if let object = writer.object { return object._objdbDatabase == nil ? .null : StoredElement(objectKey: object._objdbKey) }
            return writer.element
        }
        stored.appendEncoded(to: &bytes)
        return true
    }

    /// The objects among the elements.
    static func heldObjects(_ collection: Self) -> [ObjectBase] {
        var writer = _ObjDBElementWriter()
        return collection.elementsArray.flatMap { element -> [ObjectBase] in
            Element._objdbWriteElement(element, to: &writer)
            return writer.object.map { [$0] } ?? writer.mixedObjects
        }
    }

    /// A new unmanaged collection from a loosely typed value: a collection of this type, or an
    /// array of convertible elements.
    static func converted(_ value: Any) -> Self? {
        let items: [Any?]
        if let same = value as? Self {
            items = same.elementsArray.map { $0 }
        } else if let array = value as? [Any?] {
            items = array
        } else if let array = value as? [Any] {
            items = array.map { $0 }
        } else {
            return nil
        }
        var elements: [Element] = []
        for item in items {
            guard let element = convert(item, to: Element.self) else { return nil }
            elements.append(element)
        }
        let collection = Self()
        collection.replaceAll(with: elements)
        return collection
    }

    /// Assigns `value` to a managed object's property: replaces the stored elements.
    static func assign(_ value: Self, to object: ObjectBase, column: Int) {
        let target = Self(home: CollectionHome(parent: object, column: column))
        if let home = value.home, let targetHome = target.home, home.isSame(as: targetHome) { return }
        target.replaceAll(with: value.elementsArray)
    }
}
