import Foundation
import GRDB
import ObjDB

/// The `--notifications` run: what live results cost.
///
/// - Latency from a commit to the observer's callback, p50 and p99: the observed query is the
///   people with `age > 50` out of N (a list screen), each commit renames one of them. ObjDB's
///   observer is `observe(on:)` a serial queue; the commit is made by another `Database`
///   instance in this process, or by another process (this binary with `--notify-child`). GRDB's
///   peer is a `ValueObservation` of the same request, scheduled on a serial queue, with the
///   commits made through the same `DatabasePool`. Timed from just before the write begins
///   (durability without fsync on both sides, so a flush does not hide the notification) to
///   the callback that reports it. The same, in process, with the results sorted by `id` (the
///   renamed person stays in place) and by `name` (it moves), and GRDB's peer ordered by `id`.
/// - The change log's cost: N inserts in one transaction and single-object commits, without and
///   with a filtered-results observer on the committing instance (delivered at each commit).
/// - An idle observer: CPU time of the whole process while nothing commits.
enum NotificationRun {
    /// Latency samples in nanoseconds, collected across threads.
    final class Samples: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [UInt64] = []
        private var started: UInt64 = 0
        let arrived = DispatchSemaphore(value: 0)

        func start() { lock.withLock { started = monotonicNanoseconds() } }
        func record() {
            lock.withLock { values.append(monotonicNanoseconds() - started) }
            arrived.signal()
        }
        func record(since start: UInt64) { lock.withLock { values.append(monotonicNanoseconds() &- start) } }
        var all: [UInt64] { lock.withLock { values } }
    }

    /// The rename the GRDB observer waits for.
    final class Expected: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: (Int, String)?
        var value: (Int, String)? {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    static func percentile(_ values: [UInt64], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let index = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
        return Double(sorted[max(0, index)])
    }

    static func fill(_ db: ObjDB.Database, _ people: [PersonData]) throws {
        try db.write {
            for person in people { try db.add(ObjDBSystem.makeObject(person)) }
        }
    }

    static func noSyncConfiguration(_ directory: TempDirectory) -> ObjDB.Configuration {
        var config = ObjDBSystem.configuration(directory: directory.path)
        config.durability = .noSync
        return config
    }

    /// Observes the people with `age > 50` (sorted by the property `sort`, if any) on a queue of
    /// their own, returning once the initial call came; `update` gets the results and the
    /// modifications of each update.
    static func observeAdults(
        _ db: ObjDB.Database, sort: String? = nil, update: @escaping @Sendable (Results<ObjDBPerson>, [Int]) -> Void
    ) throws -> NotificationToken {
        let initial = DispatchSemaphore(value: 0)
        var adults = db.objects(ObjDBPerson.self).where { $0.age > 50 }
        if let sort { adults = adults.sorted(by: [SortDescriptor(keyPath: sort)]) }
        let token = adults.observe(on: DispatchQueue(label: "observer")) { change in
            switch change {
            case .initial: initial.signal()
            case .update(let results, _, _, let modifications): update(results, modifications)
            case .error(let error): progress("observer error: \(error)")
            }
        }
        initial.wait()
        return token
    }

    /// The ids of the people the observed query holds.
    static func observedIDs(_ people: [PersonData]) -> [Int] { people.filter { $0.age > 50 }.map(\.id) }

    /// ObjDB, commits by another instance in this process; the observed results sorted by the
    /// property `sort`, if any (by `id`, the renamed person stays in place; by `name`, it moves).
    static func objdbInProcess(_ people: [PersonData], commits: Int, sort: String? = nil) throws -> [UInt64] {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let config = noSyncConfiguration(directory)
        let writer = try ObjDB.Database(configuration: config)
        try fill(writer, people)
        let samples = Samples()
        let token = try observeAdults(writer, sort: sort) { _, _ in samples.record() }
        let ids = observedIDs(people)
        for i in 0..<commits {
            samples.start()
            try writer.write { writer.object(ofType: ObjDBPerson.self, forPrimaryKey: ids[i % ids.count])?.name = "renamed \(i)" }
            guard samples.arrived.wait(timeout: .now() + 5) == .success else { throw CheckFailure(description: "no notification for commit \(i)") }
        }
        token.invalidate()
        return samples.all
    }

    /// Sectioned results on the writing instance: every person sorted by `score` in 1,000
    /// sections (`Int(score / 10)`, 0…999), one person inserted per commit into an existing
    /// section; timed from just before the write to the callback, which the commit delivers.
    /// `sectioned: false` observes the same sorted results without sections, for the difference.
    static func objdbSectioned(_ people: [PersonData], commits: Int, sectioned: Bool) throws -> [UInt64] {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let db = try ObjDB.Database(configuration: noSyncConfiguration(directory))
        try fill(db, people)
        let samples = Samples()
        let sorted = db.objects(ObjDBPerson.self).sorted(by: [SortDescriptor(keyPath: "score")])
        var sections = 0
        let token: NotificationToken
        if sectioned {
            let byScore = sorted.sectioned(by: { Int($0.score / 10) }, sortDescriptors: [SortDescriptor(keyPath: "score")])
            token = byScore.observe { change in
                switch change {
                case .initial(let all): sections = all.count
                case .update(_, _, let insertions, _, _, _): if insertions.count == 1 { samples.record() }
                case .error(let error): progress("observer error: \(error)")
                }
            }
        } else {
            token = sorted.observe { change in
                if case .update(_, _, let insertions, _) = change, insertions.count == 1 { samples.record() }
            }
        }
        db.refresh()
        if sectioned && sections != 1_000 { throw CheckFailure(description: "\(sections) sections, not 1,000") }
        let extra = Dataset.people(count: people.count + commits).suffix(commits)
        for (i, person) in extra.enumerated() {
            samples.start()
            try db.write { try db.add(ObjDBSystem.makeObject(person)) }
            guard samples.all.count == i + 1 else { throw CheckFailure(description: "no notification for commit \(i)") }
        }
        token.invalidate()
        return samples.all
    }

    /// GRDB's `ValueObservation` of the same request (ordered by `id` when `sorted`).
    static func grdbInProcess(_ people: [PersonData], commits: Int, sorted: Bool = false) throws -> [UInt64] {
        let directory = try TempDirectory()
        defer { directory.remove() }
        var config = GRDB.Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = OFF") }
        let pool = try DatabasePool(path: directory.path + "/person.sqlite", configuration: config)
        try pool.write { db in
            try GRDBSystem.createTable(db)
            for person in people { try GRDBPerson(person).insert(db) }
        }
        let samples = Samples()
        let ids = observedIDs(people)
        // A callback counts for commit i when the fetched people show its rename (GRDB may call
        // more than once for the initial value).
        let expected = Expected()
        let observation = ValueObservation.tracking { db in
            let adults = GRDBPerson.filter(Column("age") > 50)
            return try (sorted ? adults.order(Column("id")) : adults).fetchAll(db)
        }
        let cancellable = observation.start(
            in: pool, scheduling: .async(onQueue: DispatchQueue(label: "grdb observer")),
            onError: { progress("GRDB observation error: \($0)") },
            onChange: { people in
                guard let (id, name) = expected.value else { return }
                if people.contains(where: { $0.id == id && $0.name == name }) {
                    expected.value = nil
                    samples.record()
                }
            })
        for i in 0..<commits {
            expected.value = (ids[i % ids.count], "renamed \(i)")
            samples.start()
            try pool.write { db in
                try db.execute(sql: "UPDATE person SET name = ? WHERE id = ?", arguments: ["renamed \(i)", ids[i % ids.count]])
            }
            guard samples.arrived.wait(timeout: .now() + 30) == .success else { throw CheckFailure(description: "GRDB: no notification for commit \(i)") }
        }
        cancellable.cancel()
        return samples.all
    }

    /// ObjDB, commits by another process: the child writes the monotonic time it began each
    /// write into the renamed person's name; the observer reads it back.
    static func objdbCrossProcess(_ people: [PersonData], commits: Int) throws -> [UInt64] {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let config = noSyncConfiguration(directory)
        let db = try ObjDB.Database(configuration: config)
        try fill(db, people)
        let samples = Samples()
        let token = try observeAdults(db) { results, modifications in
            // Indices are old ones; the list does not move, so they are the new ones too.
            for index in modifications {
                if let start = UInt64(results[index].name.split(separator: " ").last ?? "") { samples.record(since: start) }
            }
            samples.arrived.signal()
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--notify-child", directory.path, String(commits)]
        try child.run()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else { throw CheckFailure(description: "the writing process failed") }
        // The last notifications may still be on their way.
        let deadline = Date().addingTimeInterval(5)
        while samples.all.count < commits && Date() < deadline { usleep(1_000) }
        token.invalidate()
        return samples.all
    }

    /// The child of ``objdbCrossProcess``: `commits` renames, 2 ms apart.
    static func child(directory: String, commits: Int) throws {
        var config = ObjDBSystem.configuration(directory: directory)
        config.durability = .noSync
        let db = try ObjDB.Database(configuration: config)
        let ids = Array(try db.objects(ObjDBPerson.self).filter("age > 50").map(\.id))
        for i in 0..<commits {
            usleep(2_000)
            let start = monotonicNanoseconds()
            try db.write { db.object(ofType: ObjDBPerson.self, forPrimaryKey: ids[i % ids.count])?.name = "child \(start)" }
        }
    }

    /// The change log's cost: `people` in one transaction, then `commits` single-object
    /// commits; with or without a filtered-results observer on the writing instance.
    static func logCost(_ people: [PersonData], commits: Int, observed: Bool) throws -> (insert: UInt64, commits: UInt64) {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let db = try ObjDB.Database(configuration: ObjDBSystem.configuration(directory: directory.path))
        var calls = 0
        let token = observed ? try db.objects(ObjDBPerson.self).filter("age > 50").observe { _ in calls += 1 } : nil
        db.refresh()
        settleDisk()
        let insert = try timedRegion { try fill(db, people) }
        let extra = Dataset.people(count: people.count + commits).suffix(commits)
        settleDisk()
        let single = try timedRegion {
            for person in extra {
                try db.write { try db.add(ObjDBSystem.makeObject(person)) }
            }
        }
        if observed && calls < 2 { throw CheckFailure(description: "the observer was not called") }
        token?.invalidate()
        return (insert, single)
    }

    /// CPU time of this process over `seconds` with an observer registered and nothing committing.
    static func idleCPU(seconds: Double) throws -> Double {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let db = try ObjDB.Database(configuration: noSyncConfiguration(directory))
        try fill(db, Dataset.people(count: 1_000))
        let initial = DispatchSemaphore(value: 0)
        let token = try db.objects(ObjDBPerson.self).filter("age > 50").observe(on: DispatchQueue(label: "idle")) { _ in initial.signal() }
        initial.wait()
        let before = cpuSeconds()
        Thread.sleep(forTimeInterval: seconds)
        let used = cpuSeconds() - before
        token.invalidate()
        return used / seconds * 100
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    static func ms(_ ns: Double) -> String { fixed(ns / 1_000_000, 3) }

    static func run(n: Int, commits: Int, repetitions: Int, idleSeconds: Double) throws -> String {
        let people = Dataset.people(count: n)
        var objdb: [UInt64] = [], grdb: [UInt64] = [], crossProcess: [UInt64] = []
        var byID: [UInt64] = [], byName: [UInt64] = [], grdbByID: [UInt64] = []
        var plain: [(UInt64, UInt64)] = [], observed: [(UInt64, UInt64)] = []
        var sectioned: [UInt64] = [], unsectioned: [UInt64] = []
        for repetition in 0..<repetitions {
            objdb += try objdbInProcess(people, commits: commits)
            grdb += try grdbInProcess(people, commits: max(10, commits / 10))
            crossProcess += try objdbCrossProcess(people, commits: commits)
            byID += try objdbInProcess(people, commits: commits, sort: "id")
            byName += try objdbInProcess(people, commits: commits, sort: "name")
            grdbByID += try grdbInProcess(people, commits: max(10, commits / 10), sorted: true)
            sectioned += try objdbSectioned(people, commits: commits, sectioned: true)
            unsectioned += try objdbSectioned(people, commits: commits, sectioned: false)
            // Realm's scenario: 5,000 single-object commits, with and without an observer.
            plain.append(try logCost(people, commits: 5_000, observed: false))
            observed.append(try logCost(people, commits: 5_000, observed: true))
            progress("notifications repetition \(repetition + 1)/\(repetitions)")
        }
        let idle = try idleCPU(seconds: idleSeconds)

        var latency = MarkdownTable(headers: ["Commit → callback", "samples", "p50 ms", "p99 ms", "GRDB p50 / ObjDB p50"])
        let ratio = percentile(grdb, 0.5) / percentile(objdb, 0.5)
        latency.append(["ObjDB, another instance in this process", String(objdb.count), ms(percentile(objdb, 0.5)), ms(percentile(objdb, 0.99)), fixed(ratio, 0) + "×"])
        latency.append(["ObjDB, another process", String(crossProcess.count), ms(percentile(crossProcess, 0.5)), ms(percentile(crossProcess, 0.99)), "—"])
        latency.append(["GRDB `ValueObservation`, same pool", String(grdb.count), ms(percentile(grdb, 0.5)), ms(percentile(grdb, 0.99)), "—"])
        let sortedRatio = percentile(grdbByID, 0.5) / percentile(byID, 0.5)
        latency.append(["ObjDB sorted by id (the renamed person stays in place)", String(byID.count), ms(percentile(byID, 0.5)), ms(percentile(byID, 0.99)), fixed(sortedRatio, 0) + "×"])
        latency.append(["ObjDB sorted by name (the renamed person moves)", String(byName.count), ms(percentile(byName, 0.5)), ms(percentile(byName, 0.99)), "—"])
        latency.append(["GRDB `ValueObservation` ordered by id", String(grdbByID.count), ms(percentile(grdbByID, 0.5)), ms(percentile(grdbByID, 0.99)), "—"])
        latency.append(["ObjDB sectioned, 1 insert into all \(formatCount(n)) sorted by score, 1,000 sections (writing instance)", String(sectioned.count), ms(percentile(sectioned, 0.5)), ms(percentile(sectioned, 0.99)), "—"])
        latency.append(["ObjDB, the same sorted results without sections (writing instance)", String(unsectioned.count), ms(percentile(unsectioned, 0.5)), ms(percentile(unsectioned, 0.99)), "—"])

        var cost = MarkdownTable(headers: ["Change log", "insert \(formatCount(n)) (1 txn) ms", "5,000 single-object commits ms"])
        cost.append(["no observer", ms(median(plain.map(\.0))), ms(median(plain.map(\.1)))])
        cost.append(["one filtered-results observer", ms(median(observed.map(\.0))), ms(median(observed.map(\.1)))])
        cost.append(["ratio", fixed(median(observed.map(\.0)) / median(plain.map(\.0)), 2) + "×",
                     fixed(median(observed.map(\.1)) / median(plain.map(\.1)), 2) + "×"])
        return latency.render() + "\n\n" + cost.render()
            + "\n\nIdle observer for \(fixed(idleSeconds, 0)) s: \(fixed(idle, 2)) % of one core (the whole process, `getrusage`)."
    }
}
