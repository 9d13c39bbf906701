import Foundation
import ObjDB

/// The `--durability` run: transactions of one object each under every `Durability` mode, in
/// milliseconds per commit — what the flushes of a commit cost.
enum DurabilityRun {
    /// The modes, in interleaving order, with their names.
    static let modes: [(name: String, durability: Durability)] = [
        (".full", .full), (".normal", .normal), (".noSync", .noSync),
    ]

    /// Adds `people` one per `write { }` to a fresh database with `durability`; returns the
    /// nanoseconds of the loop, after checking that every object was committed.
    private static func measure(_ durability: Durability, _ people: [PersonData]) throws -> UInt64 {
        let directory = try TempDirectory()
        defer { directory.remove() }
        var config = ObjDBSystem.configuration(directory: directory.path)
        config.durability = durability
        let db = try Database(configuration: config)
        settleDisk()
        let nanoseconds = try timedRegion {
            for person in people {
                try db.write { try db.add(ObjDBSystem.makeObject(person)) }
            }
        }
        let stored = db.objects(ObjDBPerson.self).count
        guard stored == people.count else {
            throw CheckFailure(description: "durability \(durability): \(stored) objects stored, expected \(people.count)")
        }
        return nanoseconds
    }

    /// Runs `commits` single-object transactions per mode, `repetitions` times with the modes
    /// interleaved, and returns the table of medians.
    static func run(commits: Int, repetitions: Int) throws -> String {
        let people = Dataset.people(count: commits)
        var samples: [String: [UInt64]] = [:]
        for repetition in 0..<repetitions {
            for mode in modes {
                samples[mode.name, default: []].append(try measure(mode.durability, people))
            }
            progress("durability repetition \(repetition + 1)/\(repetitions)")
        }
        var table = MarkdownTable(headers: ["Durability", "Flushes per commit", "ms/commit", "commits/s"])
        let flushes = [".full": "2", ".normal": "1", ".noSync": "0"]
        for mode in modes {
            let perCommit = median(samples[mode.name] ?? []) / Double(commits) / 1_000_000
            table.append([mode.name, flushes[mode.name] ?? "—", fixed(perCommit, 3), fixed(1_000 / perCommit, 0)])
        }
        return table.render()
    }
}
