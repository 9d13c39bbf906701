import Foundation

extension Map {
    /// Calls `block` with the map now (`.initial`) and whenever a commit changes it: keys added
    /// (insertions, at their new positions), keys removed (deletions, at their old positions),
    /// and — as modifications, at old positions — keys whose value changed, or whose linked
    /// object changed in what `keyPaths` watch (every property of it without `keyPaths`).
    ///
    /// ```swift
    /// let token = ann.scores.observe { change in
    ///     if case .update(let scores, _, let insertions, _) = change {
    ///         print(insertions.map { scores[$0].key })
    ///     }
    /// }
    /// ```
    ///
    /// Positions are those of the map's entries, in key order. Delivery is as for
    /// ``Results/observe(keyPaths:_:)``. When the object that holds the map is deleted, its
    /// entries are reported deleted and the observation ends.
    ///
    /// - Complexity: O(entries) per commit that changes the object holding the map or (for maps
    ///   of objects) a watched object.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (CollectionChange<Map<Key, Value>>) -> Void) -> NotificationToken {
        guard let home = backing.home else {
            objdbFatal("observe: only the Map of a stored object can be observed; add its object to a database first")
        }
        let database = home.database
        let target = Value._objdbObjectType != nil ? home.target : nil
        let watch = target.map { Watch.parse(keyPaths, $0, database, caller: "Map.observe") }
        let observer = MapObserver(map: self, home: home, target: target, watch: watch, block: block)
        database.observation().add(observer)
        return observer.control.token()
    }

    /// ``observe(keyPaths:_:)`` delivering on `queue`, with the map of a database instance
    /// confined to that queue (see ``Results/observe(keyPaths:on:_:)``). The key and value types
    /// cross to the queue, hence `SendableMetatype` (every type not isolated to an actor is).
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue?, _ block: @escaping @Sendable (CollectionChange<Map<Key, Value>>) -> Void
    ) -> NotificationToken where Key: SendableMetatype, Value: SendableMetatype {
        guard let queue else { return observe(keyPaths: keyPaths, block) }
        guard let home = backing.home else {
            objdbFatal("observe: only the Map of a stored object can be observed; add its object to a database first")
        }
        let parent = FrozenObject(home.parent)
        let column = home.column
        return QueueObservation.start(home.database.configuration, on: queue, failed: { block(.error($0)) }) { database, control in
            guard let object = parent.resolve(in: database) else { throw QueueObservation.vanished(parent.className) }
            let home = CollectionHome(parent: object, column: column)
            let target = Value._objdbObjectType != nil ? home.target : nil
            let watch = target.map { Watch.parse(keyPaths, $0, database, caller: "Map.observe(on:)") }
            return MapObserver(map: Map(home: home), home: home, target: target, watch: watch, block: block, control: control)
        }
    }
}

/// Observes a `Map`: keeps the entries it last reported (key and value identities) and
/// compares the new ones with them by key.
final class MapObserver<Key: MapKeyType, Value: CollectionElementType>: Observer {
    typealias Entry = (key: ElementIdentity, value: ElementIdentity)

    let control: ObserverControl
    private let held: LockedBox<Map<Key, Value>>
    private let block: LockedBox<(CollectionChange<Map<Key, Value>>) -> Void>
    private let home: CollectionHome
    private let target: ClassInfo?
    private let watch: Watch?
    /// The entries last reported; `nil` before the first call.
    private var entries: [Entry]?

    init(
        map: Map<Key, Value>, home: CollectionHome, target: ClassInfo?, watch: Watch?,
        block: @escaping (CollectionChange<Map<Key, Value>>) -> Void, control: ObserverControl = ObserverControl()
    ) {
        self.control = control
        held = LockedBox(map)
        self.block = LockedBox(block)
        self.home = home
        self.target = target
        self.watch = watch
        let boxes: [any ClearableBox] = [held, self.block]
        control.whenCancelled { boxes.forEach { $0.clear() } }
    }

    var needsInitial: Bool { entries == nil }

