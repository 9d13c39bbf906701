/// The change of a list between two versions from the edits the commits between them recorded,
/// in Realm's index semantics; checked against the two versions' keys.
struct ListEditDiff: Equatable {
    /// The most element moves (edits × list length) a diff may cost; past it, compared instead.
    static let workBudget = 50_000_000

    /// Old positions of elements that left the list (removed, or moved: reinserted).
    var deletions: [Int] = []
    /// New positions of elements inserted (or moved there).
    var insertions: [Int] = []
    /// Old and new positions of elements that were replaced and stayed, ascending.
    var replacedPositions: [(old: Int, new: Int)] = []
    /// Old positions of elements that stayed, with their new positions, ascending.
    var survivors: [(old: Int, new: Int)] = []

    /// Old positions whose element was replaced and stayed, ascending.
    var replaced: [Int] { replacedPositions.map(\.old) }

    /// Equal when every list of positions is.
    static func == (a: ListEditDiff, b: ListEditDiff) -> Bool {
        a.deletions == b.deletions && a.insertions == b.insertions
            && a.replacedPositions.map(\.old) == b.replacedPositions.map(\.old) && a.replacedPositions.map(\.new) == b.replacedPositions.map(\.new)
            && a.survivors.map(\.old) == b.survivors.map(\.old) && a.survivors.map(\.new) == b.survivors.map(\.new)
    }

    /// The change `edits` describe from `old` to `new`; `nil` when they do not lead from one to
    /// the other (a write that recorded no edits changed the list too, or the edits are damaged).
    ///
    /// - Complexity: O(n · e) for n elements and e edits.
    init?(_ edits: [ListEdit], old: [UInt64], new: [UInt64]) {
        // A bound on the work (each edit moves up to the whole list) and on the length the list
        // may reach in between: past them, the versions are compared instead.
        let longest = old.count + new.count + ListEdit.limit
        let (work, overflow) = edits.count.multipliedReportingOverflow(by: longest)
        guard edits.count <= ListEdit.limit, !overflow, work <= Self.workBudget else { return nil }
        // Each position of the list as the edits go: the old position of its element, or -1 for
        // an element inserted (or moved) since; whether it was replaced.
        var origin = Array(old.indices)
        var wasSet = [Bool](repeating: false, count: old.count)
        for edit in edits {
            switch edit {
            case .insert(let at, let count):
                guard at >= 0, at <= origin.count, count >= 0, count <= longest - origin.count else { return nil }
                origin.insert(contentsOf: repeatElement(-1, count: count), at: at)
                wasSet.insert(contentsOf: repeatElement(false, count: count), at: at)
            case .erase(let at, let count):
                guard at >= 0, count >= 0, at + count <= origin.count else { return nil }
                origin.removeSubrange(at..<at + count)
                wasSet.removeSubrange(at..<at + count)
            case .set(let at):
                guard at >= 0, at < origin.count else { return nil }
                wasSet[at] = true
            case .move(let from, let to):
                guard from >= 0, from < origin.count, to >= 0, to < origin.count else { return nil }
                origin.remove(at: from)
                wasSet.remove(at: from)
                origin.insert(-1, at: to)
                wasSet.insert(false, at: to)
            }
        }
        guard origin.count == new.count else { return nil }
        var stays = [Bool](repeating: false, count: old.count)
        for (position, from) in origin.enumerated() {
            if from < 0 {
                insertions.append(position)
                continue
            }
            // An element that stayed in place is the same object, unless it was replaced.
            guard wasSet[position] || old[from] == new[position] else { return nil }
            stays[from] = true
            if wasSet[position] { replacedPositions.append((from, position)) } else { survivors.append((from, position)) }
        }
        // Both already ascend in old positions too: an element that stayed was never moved (a
        // moved element counts as inserted), so the elements that stayed keep their order.
        deletions = old.indices.filter { !stays[$0] }
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled {
            internalCheck(
                zip(survivors, survivors.dropFirst()).allSatisfy { $0.old < $1.old }
                    && zip(replacedPositions, replacedPositions.dropFirst()).allSatisfy { $0.old < $1.old },
                "ListEditDiff: elements that stayed changed their order")
        }
        #endif
    }
}
