/// One edit of a `List` (or of a `MutableSet`, positions in insertion order, or a `Map`, positions
/// in key order), recorded as the write makes it, with the positions the collection had at that
/// moment: what Realm's change builder receives, and what turns notifications into Realm's
/// exactly (a replaced element or a key set again is a modification, a moved element a deletion
/// plus an insertion, a swap two moves).
enum ListEdit: Equatable, Sendable {
    /// `count` elements inserted at `at`.
    case insert(at: Int, count: Int)
    /// `count` elements removed from `at`.
    case erase(at: Int, count: Int)
    /// The element at `at` replaced (`list[i] = x`, or a map's key set again).
    case set(at: Int)
    /// The element at `from` moved to `to`.
    case move(from: Int, to: Int)

    /// The most edits one list keeps per transaction; past it, its notifications compare the
    /// list's two versions instead.
    static let limit = 1_000

    /// Appends `edit` to `edits`, merging it into the last edit when they continue each other
    /// (appending in a loop, removing the first element in a loop): `false` past ``limit``.
    static func append(_ edit: ListEdit, to edits: inout [ListEdit]) -> Bool {
        switch (edits.last, edit) {
        case (.insert(let at, let count)?, .insert(let next, let more)) where next == at + count:
            edits[edits.count - 1] = .insert(at: at, count: count + more)
            return true
        case (.erase(let at, let count)?, .erase(let next, let more)) where next == at:
            edits[edits.count - 1] = .erase(at: at, count: count + more)
            return true
        default:
            guard edits.count < limit else { return false }
            edits.append(edit)
            return true
        }
    }
}
