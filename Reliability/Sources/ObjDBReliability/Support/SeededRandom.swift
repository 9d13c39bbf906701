/// SplitMix64: a small deterministic pseudo-random generator, the same on every platform, so a
/// run of an attack replays exactly from its seed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    /// The generator's state.
    public var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// A generator for item `index` of a run seeded with `seed`: independent of every other item,
    /// so one item (a cycle, a damaged file, a predicate) can be replayed alone.
    public init(seed: UInt64, index: UInt64) {
        var mixer = SeededRandom(seed: seed ^ 0x5851_F42D_4C95_7F2D)
        state = mixer.next() &+ index &* 0x2545_F491_4F6C_DD1D
        state = next()
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`; `bound` must be positive.
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// A number in `range`.
    public mutating func inRange(_ range: ClosedRange<Int>) -> Int { range.lowerBound + below(range.count) }

    /// `true` with a probability of `percent` in 100.
    public mutating func percent(_ percent: Int) -> Bool { below(100) < percent }

    /// A random element of a non-empty array.
    public mutating func pick<T>(_ array: [T]) -> T { array[below(array.count)] }
}
