import Foundation
import ObjDB

/// The parts of one fan-out round, computed from its shared read: what each view gets of the
/// objects changed since its checkpoint.
///
/// A view gets a changed object's row when its download predicate selects the row, and the
/// object as removed when the predicate no longer selects it but selected one of its old rows
/// since the checkpoint (or, for a whole-class view, when the object is gone). Views are
/// grouped by ``FanoutTemplate`` and selected together by ``FanoutSelector``; the slow twin,
/// each view tested row by row, is ``referencePart(_:)``.
struct FanoutRound {
    /// The round's shared read.
    let read: SyncStore.SharedRead
    /// The mappings of the classes read.
    let mappings: [String: ClassMapping]
    /// Each base's changed classes in name order, with their changed keys in order.
    let sortedChanges: [String: [(className: String, keys: [String])]]
    /// Rows by property name (the names of the read, which decoded them), made once a round.
    private var rowValues: [String: [ExactText: [String: SyncValue]]] = [:]
    /// Old rows by property name, made once a round: base → class → key → rows.
    private var oldValues: [String: [String: [ExactText: [[String: SyncValue]]]]] = [:]

    /// A round of `read`.
    init(read: SyncStore.SharedRead, mappings: [String: ClassMapping]) {
        self.read = read
        self.mappings = mappings
        var sorted: [String: [(className: String, keys: [String])]] = [:]
        for (base, changed) in read.changed {
            sorted[base] = changed.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value.sorted()) }
        }
        self.sortedChanges = sorted
    }

    /// A view of the round: the checkpoint it follows and what it selects.
    struct Member {
        /// The checkpoint the view's part follows.
        let base: String
        /// What the view selects.
        let view: ClientView
    }

    /// Which views of one template, following one checkpoint, a class's changes go to.
    private struct GroupKey: Hashable {
        /// The checkpoint the views follow.
        let base: String
        /// The class.
        let className: String
        /// The views' predicate for the class, as a template.
        let template: FanoutTemplate
    }

    /// Each member's part: a batch per class with something for it, in class name order.
    /// - Complexity: O(*v* + Σ *c* × (*l* + *k*)) for *v* views, summed over the groups of
    ///   views of one template and checkpoint: *c* changed rows of the group's class, *l*
    ///   lookups per row, and the *k* views found or tested for it.
    mutating func parts(_ members: [Member]) -> [[SyncObjectBatch]] {
        var groups: [GroupKey: (members: [Int], slots: [[String: SyncValue]])] = [:]
        for (i, member) in members.enumerated() {
            for (className, _) in sortedChanges[member.base] ?? [] {
                guard let predicate = member.view.reads[className], predicate != .constant(false), mappings[className] != nil,
                    read.propertyNames[className] != nil,
                    // A variable without a value: the view selects nothing of the class.
                    let (template, slots) = member.view.templates[className]
                else { continue }
                let key = GroupKey(base: member.base, className: className, template: template)
                groups[key, default: ([], [])].members.append(i)
                groups[key, default: ([], [])].slots.append(slots)
            }
        }
        var batches: [[String: SyncObjectBatch]] = Array(repeating: [:], count: members.count)
        for (key, group) in groups {
            guard let m = mappings[key.className], let names = read.propertyNames[key.className],
                let keys = sortedChanges[key.base]?.first(where: { $0.className == key.className })?.keys
            else { continue }
            let selector = FanoutSelector(template: key.template, slots: group.slots)
            let wholeClass = key.template.predicate == .constant(true)
            var rows: [[SyncObjectBatch.Row]] = Array(repeating: [], count: group.members.count)
            for pk in keys {
                var selected = Set<Int>()
                if let row = read.rows[key.className]?[ExactText(pk)], row.values != nil {
                    let found = wholeClass ? Array(group.members.indices) : selector.selecting(namedRow(key.className, pk, names).lookup)
                    for g in found {
                        rows[g].append(row)
                        selected.insert(g)
                    }
                    if wholeClass { continue }
                }
                // Not selected now: removed where the view may hold it.
                var removed: [Int] = []
                if wholeClass {
                    removed = Array(group.members.indices)
                } else {
                    var seen = selected
                    for old in oldRows(key.base, key.className, pk, names) {
                        for g in selector.selecting({ old[$0] }) where seen.insert(g).inserted { removed.append(g) }
                    }
                }
                guard !removed.isEmpty, let primaryKey = try? PGText.scalarValue(pk, m.primaryKey.type) else { continue }
                for g in removed.sorted() { rows[g].append(SyncObjectBatch.Row(primaryKey: primaryKey, values: nil)) }
            }
            for (g, member) in group.members.enumerated() where !rows[g].isEmpty {
                batches[member][key.className] = SyncObjectBatch(className: key.className, propertyNames: names, rows: rows[g])
            }
        }
        return batches.map { byClass in byClass.sorted(by: { $0.key < $1.key }).map(\.value) }
    }

    /// A current row's values by property name.
    mutating func namedRow(_ className: String, _ pk: String, _ names: [String]) -> NamedRow {
        let key = ExactText(pk)
        if let named = rowValues[className]?[key] { return NamedRow(values: named) }
        let values = read.rows[className]?[key]?.values ?? []
        let named = Dictionary(zip(names, values), uniquingKeysWith: { first, _ in first })
        rowValues[className, default: [:]][key] = named
        return NamedRow(values: named)
    }

    /// The rows an object had before each of its changes since `base`, by property name.
    mutating func oldRows(_ base: String, _ className: String, _ pk: String, _ names: [String]) -> [[String: SyncValue]] {
        let key = ExactText(pk)
        if let old = oldValues[base]?[className]?[key] { return old }
        let old = (read.oldRows[base]?[className]?[key] ?? []).map { Dictionary(zip(names, $0), uniquingKeysWith: { first, _ in first }) }
        oldValues[base, default: [:]][className, default: [:]][key] = old
        return old
    }

    /// A row's values by property name.
    struct NamedRow {
        /// The values by property name.
        let values: [String: SyncValue]
        /// A property's value (`nil` for one the row lacks).
        func lookup(_ name: String) -> SyncValue? { values[name] }
    }
}
