import Foundation
import Observation

/// The positions a change touched, as ``LiveResults/lastChange`` gives them for animation:
/// Realm's indices (see ``CollectionChange``) — `deletions` and `modifications` in the previous
/// snapshot, `insertions` in the new one.
public struct LiveChange: Equatable, Sendable, CustomStringConvertible {
    /// Positions of the previous snapshot whose objects are gone, ascending.
    public let deletions: [Int]
    /// Positions of the new snapshot whose objects are new, ascending.
    public let insertions: [Int]
    /// Positions of the previous snapshot whose objects stayed in place and changed, ascending
    /// (Realm's convention, what a table view's batch update reloads).
    public let modifications: [Int]

    /// A change with these positions (each ascending).
    public init(deletions: [Int], insertions: [Int], modifications: [Int]) {
        self.deletions = deletions
        self.insertions = insertions
        self.modifications = modifications
    }

    /// `d[0] i[2, 3] m[]`.
    public var description: String { "d\(deletions) i\(insertions) m\(modifications)" }
}

/// Results for a view: an immutable, frozen ``snapshot`` of a ``Results``, replaced on the main
/// actor after every commit that changes them, and edits that act on the objects the view
/// showed. `@Observable`, so SwiftUI (or `withObservationTracking`) re-reads it on each change.
///
/// ```swift
/// @MainActor let todos = LiveResults(db.objects(Todo.self).sorted(by: \.created))
/// todos.snapshot.count                          // the rows the view shows
/// todos.lastChange                              // d[…] i[…] m[…] of the change that made them
/// try todos.delete(atOffsets: IndexSet([2]))    // deletes the object the view showed at 2
/// ```
///
/// **Why nothing can crash.** The snapshot is a ``FrozenResults`` of the version the
/// notification delivered: its objects read their rows at that version for as long as anyone
/// holds them, so a row deleted since (here, by another instance or another process) is still
/// there to read, and no index into it moves. Edits never use a position against the live
/// database: ``delete(atOffsets:)`` and ``move(fromOffsets:toOffset:)`` turn the offsets into
/// the snapshot's objects first, find those by their object key (keys are never reused, so a
/// key names that object or nothing) inside the write, and skip the ones already gone.
///
/// The database of the results must belong to the main actor (opened by main-actor code), so
/// that its notifications arrive there. See Docs/SwiftUI.md.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor @Observable
public final class LiveResults<Element: Object> {
    /// The objects the view shows: frozen, at the version of the last change delivered, in the
    /// order of the results. Replaced (never changed in place) by each change.
    ///
    /// - Complexity: Each read (`count`, a subscript, an iteration) opens a frozen view of the
    ///   version — a few small allocations, no file access; the query is evaluated once per
    ///   version and shared by every read.
    public private(set) var snapshot: FrozenResults<Element>

    /// The positions the change that produced ``snapshot`` touched; `nil` for the first
    /// snapshot (and after an error). Feed it to a table view's batch updates, or ignore it:
    /// SwiftUI diffs by `id`.
    public private(set) var lastChange: LiveChange?

    /// Why the results stopped updating, if they did (their list's object was deleted before a
    /// queue registered, the file could not be read…); the snapshot then stays as it was.
    public private(set) var error: (any Error)?

    /// The live results, read in the main actor's database.
    @ObservationIgnored private let results: Results<Element>
    /// The notification token; released with this object.
    @ObservationIgnored private var token: NotificationToken?

    /// Follows `results`: ``snapshot`` holds them now, frozen, and each commit that changes
    /// them replaces it.
    ///
    /// ```swift
    /// let open = LiveResults(db.objects(Todo.self).where { !$0.done }.sorted(by: \.created))
    /// ```
    ///
    /// Creating it from results of a frozen database, or inside a write transaction, is a
    /// programmer error.
    public init(_ results: Results<Element>) {
        objdbPrecondition(!results.isFrozen, "LiveResults was given frozen results; pass live results of the main actor's Database (thaw() them first)")
        objdbPrecondition(
            !results.database.isInWriteTransaction,
            "LiveResults was created inside a write transaction, whose uncommitted changes belong to no version; create it after the commit")
        self.results = results
        snapshot = results.freeze()
        token = results.observe { [weak self] change in
            self?.receive(change)
        }
    }

    /// Follows the objects of `list`, in list order: ``move(fromOffsets:toOffset:)`` reorders
    /// the list.
    ///
    /// ```swift
    /// let steps = LiveResults(recipe.steps)
    /// try steps.move(fromOffsets: IndexSet([0]), toOffset: 3)
    /// ```
    ///
    /// The list of an unmanaged object is a programmer error.
    public convenience init(_ list: List<Element>) {
        guard let home = list.home else {
            objdbFatal("LiveResults was given an unmanaged List; add its object to a database first")
        }
        self.init(home.results(Element.self))
    }

