/// How a collection changed between two versions, in Realm's index semantics: `deletions` are
/// indices in the old collection, `insertions` indices in the new one, `modifications` indices
/// in the old collection of objects that stayed in place and changed; each ascending.
///
/// An object that moved (its position relative to the others that stayed changed) is a
/// deletion plus an insertion, and is not also a modification: the insertion redraws it.
/// Applying the deletions (from the highest index down) and then the insertions (lowest first)
/// to the old collection gives the new one.
struct CollectionDiff: Equatable, Sendable {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var modifications: [Int] = []

    /// Whether nothing changed.
    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    /// The diff of `old` to `new`, collections of distinct object keys; `modified` lists the
    /// changed objects, ascending. With `inKeyOrder` both are in ascending key order (unsorted
    /// results), where nothing can move.
    ///
    /// Which objects stay in place follows Realm: the longest run of objects that follow each
    /// other in both versions stays, preferring (between equally long runs) the one with fewer
    /// modified objects and then the earlier one, and the parts on either side are diffed the
    /// same way.
    ///
    /// - Complexity: O(n + m log m) with `inKeyOrder`; otherwise O(n) for the common prefix and
    ///   suffix plus, for the part between, hashing and the runs, which costs O(w) per object
    ///   moved in a part of w objects, bounded by O(w log w) (a longest increasing subsequence
    ///   decides parts that would cost more).
    static func between(_ old: [UInt64], _ new: [UInt64], inKeyOrder: Bool, modified: [UInt64]) -> CollectionDiff {
        inKeyOrder ? inOrder(old, new, modified: modified) : reordered(old, new, modified: modified)
    }

    /// Both in ascending key order: a merge.
    private static func inOrder(_ old: [UInt64], _ new: [UInt64], modified: [UInt64]) -> CollectionDiff {
        var diff = CollectionDiff()
        var i = 0, j = 0, m = 0
        while i < old.count || j < new.count {
            if j == new.count || (i < old.count && old[i] < new[j]) {
                diff.deletions.append(i)
                i += 1
            } else if i == old.count || new[j] < old[i] {
                diff.insertions.append(j)
                j += 1
            } else {
                let key = old[i]
                while m < modified.count && modified[m] < key { m += 1 }
                if m < modified.count && modified[m] == key { diff.modifications.append(i) }
                i += 1
                j += 1
            }
        }
        return diff
    }

    /// Any order: the objects in both middles found by hashing the keys.
    private static func reordered(_ old: [UInt64], _ new: [UInt64], modified: [UInt64]) -> CollectionDiff {
        reordered(old, new, modified: modified) { prefix, oldEnd, newEnd in
            var newPosition: [UInt64: Int] = [:]
            newPosition.reserveCapacity(newEnd - prefix)
            for index in prefix..<newEnd { newPosition[new[index]] = index - prefix }
            var survivors = Survivors()
            for index in prefix..<oldEnd {
                if let position = newPosition[old[index]] {
                    survivors.old.append(index - prefix)
                    survivors.new.append(position)
                }
            }
            return survivors
        }
    }

    /// The objects in both middles (what is left between the common prefix and suffix): for
    /// each, in old order, its offset in the old middle and in the new one.
    struct Survivors {
        /// Each survivor's offset in the old middle, ascending.
        var old: [Int] = []
        /// Each survivor's offset in the new middle, in the same order as ``old``.
        var new: [Int] = []
    }

