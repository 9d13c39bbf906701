/// SplitMix64: a small deterministic pseudo-random generator, the same on every platform, for
/// the seeded differential tests (a failing seed replays exactly).
struct SeededRandom {
    /// The generator's state.
    var state: UInt64

    /// A generator starting from `seed`.
    init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`; `bound` must be positive.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// A number in `range`.
    mutating func inRange(_ range: ClosedRange<Int>) -> Int { range.lowerBound + below(range.count) }

    /// `true` with a probability of `percent` in 100.
    mutating func percent(_ percent: Int) -> Bool { below(100) < percent }

    /// A random element of a non-empty array.
    mutating func pick<T>(_ array: [T]) -> T { array[below(array.count)] }
}

extension SeededRandom: RandomNumberGenerator {}
