/// Learns whether a class's object keys sit at a fixed distance from its integer primary keys,
/// as they do when objects are added in primary-key order (ids 1, 2, 3, … get keys 1, 2, 3, …).
/// While they do, a lookup by primary key can read the row at the guessed object key and skip the
/// search of the primary-key table.
///
/// A guess is only a hint: the caller takes the row at the guessed key only if its primary-key
/// column holds the key looked up. Primary keys are unique, so that row is the object; any other
/// outcome (no row, another key, a damaged row) falls back to the primary-key table.
///
/// Guessing starts after two table lookups in a row found the same distance, and stops at the
/// first wrong guess, so keys with no such pattern cost one comparison per lookup and almost never
/// a wasted read.
///
/// State of one ``Database`` instance's ``ClassInfo``, used only in its isolation domain.
struct KeyDistanceHint {
    /// Object key minus primary key (wrapping), from the last table lookup; `nil` before the first.
    private var distance: UInt64?
    /// Whether the last two lookups agreed on ``distance`` (or the last guess was right).
    private var isTrusted = false
    /// Guesses that found the object, and guesses that did not (tests read them).
    private(set) var rightGuesses = 0, wrongGuesses = 0

    /// The object key to try for `primaryKey`, or `nil` while the distance is not trusted.
    @inline(__always)
    func guess(_ primaryKey: Int64) -> UInt64? {
        guard isTrusted, let distance else { return nil }
        return UInt64(bitPattern: primaryKey) &+ distance
    }

    /// Records what the primary-key table said: `primaryKey` is at `objectKey`.
    @inline(__always)
    mutating func learn(_ primaryKey: Int64, at objectKey: UInt64) {
        let seen = objectKey &- UInt64(bitPattern: primaryKey)
        isTrusted = seen == distance
        distance = seen
    }

    /// Records a right guess: `primaryKey` was at the guessed key.
    @inline(__always)
    mutating func confirm() {
        rightGuesses &+= 1
    }

    /// Records a wrong guess: no more guesses until two lookups agree again.
    @inline(__always)
    mutating func distrust() {
        isTrusted = false
        wrongGuesses &+= 1
    }
}
