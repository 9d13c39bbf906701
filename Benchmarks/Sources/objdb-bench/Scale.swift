/// The `--scale` run: insert and read-all at several sizes, in nanoseconds per object.
enum ScaleRun {
    /// Insert then read-all timings of one system on a fresh database, with the read checked.
    private static func measure(_ system: any BenchSystem.Type, _ people: [PersonData], expected: String) throws -> (UInt64, UInt64) {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let db = try system.init(directory: directory.path, create: true)
        defer { db.close() }
        settleDisk()
        let insert = try timedRegion { try db.insert(people) }
        try db.warmUp()
        settleDisk()
        var sum = Checksum()
        let read = try timedAfterWarmUp { sum = try db.readAll() }
        guard "\(sum)" == expected else {
            throw CheckFailure(description: "\(system.name) scale read-all at \(people.count): got \(sum), expected \(expected)")
        }
        return (insert, read)
    }

    /// Repetitions at `size`: more for small sizes, whose runs are short and noisier (×10 at 10k,
    /// ×3 at 100k, ×1 from 300k on).
    static func repetitions(_ base: Int, size: Int) -> Int { base * min(10, max(1, 300_000 / size)) }

    /// Runs every size (see ``repetitions(_:size:)``), systems interleaved, and returns the tables.
    static func run(sizes: [Int], systems: [any BenchSystem.Type], repetitions: Int) throws -> String {
        var perObject: [Int: [String: (insert: Double, read: Double)]] = [:]
        for size in sizes {
            let people = Dataset.people(count: size)
            let expected = "\(Workload.checksum(of: people))"
            var inserts: [String: [UInt64]] = [:]
            var reads: [String: [UInt64]] = [:]
            for _ in 0..<Self.repetitions(repetitions, size: size) {
                for system in systems {
                    let (insert, read) = try measure(system, people, expected: expected)
                    inserts[system.name, default: []].append(insert)
                    reads[system.name, default: []].append(read)
                }
            }
            for system in systems {
                perObject[size, default: [:]][system.name] = (
                    median(inserts[system.name] ?? []) / Double(size), median(reads[system.name] ?? []) / Double(size)
                )
            }
            let summary = systems.map { "\($0.name) \(fixed(perObject[size]?[$0.name]?.insert ?? .nan, 0))/\(fixed(perObject[size]?[$0.name]?.read ?? .nan, 0))" }
            progress("scale \(formatCount(size)) (insert/read ns per object): " + summary.joined(separator: ", "))
        }
        return render(perObject, sizes: sizes)
    }

    /// The ns-per-object table, a max/min row, and the flatness target for ObjDB.
    private static func render(_ perObject: [Int: [String: (insert: Double, read: Double)]], sizes: [Int]) -> String {
        let names = [ObjDBSystem.name, LMDBSystem.name, GRDBSystem.name]
        var table = MarkdownTable(
            headers: ["Objects"] + names.map { "insert \($0) ns/obj" } + names.map { "read-all \($0) ns/obj" })
        func cell(_ value: Double?) -> String { value.map { fixed($0, 0) } ?? "—" }
        for size in sizes {
            let row = perObject[size] ?? [:]
            table.append([formatCount(size)] + names.map { cell(row[$0]?.insert) } + names.map { cell(row[$0]?.read) })
        }
        func spread(_ name: String, _ pick: ((insert: Double, read: Double)) -> Double) -> Double? {
            let values = sizes.compactMap { perObject[$0]?[name] }.map(pick)
            guard let low = values.min(), let high = values.max(), low > 0, values.count == sizes.count else { return nil }
            return high / low
        }
        func spreadCell(_ value: Double?) -> String { value.map { fixed($0, 2) + "×" } ?? "—" }
        table.append(
            ["max/min"] + names.map { spreadCell(spread($0) { $0.insert }) } + names.map { spreadCell(spread($0) { $0.read }) })
        var targets = MarkdownTable(headers: ["Target", "Scenario", "Measured", "Result"])
        for (label, pick) in [("insert", { (v: (insert: Double, read: Double)) in v.insert }), ("read-all", { $0.read })] {
            guard let value = spread(ObjDBSystem.name, pick) else { continue }
            targets.append([
                "ObjDB ns/object flat within 1.5× (\(sizes.map(formatCount).joined(separator: ", ")))", label,
                "max/min " + fixed(value, 2) + "×", value <= 1.5 ? "met" : "MISSED",
            ])
        }
        return table.render() + "\n\n" + targets.render()
    }
}