    /// Deletes, in one write, the objects ``snapshot`` showed at `offsets` (the offsets of
    /// SwiftUI's `onDelete`) — the objects, not whatever is at those positions now.
    ///
    /// ```swift
    /// ForEach(todos.snapshot) { Text($0.title) }
    ///     .onDelete { try? todos.delete(atOffsets: $0) }
    /// ```
    ///
    /// An object deleted meanwhile (by another instance, another process, or this one) is
    /// skipped, and so is an offset outside the snapshot: no error, no crash. When nothing is
    /// left to delete, the write changes nothing. Over a ``List``, the objects are deleted from
    /// the database (and so leave the list).
    ///
    /// - Throws: what the write throws (``ObjDBError``).
    public func delete(atOffsets offsets: IndexSet) throws {
        let keys = snapshotKeys()
        let wanted = offsets.filter { keys.indices.contains($0) }.map { keys[$0] }
        guard !wanted.isEmpty else { return }
        let database = results.database
        let className = results.query.className
        // Looked up inside the write, which reads the newest version: whatever was deleted
        // meanwhile, anywhere, is not found.
        try database.write {
            for key in Set(wanted) {
                if let object = database.resolveObject(Element.self, className: className, key: key) {
                    database.delete(object)
                }
            }
        }
    }

    /// Moves, in one write, the objects ``snapshot`` showed at `offsets` so that they stand
    /// before the object it showed at `destination` (at the end when `destination` is the
    /// snapshot's count) — SwiftUI's `onMove`. Only for results made from a ``List``
    /// (`LiveResults(list)`); anything else is a programmer error: the order of a query is its
    /// sort, not something to move.
    ///
    /// ```swift
    /// ForEach(steps.snapshot) { Text($0.title) }
    ///     .onMove { try? steps.move(fromOffsets: $0, toOffset: $1) }
    /// ```
    ///
    /// The objects are found in the list as it is now: ones removed meanwhile are skipped; if
    /// the object at `destination` left the list, the next one the snapshot showed after it
    /// that is still there takes its place (else the end). An object listed twice is matched
    /// occurrence by occurrence. If the list's object was deleted, nothing happens.
    ///
    /// - Throws: what the write throws (``ObjDBError``).
    public func move(fromOffsets offsets: IndexSet, toOffset destination: Int) throws {
        let query = results.query
        guard case .collection(let home) = query.source, query.filter == nil, query.sort.isEmpty, query.distinct.isEmpty,
            query.limit == nil, query.later.isEmpty
        else {
            objdbFatal(
                "LiveResults.move(fromOffsets:toOffset:) was called on results of a query ('\(query.className)'), whose order is its sort; only LiveResults made from a List can be reordered")
        }
        let keys = snapshotKeys()
        let moved = offsets.filter { keys.indices.contains($0) }
        guard !moved.isEmpty else { return }
        let movedSet = Set(moved)
        // The objects the moved ones go before: the one at `destination`, then the next ones.
        let anchors = keys.indices.filter { $0 >= destination && !movedSet.contains($0) }
        try home.database.write {
            guard !home.isInvalidated else { return }
            let list = List<Element>(home: home)
            let current = list.map { $0._objdbKey }
            let positions = ListPositions(snapshot: keys, current: current)
            let from = moved.compactMap { positions.current(of: $0) }
            guard !from.isEmpty else { return }
            let fromSet = Set(from)
            let anchor = anchors.lazy.compactMap { positions.current(of: $0) }.first { !fromSet.contains($0) }
            // The new order, as positions of the list now.
            let staying = current.indices.filter { !fromSet.contains($0) }
            let insertion = anchor.map { anchor in staying.firstIndex(of: anchor) ?? staying.count } ?? staying.count
            let order = Array(staying[..<insertion]) + from + Array(staying[insertion...])
            // Applied as moves, so that observers of the list see moves.
            var working = Array(current.indices)
            for (target, wanted) in order.enumerated() where working[target] != wanted {
                guard let source = working.firstIndex(of: wanted) else { continue }
                list.move(from: source, to: target)
                working.insert(working.remove(at: source), at: target)
            }
        }
    }

    /// The object keys of ``snapshot``, in order.
    private func snapshotKeys() -> [UInt64] {
        snapshot.read { $0.objectKeys() } ?? []
    }

    /// Takes a change delivered on the main actor.
    private func receive(_ change: CollectionChange<Results<Element>>) {
        switch change {
        case .initial(let results):
            replace(with: results, change: nil)
        case .update(let results, let deletions, let insertions, let modifications):
            replace(with: results, change: LiveChange(deletions: deletions, insertions: insertions, modifications: modifications))
        case .error(let error):
            self.error = error
            lastChange = nil
        }
    }

    private func replace(with results: Results<Element>, change: LiveChange?) {
        // A callback can come inside a write transaction another callback began; its changes
        // belong to no version, and the commit delivers again.
        guard !results.database.isInWriteTransaction else { return }
        snapshot = results.freeze()
        lastChange = change
    }
}

/// Where the elements a snapshot of a list showed are in the list now: by object key, and an
/// object listed more than once occurrence by occurrence.
struct ListPositions {
    private let snapshot: [UInt64]
    private var byKey: [UInt64: [Int]] = [:]

    init(snapshot: [UInt64], current: [UInt64]) {
        self.snapshot = snapshot
        for (position, key) in current.enumerated() { byKey[key, default: []].append(position) }
    }

    /// The position now of the element the snapshot showed at `offset`; `nil` if it left.
    func current(of offset: Int) -> Int? {
        let key = snapshot[offset]
        let occurrence = snapshot[..<offset].lazy.filter { $0 == key }.count
        guard let positions = byKey[key], occurrence < positions.count else { return nil }
        return positions[occurrence]
    }
}
