import Foundation
import ObjDB

/// The `--encryption` run: the same work on a file without and with
/// `Configuration.encryptionKey`, and the ratio (target: each within 2×).
enum EncryptionBench {
    /// The rows of the table, in order.
    static let scenarios = ["insert", "read all", "pk lookups", "indexed equality (first)", "update all"]
    static let key = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 7) })

    /// Runs every scenario on a fresh file with `key` (or none); returns nanoseconds per scenario.
    private static func measure(key: Data?, _ people: [PersonData], _ ids: [Int], _ ages: [Int]) throws -> [String: UInt64] {
        let directory = try TempDirectory()
        defer { directory.remove() }
        var config = ObjDBSystem.configuration(directory: directory.path)
        config.encryptionKey = key
        var times: [String: UInt64] = [:]
        do {
            let db = try Database(configuration: config)
            settleDisk()
            times["insert"] = try timedRegion {
                try db.write { for person in people { try db.add(ObjDBSystem.makeObject(person)) } }
            }
        }
        // Each read on an instance of its own: a new snapshot, whose rows are read (and in an
        // encrypted file decrypted) for the first time.
        func fresh() throws -> Database { try Database(configuration: config) }
        var checks: [String: Int] = [:]
        let readAll = try fresh()
        times["read all"] = timedRegion {
            var sum = 0
            for person in readAll.objects(ObjDBPerson.self) { sum &+= person.age &+ person.name.utf8.count &+ Int(person.score) }
            checks["read all"] = sum
        }
        let pk = try fresh()
        times["pk lookups"] = timedRegion {
            var sum = 0
            for id in ids { sum &+= pk.object(ofType: ObjDBPerson.self, forPrimaryKey: id)?.age ?? -1_000_000 }
            checks["pk lookups"] = sum
        }
        let indexed = try fresh()
        times["indexed equality (first)"] = timedRegion {
            var sum = 0
            for age in ages { sum &+= indexed.objects(ObjDBPerson.self).where { $0.age == age }.first?.age ?? -1_000_000 }
            checks["indexed equality (first)"] = sum
        }
        let update = try fresh()
        times["update all"] = try timedRegion {
            try update.write { for person in update.objects(ObjDBPerson.self) { person.score += 1 } }
        }
        let expected = [
            "read all": people.reduce(0) { $0 &+ $1.age &+ $1.name.utf8.count &+ Int($1.score) },
            "pk lookups": ids.reduce(0) { $0 &+ people[$1 - 1].age },
            "indexed equality (first)": ages.reduce(0, &+),
        ]
        for (name, value) in expected where checks[name] != value {
            throw CheckFailure(description: "encryption \(key == nil ? "off" : "on"): \(name) gave \(checks[name] ?? 0), expected \(value)")
        }
        let scores = try fresh().objects(ObjDBPerson.self).reduce(0.0) { $0 + $1.score }
        let expectedScores = people.reduce(0.0) { $0 + $1.score + 1 }
        guard abs(scores - expectedScores) < 1e-3 * Double(people.count) else {
            throw CheckFailure(description: "encryption \(key == nil ? "off" : "on"): update all left scores summing to \(scores), expected \(expectedScores)")
        }
        return times
    }

    /// Runs the scenarios `repetitions` times, plain and encrypted interleaved, and returns the
    /// table of medians with the ratio encrypted / plain.
    static func run(n: Int, lookups: Int, repetitions: Int) throws -> String {
        let people = Dataset.people(count: n)
        let ids = Dataset.lookupIDs(count: lookups, in: n)
        // Ages present in the data (0..<100), one per lookup.
        let ages = ids.map { people[$0 - 1].age }
        var plain: [String: [UInt64]] = [:]
        var encrypted: [String: [UInt64]] = [:]
        for repetition in 0..<repetitions {
            for (name, ns) in try measure(key: nil, people, ids, ages) { plain[name, default: []].append(ns) }
            for (name, ns) in try measure(key: key, people, ids, ages) { encrypted[name, default: []].append(ns) }
            progress("encryption repetition \(repetition + 1)/\(repetitions)")
        }
        var table = MarkdownTable(headers: ["Scenario", "Unencrypted ms", "Encrypted ms", "Ratio"])
        for name in scenarios {
            let off = median(plain[name] ?? []) / 1_000_000
            let on = median(encrypted[name] ?? []) / 1_000_000
            table.append([name, fixed(off, 2), fixed(on, 2), fixed(on / max(off, 1e-9), 2) + "×"])
        }
        return table.render()
    }
}
