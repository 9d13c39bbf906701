/// Collections that may hold an object more than once (a `List`, linking objects counted per
/// link) cannot use ``CollectionDiff``, which needs distinct elements. When either version
/// repeats an object, the diff is the standard library's `difference(from:)` (Myers' algorithm:
/// fewest deletions plus insertions, O((n + m) · d) for d of them), and the elements it keeps
/// are the survivors whose modifications are reported.
enum RepeatedKeys {
    /// The diff of `old` to `new`, object keys with possible repeats: `distinct` when neither
    /// repeats a key; otherwise Myers' diff, with `modified` telling which of the surviving
    /// keys (distinct, ascending) were modified.
    static func diff(
        _ old: [UInt64], _ new: [UInt64], distinct: () -> CollectionDiff, modified: ([UInt64]) -> [UInt64]
    ) -> CollectionDiff {
        guard hasRepeats(old) || hasRepeats(new) else { return distinct() }
        var diff = CollectionDiff()
        for change in new.difference(from: old) {
            switch change {
            case .remove(let offset, _, _): diff.deletions.append(offset)
            case .insert(let offset, _, _): diff.insertions.append(offset)
            }
        }
        diff.deletions.sort()
        diff.insertions.sort()
        let deleted = Set(diff.deletions)
        let staying = old.indices.filter { !deleted.contains($0) }
        let changed = Set(modified(Array(Set(staying.map { old[$0] })).sorted()))
        diff.modifications = staying.filter { changed.contains(old[$0]) }
        return diff
    }

    static func hasRepeats(_ keys: [UInt64]) -> Bool {
        var seen = Set<UInt64>(minimumCapacity: keys.count)
        for key in keys where !seen.insert(key).inserted { return true }
        return false
    }
}
