/// The `--relationships` run: appending to one large list, and reading linking objects at several
/// numbers of origin objects; systems interleaved, every result checked.
enum RelationshipRun {
    /// Runs `body` with `system` opened on a fresh temporary directory, closed and removed afterwards.
    private static func withFresh<T>(_ system: any RelationshipSystem.Type, _ body: (any RelationshipSystem) throws -> T) throws -> T {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let db = try system.init(directory: directory.path)
        defer { db.close() }
        return try body(db)
    }

    /// One timed append of `work.n` pets; the list is checked every time, the backlinks of every
    /// pet when `verifyBacklinks`.
    private static func appendOnce(_ system: any RelationshipSystem.Type, _ work: ListWorkload, verifyBacklinks: Bool) throws -> UInt64 {
        try withFresh(system) { db in
            try db.prepareList(work)
            settleDisk()
            let nanoseconds = try timedRegion { try db.appendPets() }
            let list = try db.readList()
            guard list == work.expected else {
                throw CheckFailure(description: "\(system.name) list append: got \(list), expected \(work.expected)")
            }
            if verifyBacklinks {
                let linked = try db.countBacklinked(work.petIDs)
                guard linked == work.n else {
                    throw CheckFailure(description: "\(system.name) list append: \(linked) of \(work.n) pets link back to the owner")
                }
            }
            return nanoseconds
        }
    }

    /// One timed run of the linking-objects lookups of `work`, checked against `expected`.
    private static func lookupOnce(_ system: any RelationshipSystem.Type, _ work: LinkWorkload, expected: LinkSum) throws -> UInt64 {
        try withFresh(system) { db in
            try db.prepareLinks(work)
            settleDisk()
            var sum = LinkSum()
            let nanoseconds = try timedAfterWarmUp { sum = try db.sumLinkingOwners(lookups: work.lookups) }
            guard sum == expected else {
                throw CheckFailure(
                    description: "\(system.name) linking objects at \(formatCount(work.owners)): got \(sum), expected \(expected)")
            }
            return nanoseconds
        }
    }

    /// Runs the append scenario with a list of `listN` pets and the linking-objects scenario at
    /// each of `sizes` owners, `repetitions` times each with the systems interleaved, and returns
    /// the tables.
    static func run(listN: Int, sizes: [Int], systems: [any RelationshipSystem.Type], repetitions: Int) throws -> String {
        var samples = RelationshipSamples(listN: listN, sizes: sizes)
        let list = ListWorkload(n: listN)
        for repetition in 0..<repetitions {
            for system in systems {
                samples.append[system.name, default: []].append(try appendOnce(system, list, verifyBacklinks: repetition == 0))
            }
        }
        progress("list append \(formatCount(listN)): " + summary(samples.append, systems, scale: 1e6, unit: "ms"))
        for size in sizes {
            let work = try LinkWorkload(owners: size)
            let expected = work.expected
            for _ in 0..<repetitions {
                for system in systems {
                    samples.lookups[size, default: [:]][system.name, default: []].append(try lookupOnce(system, work, expected: expected))
                }
            }
            progress(
                "linking objects at \(formatCount(size)) owners: "
                    + summary(samples.lookups[size] ?? [:], systems, scale: 1e3 * Double(work.lookups), unit: "µs/lookup"))
        }
        return samples.render()
    }

    /// `ObjDB 1.23 ms, LMDB …` for a progress line.
    private static func summary(_ samples: [String: [UInt64]], _ systems: [any RelationshipSystem.Type], scale: Double, unit: String) -> String {
        systems.map { "\($0.name) \(fixed(median(samples[$0.name] ?? []) / scale, 2)) \(unit)" }.joined(separator: ", ")
    }
}
