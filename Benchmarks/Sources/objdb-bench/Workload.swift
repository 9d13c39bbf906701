/// The inputs of one run and the results every system must produce from them.
struct Workload: Sendable {
    /// Objects per scenario.
    let n: Int
    /// The N people, ids 1...N.
    let people: [PersonData]
    /// N seeded random ids in 1...N for the lookup scenario.
    let lookupIDs: [Int]
    /// The people the single-write scenario inserts, one transaction each.
    let singles: [PersonData]
    /// The id the cold-start scenario reads.
    let coldID: Int

    /// Generates everything for `n` objects and `singles` single writes.
    init(n: Int, singles: Int = 1_000) {
        self.n = n
        people = Dataset.people(count: n)
        lookupIDs = Dataset.lookupIDs(count: n, in: n)
        self.singles = Dataset.people(count: singles)
        coldID = Dataset.lookupIDs(count: 1, in: n, seed: 7)[0]
    }

    /// The checksum of reading `people`.
    static func checksum(of people: [PersonData]) -> Checksum {
        var sum = Checksum()
        for person in people {
            sum.add(id: person.id, name: person.name, age: person.age, score: person.score, created: person.created)
        }
        return sum
    }

    /// What `scenario` must report for every system (see ``Runner/runOnce``).
    func expected(_ scenario: Scenario) -> String {
        switch scenario {
        case .insert, .readAll: return "\(Self.checksum(of: people))"
        case .lookup, .lookupStatement: return "\(lookupIDs.reduce(0) { $0 &+ people[$1 - 1].age })"
        case .count, .countIndex: return "\(people.count { $0.age > 50 })"
        case .update, .updateSQL:
            var sum = Self.checksum(of: people)
            sum.ageSum += people.count
            return "\(sum)"
        case .delete: return "\(Checksum())"
        case .singleWrites: return "\(Self.checksum(of: singles))"
        case .coldStart: return "\(people[coldID - 1].age)"
        }
    }
}
