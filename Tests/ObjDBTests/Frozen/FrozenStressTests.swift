import Foundation
import Testing
import ObjDB
import ObjDBTestModels

/// Eight threads read frozen results while another thread writes and publishes new frozen
/// versions. Run it under Thread Sanitizer with
/// `swift test --sanitize=thread --filter FrozenStressTests` (it must report nothing); set
/// `OBJDB_STRESS_SECONDS` to run longer than the default 1.5 s.
@Suite(.serialized)
struct FrozenStressTests {
    let directory = TemporaryDirectory()

    /// The newest published version: frozen results and what they must add up to.
    final class Published: @unchecked Sendable {
        private let lock = NSLock()
        private var value: (results: FrozenResults<Person>, count: Int, ageSum: Int)?
        private var finished = false

        func publish(_ results: FrozenResults<Person>, count: Int, ageSum: Int) {
            lock.withLock { value = (results, count, ageSum) }
        }

        func finish() { lock.withLock { finished = true } }

        var current: (snapshot: (results: FrozenResults<Person>, count: Int, ageSum: Int)?, finished: Bool) {
            lock.withLock { (value, finished) }
        }
    }

    /// What the readers saw, totalled under a lock.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var reads = 0
        private(set) var mismatches: [String] = []

        func record(_ mismatch: String?) {
            lock.withLock {
                reads += 1
                if let mismatch, mismatches.count < 10 { mismatches.append(mismatch) }
            }
        }
    }

    @Test func eightReadersAndOneWriter() throws {
        let seconds = ProcessInfo.processInfo.environment["OBJDB_STRESS_SECONDS"].flatMap(Double.init) ?? 1.5
        let configuration = directory.configuration([Person.self])
        let published = Published()
        let tally = Tally()
        let group = DispatchGroup()

        let writer = Thread {
            defer { published.finish(); group.leave() }
            guard let db = try? Database(configuration: configuration) else {
                tally.record("the writer could not open the file")
                return
            }
            let deadline = Date().addingTimeInterval(seconds)
            var next = 1
            var ages: [Int: Int] = [:]
            while Date() < deadline {
                do {
                    try db.write {
                        for _ in 0..<5 {
                            try db.add(person(next, "P\(next)", age: next % 97))
                            ages[next] = next % 97
                            next += 1
                        }
                        if let victim = ages.keys.min(), next % 3 == 0,
                            let object = db.object(ofType: Person.self, forPrimaryKey: victim)
                        {
                            db.delete(object)
                            ages[victim] = nil
                        }
                        if let changed = ages.keys.max(), let object = db.object(ofType: Person.self, forPrimaryKey: changed) {
                            object.age = 1
                            ages[changed] = 1
                        }
                    }
                } catch {
                    tally.record("write failed: \(error)")
                    return
                }
                published.publish(db.objects(Person.self).freeze(), count: ages.count, ageSum: ages.values.reduce(0, +))
            }
        }
        group.enter()
        writer.start()

        for reader in 0..<8 {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                while true {
                    let (snapshot, finished) = published.current
                    guard let snapshot else {
                        if finished { return }
                        continue
                    }
                    let results = snapshot.results
                    var mismatch: String?
                    if reader % 2 == 0 {
                        let sum = results.reduce(0) { $0 + ($1.age ?? 0) }
                        if sum != snapshot.ageSum { mismatch = "iterated sum \(sum), expected \(snapshot.ageSum)" }
                    } else {
                        let sum: Int = results.sum(ofProperty: "age")
                        let young = results.where { $0.age < 50 }.count
                        let expectedYoung = results.filter { ($0.age ?? 0) < 50 }.count
                        if sum != snapshot.ageSum { mismatch = "summed \(sum), expected \(snapshot.ageSum)" }
                        if young != expectedYoung { mismatch = "query found \(young), iteration \(expectedYoung)" }
                    }
                    if results.count != snapshot.count { mismatch = "count \(results.count), expected \(snapshot.count)" }
                    tally.record(mismatch)
                    if finished { return }
                }
            }
            thread.start()
        }
        group.wait()
        #expect(tally.mismatches.isEmpty, "\(tally.mismatches)")
        #expect(tally.reads > 8)
    }
}