    func deliverInitial() {
        guard let map = held.value else { return }
        entries = Self.entries(of: map)
        block.value?(.initial(map))
    }

    func catchUp() {
        if entries != nil, let map = held.value { entries = Self.entries(of: map) }
    }

    func fail(_ error: any Error) {
        let call = block.value
        control.cancel()
        call?(.error(error))
    }

    func deliver(_ delivery: Delivery) {
        guard let old = entries else { return deliverInitial() }
        guard let map = held.value, let call = block.value else { return }
        if map.isInvalidated {
            control.cancel()
            if !old.isEmpty { call(.update(map, deletions: Array(old.indices), insertions: [], modifications: [])) }
            return
        }
        let check: ModificationCheck
        do {
            check = ModificationCheck(delivery: delivery, new: try delivery.database.requireReadableTxn())
        } catch {
            return fail(error)
        }
        let new = Self.entries(of: map)
        if let (deletions, insertions, modifications) = editedChange(old, new, delivery, check) {
            entries = new
            guard !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty) else { return }
            return call(.update(map, deletions: deletions, insertions: insertions, modifications: modifications))
        }
        var newPosition: [ElementIdentity: Int] = [:]
        for (position, entry) in new.enumerated() { newPosition[entry.key] = position }
        var oldKeys = Set<ElementIdentity>()
        var deletions: [Int] = [], modifications: [Int] = []
        for (position, entry) in old.enumerated() {
            oldKeys.insert(entry.key)
            guard let now = newPosition[entry.key] else {
                deletions.append(position)
                continue
            }
            if new[now].value != entry.value || isModified(new[now].value, check) { modifications.append(position) }
        }
        let insertions = new.indices.filter { !oldKeys.contains(new[$0].key) }
        entries = new
        guard !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty) else { return }
        call(.update(map, deletions: deletions, insertions: insertions, modifications: modifications))
    }

    /// The change from the edits the commits recorded (``ListEdit``, positions in key order), as
    /// Realm reports a map's: a key set again is a modification, even to the same value; `nil`
    /// when the change set lists no edits of the map or they do not lead from `old` to `new`.
    private func editedChange(
        _ old: [Entry], _ new: [Entry], _ delivery: Delivery, _ check: ModificationCheck
    ) -> (deletions: [Int], insertions: [Int], modifications: [Int])? {
        guard let changes = delivery.changes, !changes.schemaChanged,
            let edits = changes[home.info.classID].listEdits[home.parent._objdbKey]?[home.column]
        else { return nil }
        // The keys as numbers, the same for the same key in both versions.
        var numbers: [ElementIdentity: UInt64] = [:]
        func number(_ key: ElementIdentity) -> UInt64 {
            if let known = numbers[key] { return known }
            let next = UInt64(numbers.count)
            numbers[key] = next
            return next
        }
        let oldKeys = old.map { number($0.key) }, newKeys = new.map { number($0.key) }
        // Setting a key never changes which key is at its position.
        guard let edited = ListEditDiff(edits, old: oldKeys, new: newKeys),
            edited.replacedPositions.allSatisfy({ oldKeys[$0.old] == newKeys[$0.new] })
        else { return nil }
        let changed = edited.survivors.filter { old[$0.old].value != new[$0.new].value || isModified(new[$0.new].value, check) }.map(\.old)
        return (edited.deletions, edited.insertions, (changed + edited.replaced).sorted())
    }

    /// Whether the object a value links to changed in what the watch sees.
    private func isModified(_ value: ElementIdentity, _ check: ModificationCheck) -> Bool {
        guard let target, let watch, case .stored(_, let key) = value else { return false }
        return check.isModified(target, key: key, watch, depth: 0)
    }

    /// The entries of `map`, in its order, as identities.
    private static func entries(of map: Map<Key, Value>) -> [Entry] {
        var writer = _ObjDBElementWriter()
        return map.map { entry in (ElementIdentity(entry.key, &writer), ElementIdentity(entry.value, &writer)) }
    }
}
