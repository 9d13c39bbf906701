import Foundation

/// SplitMix64: a small, fast, seeded generator, so every run and every system sees the same data.
struct SeededGenerator: RandomNumberGenerator {
    /// The generator's state.
    private var state: UInt64

    /// A generator that always produces the same sequence for the same seed.
    init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476C_E5E4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The values of one person, identical for the three systems.
struct PersonData: Sendable {
    /// Primary key, 1...N.
    let id: Int
    /// "Person <id>".
    let name: String
    /// 0..<100; indexed.
    let age: Int
    /// Two decimals, 0..<10_000.
    let score: Double
    /// Whole seconds, so every encoding round-trips it exactly.
    let created: Date
}

/// The deterministic inputs of a run.
enum Dataset {
    /// `count` people with ids 1...count.
    static func people(count: Int, seed: UInt64 = 0x0B1D_B0B1) -> [PersonData] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            let id = index + 1
            return PersonData(
                id: id, name: "Person \(id)", age: Int(rng.next() % 100),
                score: Double(rng.next() % 1_000_000) / 100,
                created: Date(timeIntervalSince1970: Double(1_600_000_000 + rng.next() % 100_000_000)))
        }
    }

    /// `count` ids drawn uniformly from 1...n.
    static func lookupIDs(count: Int, in n: Int, seed: UInt64 = 0x5EED_1D5) -> [Int] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { _ in Int(rng.next() % UInt64(n)) + 1 }
    }
}

/// What reading every object produces; equal across systems when they hold the same data.
struct Checksum: Equatable, Sendable, CustomStringConvertible {
    /// Objects read.
    var count = 0
    /// Sum of ids.
    var idSum = 0
    /// Sum of ages.
    var ageSum = 0
    /// Sum of scores.
    var scoreSum = 0.0
    /// Total UTF-8 length of the names.
    var nameBytes = 0
    /// Sum of `created` as seconds since 1970.
    var createdSum = 0.0

    /// Adds one object's values.
    @inline(__always)
    mutating func add(id: Int, name: String, age: Int, score: Double, created: Date) {
        count += 1
        idSum &+= id
        ageSum &+= age
        scoreSum += score
        nameBytes &+= name.utf8.count
        createdSum += created.timeIntervalSince1970
    }

    /// A short form for error messages.
    var description: String {
        "count=\(count) ids=\(idSum) ages=\(ageSum) scores=\(scoreSum) names=\(nameBytes) created=\(createdSum)"
    }
}
