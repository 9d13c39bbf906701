/// Learns whether a class's object keys sit at a fixed distance from its integer primary keys,
/// as they do when objects are added in primary-key order (ids 1, 2, 3, … get keys 1, 2, 3, …).
/// While they do, a lookup by primary key can read the row at the guessed object key and skip the
/// search of the primary-key table.
///
/// The caller takes the row at the guessed key only if its primary-key column holds the key
/// looked up: a file keeps one object per primary key, so that row is the object. Any other
/// outcome (no row, another key, a damaged row) falls back to the primary-key table.
///
/// Guessing starts once consecutive lookups agree on the distance: two at first, twice as many
/// after each wrong guess (up to 64), and half as many again after as many right guesses in a
/// row as were needed. So keys with no pattern cost one comparison per lookup, lookups that keep
/// missing (absent keys between present ones) waste at most one read per 64 table lookups, and a
/// class that goes back to being looked up in key order soon guesses at every lookup again.
///
/// State of one ``Database`` instance's ``ClassInfo``, used only in its isolation domain.
struct KeyDistanceHint {
    /// Agreements needed before guessing, at most.
    static let maximumRequired = 64
    /// Object key minus primary key (wrapping), from the last table lookup; `nil` before the first.
    private var distance: UInt64?
    /// Lookups since the distance was last set or a guess failed that found their object at it.
    private var agreements = 0
    /// Agreements needed before guessing: 1 (two lookups in a row), doubled by each wrong guess,
    /// halved after as many right guesses in a row.
    private var required = 1
    /// Right guesses since the last wrong one or the last halving of ``required``.
    private var rightStreak = 0
    /// Whether ``FastPaths/keyGuesses`` is on, read once per class information rather than
    /// from the lazily initialized global at every lookup.
    private let allowed = FastPaths.enabled.contains(.keyGuesses)
    #if OBJDB_INTERNAL_CHECKS
    /// Tests only: guesses that found the object, and guesses that did not.
    private(set) var rightGuesses = 0, wrongGuesses = 0
    /// Tests only: guess at every lookup once a distance is known, trusted or not, to check as
    /// many guesses as possible against the primary-key table.
    var guessesAlways = false
    #endif

    /// Whether enough lookups agree on the distance to guess.
    @inline(__always)
    private var trusted: Bool {
        #if OBJDB_INTERNAL_CHECKS
        return agreements >= required || guessesAlways
        #else
        return agreements >= required
        #endif
    }

    /// The object key to try for `primaryKey`, or `nil` while the distance is not trusted.
    @inline(__always)
    func guess(_ primaryKey: Int64) -> UInt64? {
        guard allowed, trusted, let distance else { return nil }
        return UInt64(bitPattern: primaryKey) &+ distance
    }

    /// Records what the primary-key table said: `primaryKey` is at `objectKey`.
    @inline(__always)
    mutating func learn(_ primaryKey: Int64, at objectKey: UInt64) {
        let seen = objectKey &- UInt64(bitPattern: primaryKey)
        if seen == distance {
            agreements &+= 1
        } else {
            distance = seen
            agreements = 0
        }
    }

    /// Records a right guess: `primaryKey` was at the guessed key.
    @inline(__always)
    mutating func confirm() {
        #if OBJDB_INTERNAL_CHECKS
        rightGuesses &+= 1
        #endif
        guard required > 1 else { return }
        rightStreak += 1
        if rightStreak >= required {
            required /= 2
            rightStreak = 0
        }
    }

    /// Records a wrong guess: no more guesses until twice as many lookups as needed before agree.
    @inline(__always)
    mutating func distrust() {
        agreements = 0
        rightStreak = 0
        required = Swift.min(required * 2, Self.maximumRequired)
        #if OBJDB_INTERNAL_CHECKS
        wrongGuesses &+= 1
        #endif
    }
}
