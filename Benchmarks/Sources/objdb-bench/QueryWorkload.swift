import Foundation

/// The data and inputs of the `--queries` scenarios at one size, and what every query must give,
/// computed from the data in plain Swift.
///
/// The people are ``PersonData`` like the main table's, with two differences that the queries
/// need: `name` is unique but in no relation to the id (`user-` and the id scrambled by an odd
/// 32-bit multiplier, a bijection), and `score` is uniform in 0..<1 with full `Double` precision,
/// so that `score < 0.5` holds for half the objects and sorting by score has no ties.
struct QueryWorkload: Sendable {
    /// Equality lookups per timed run on an indexed name.
    static let lookups = 50_000
    /// Equality lookups per timed run on an unindexed name (each one scans); reported scaled to
    /// ``lookups``.
    static let scanLookups = 200
    /// Objects of the sorted results that are read after the count.
    static let sortPrefix = 100

    /// Objects, ids 1...n.
    let n: Int
    /// The people, in id order.
    let people: [PersonData]
    /// The names looked up, ``lookups`` seeded random picks among the people (repeats possible).
    let lookupNames: [String]
    /// The primary keys of the `IN` query: n / 2 distinct ids in seeded random order.
    let inIDs: [Int]

    /// Generates the people and the inputs for `n` objects.
    init(n: Int) {
        self.n = n
        var rng = SeededGenerator(seed: 0x0B1D_0E51)
        people = (0..<n).map { index in
            let id = index + 1
            return PersonData(
                id: id, name: Self.name(id), age: Int(rng.next() % 100),
                score: Double(rng.next() >> 11) * 0x1p-53,
                created: Date(timeIntervalSince1970: Double(1_600_000_000 + rng.next() % 100_000_000)))
        }
        lookupNames = Dataset.lookupIDs(count: Self.lookups, in: n, seed: 0x4E4D_E5).map(Self.name)
        var ids = Array(1...n)
        ids.shuffle(using: &rng)
        inIDs = Array(ids.prefix(n / 2))
    }

    /// The unique name of person `id`: `user-` and 8 hexadecimal digits of `id × 0x9E3779B1 mod 2³²`.
    static func name(_ id: Int) -> String {
        let scrambled = String(UInt32(truncatingIfNeeded: id &* 0x9E37_79B1), radix: 16)
        return "user-" + String(repeating: "0", count: 8 - scrambled.count) + scrambled
    }

    /// The names of the unindexed-lookup scenario: the first ``scanLookups`` of ``lookupNames``.
    var scanLookupNames: [String] { Array(lookupNames.prefix(Self.scanLookups)) }

    /// The people with `names`, once per name, added up.
    func expectedLookups(_ names: [String]) -> QueryChecksum {
        let byName = Dictionary(uniqueKeysWithValues: people.map { ($0.name, $0) })
        var sum = QueryChecksum()
        for name in names {
            if let person = byName[name] { sum.add(id: person.id, age: person.age) }
        }
        return sum
    }

    /// The people whose ids are in ``inIDs``, added up.
    var expectedIn: QueryChecksum {
        var sum = QueryChecksum()
        for id in Set(inIDs) { sum.add(id: id, age: people[id - 1].age) }
        return sum
    }

    /// The number of people with `age > 50 && score < 0.5`.
    var expectedCountAgeAndScore: Int { people.count { $0.age > 50 && $0.score < 0.5 } }

    /// The number of people with `age > 50`.
    var expectedCountAge: Int { people.count { $0.age > 50 } }

    /// The count and the first ``sortPrefix`` ids when sorted by score (no ties: checked).
    func expectedSorted() throws -> SortedPrefix {
        let sorted = people.sorted { ($0.score, $0.id) < ($1.score, $1.id) }
        let head = sorted.prefix(Self.sortPrefix + 1)
        guard Set(head.map(\.score)).count == head.count else {
            throw CheckFailure(description: "query workload at \(n): the lowest scores have ties, so the order is not unique")
        }
        return SortedPrefix(count: people.count, ids: sorted.prefix(Self.sortPrefix).map(\.id))
    }
}

/// What the lookup and `IN` queries produce: equal across systems when they find the same objects.
struct QueryChecksum: Equatable, Sendable, CustomStringConvertible {
    /// Objects found.
    var count = 0
    /// Sum of their ids.
    var idSum = 0
    /// Sum of their ages (read from the object, so that the object itself was read).
    var ageSum = 0

    /// Adds one object found.
    @inline(__always)
    mutating func add(id: Int, age: Int) {
        count += 1
        idSum &+= id
        ageSum &+= age
    }

    /// A short form for error messages.
    var description: String { "count=\(count) ids=\(idSum) ages=\(ageSum)" }
}

/// What the sort scenario produces: the number of results and the ids of the first ones, in order.
struct SortedPrefix: Equatable, Sendable, CustomStringConvertible {
    /// The number of sorted results.
    var count = 0
    /// The ids of the first results, in result order.
    var ids: [Int] = []

    /// A short form for error messages.
    var description: String { "count=\(count) first ids=\(ids.prefix(5))… (\(ids.count))" }
}
