/// The inputs of the list scenario of `--relationships`: one owner and `n` pets, every pet
/// appended to the owner's list once, in id order.
struct ListWorkload: Sendable {
    /// The id of the one owner.
    static let ownerID = 1
    /// Pets, ids 1...n; also the length of the list.
    let n: Int

    /// The pet ids in the order they are appended.
    var petIDs: [Int] { Array(1...n) }

    /// What reading the owner's list must give.
    var expected: ListChecksum {
        var sum = ListChecksum()
        for id in petIDs { sum.add(id) }
        return sum
    }
}

/// What reading a list of pets produces: equal across systems when they hold the same list in
/// the same order.
struct ListChecksum: Equatable, Sendable, CustomStringConvertible {
    /// Elements read.
    var count = 0
    /// Sum of the pet ids.
    var idSum = 0
    /// Sum of position × pet id (positions from 1), so that the order counts too.
    var orderSum = 0

    /// Adds the next element.
    @inline(__always)
    mutating func add(_ id: Int) {
        count += 1
        idSum &+= id
        orderSum &+= count &* id
    }

    /// A short form for error messages.
    var description: String { "count=\(count) ids=\(idSum) order=\(orderSum)" }
}

/// The inputs of the linking-objects scenario of `--relationships`: `owners` owners, each with a
/// to-one link to one of `owners / 10` pets, so that every pet is linked by exactly 10 owners
/// spread over the whole id range; 1,000 of the pets are the targets whose linking owners are read.
struct LinkWorkload: Sendable {
    /// Owners linking one pet.
    static let linksPerPet = 10
    /// Distinct targets the lookups cycle over, so that no lookup repeats the previous one.
    static let targetCount = 1_000
    /// The smallest number of owners that gives every target its 10 owners.
    static let minimumOwners = linksPerPet * targetCount
    /// Lookups per timed run.
    static let lookups = 10_000

    /// Owners, ids 1...owners.
    let owners: Int
    /// Pets, ids 1...pets.
    let pets: Int
    /// `favorites[i]` is the id of the pet owner `i + 1` links to: pet `(i % pets) + 1`, so pet
    /// `p` is linked by owners `p, p + pets, p + 2 pets, …`.
    let favorites: [Int]
    /// The pet ids whose linking owners are read, evenly spread over 1...pets.
    let targets: [Int]
    /// Lookups per timed run; lookup `i` reads the owners of `targets[i % targets.count]`.
    let lookups: Int

    /// Throws unless `owners` is a multiple of 10 and at least ``minimumOwners``.
    static func validate(owners: Int) throws {
        guard owners >= minimumOwners, owners % linksPerPet == 0 else {
            throw CheckFailure(description: "link sizes must be multiples of \(linksPerPet) and at least \(minimumOwners): \(owners)")
        }
    }

    /// The workload for `owners` owners (a multiple of 10, at least ``minimumOwners``).
    init(owners: Int, lookups: Int = Self.lookups) throws {
        try Self.validate(owners: owners)
        let pets = owners / Self.linksPerPet
        let step = pets / Self.targetCount
        self.owners = owners
        self.pets = pets
        favorites = (0..<owners).map { $0 % pets + 1 }
        targets = (0..<Self.targetCount).map { 1 + $0 * step }
        self.lookups = lookups
    }

    /// What the lookups must give, from ``favorites``: the owners of each looked-up target.
    var expected: LinkSum {
        var linking: [Int: LinkSum] = [:]
        let wanted = Set(targets)
        for (index, pet) in favorites.enumerated() where wanted.contains(pet) {
            linking[pet, default: LinkSum()].add(index + 1)
        }
        var sum = LinkSum()
        for lookup in 0..<lookups {
            let found = linking[targets[lookup % targets.count]] ?? LinkSum()
            sum.count += found.count
            sum.idSum &+= found.idSum
        }
        return sum
    }
}

/// What the linking-objects lookups produce: how many linking owners were read and the sum of
/// their ids.
struct LinkSum: Equatable, Sendable, CustomStringConvertible {
    /// Linking owners read.
    var count = 0
    /// Sum of their ids.
    var idSum = 0

    /// Adds one linking owner.
    @inline(__always)
    mutating func add(_ id: Int) {
        count += 1
        idSum &+= id
    }

    /// A short form for error messages.
    var description: String { "count=\(count) ids=\(idSum)" }
}