    /// Any order, given a way to find the objects in both middles (`survivors(prefix, oldEnd,
    /// newEnd)` for the middles `old[prefix..<oldEnd]` and `new[prefix..<newEnd]`).
    static func reordered(
        _ old: [UInt64], _ new: [UInt64], modified: [UInt64], survivors find: (Int, Int, Int) -> Survivors
    ) -> CollectionDiff {
        var prefix = 0
        while prefix < old.count && prefix < new.count && old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix && suffix < new.count - prefix
            && old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        {
            suffix += 1
        }
        let oldEnd = old.count - suffix, newEnd = new.count - suffix
        var stays = [Bool](repeating: true, count: old.count)
        var diff = CollectionDiff()
        if prefix < oldEnd || prefix < newEnd {
            let survivors = find(prefix, oldEnd, newEnd)
            // Survivors numbered in their new order; their old order as those numbers.
            var survives = [Bool](repeating: false, count: newEnd - prefix)
            for position in survivors.new { survives[position] = true }
            var rankAt = [Int](repeating: -1, count: newEnd - prefix)
            var rank = 0
            for position in survives.indices where survives[position] {
                rankAt[position] = rank
                rank += 1
            }
            let ranks = survivors.new.map { rankAt[$0] }
            let survivorModified = survivors.old.map { !modified.isEmpty && sortedContains(modified, old[prefix + $0]) }
            let kept = keptInPlace(ranks, modified: survivorModified)
            var keptOld = [Bool](repeating: false, count: oldEnd - prefix)
            var keptNew = [Bool](repeating: false, count: newEnd - prefix)
            for index in kept.indices where kept[index] {
                keptOld[survivors.old[index]] = true
                keptNew[survivors.new[index]] = true
            }
            for offset in keptOld.indices where !keptOld[offset] {
                diff.deletions.append(prefix + offset)
                stays[prefix + offset] = false
            }
            for offset in keptNew.indices where !keptNew[offset] { diff.insertions.append(prefix + offset) }
        }
        if !modified.isEmpty {
            for (index, key) in old.enumerated() where stays[index] && sortedContains(modified, key) {
                diff.modifications.append(index)
            }
        }
        return diff
    }

    /// Which survivors stay in place, given their new order numbers (`ranks`) in their old order.
    static func keptInPlace(_ ranks: [Int], modified: [Bool]) -> [Bool] {
        var kept = [Bool](repeating: false, count: ranks.count)
        // Parts still to diff: old positions lo..<hi, order numbers low..<high.
        var parts: [(lo: Int, hi: Int, low: Int, high: Int)] = [(0, ranks.count, 0, ranks.count)]
        var work = 0
        let budget = 32 * ranks.count + 4_096
        while let part = parts.popLast() {
            guard part.lo < part.hi, part.low < part.high else { continue }
            work += part.hi - part.lo
            if work > budget {
                keepLongestIncreasing(ranks, part, &kept)
                continue
            }
            var best = (start: 0, length: 0, modified: 0)
            var i = part.lo
            while i < part.hi {
                guard ranks[i] >= part.low && ranks[i] < part.high else {
                    i += 1
                    continue
                }
                var j = i + 1
                var modifiedCount = modified[i] ? 1 : 0
                while j < part.hi && ranks[j] == ranks[j - 1] + 1 && ranks[j] < part.high {
                    if modified[j] { modifiedCount += 1 }
                    j += 1
                }
                let length = j - i
                if length > best.length || (length == best.length && modifiedCount < best.modified) {
                    best = (i, length, modifiedCount)
                }
                i = j
            }
            guard best.length > 0 else { continue }
            for index in best.start..<(best.start + best.length) { kept[index] = true }
            let first = ranks[best.start]
            parts.append((part.lo, best.start, part.low, first))
            parts.append((best.start + best.length, part.hi, first + best.length, part.high))
        }
        return kept
    }

    /// Keeps a longest increasing subsequence of the part's order numbers: the most survivors
    /// that can stay, found in O(w log w).
    private static func keepLongestIncreasing(_ ranks: [Int], _ part: (lo: Int, hi: Int, low: Int, high: Int), _ kept: inout [Bool]) {
        var tails: [Int] = []  // index into ranks of the smallest tail of each length
        var previous = [Int](repeating: -1, count: part.hi - part.lo)
        for index in part.lo..<part.hi where ranks[index] >= part.low && ranks[index] < part.high {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if ranks[tails[middle]] < ranks[index] { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index - part.lo] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var index = tails.last ?? -1
        while index >= 0 {
            kept[index] = true
            index = previous[index - part.lo]
        }
    }

    /// Whether `keys` ascend (results in key order: nothing in them can move).
    static func ascending(_ keys: [UInt64]) -> Bool {
        var previous: UInt64 = 0
        for (index, key) in keys.enumerated() {
            if index > 0 && key <= previous { return false }
            previous = key
        }
        return true
    }

    /// Whether the ascending `keys` hold `key`.
    static func sortedContains(_ keys: [UInt64], _ key: UInt64) -> Bool {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key
    }
}
