import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Commits by another process (the `ObjDBTestHelper` executable) reach observers here through
/// the file watcher, with the exact change set, without a `refresh()`.
@Suite(.serialized)
struct CrossProcessNotificationTests {
    let directory = TemporaryDirectory()

    /// Observes, on its own executor, all persons and the person with key 1 once it exists.
    actor Observing {
        var db: Database?
        var tokens: [NotificationToken] = []
        var collection: [String] = []
        var object: [String] = []

        func start(_ configuration: Configuration) throws {
            let db = try Database(configuration: configuration)
            self.db = db
            tokens.append(db.objects(Person.self).sorted(by: \.name).observe { change in
                switch change {
                case .initial(let people): self.collection.append("initial \(people.map(\.name))")
                case .update(let people, let d, let i, let m): self.collection.append("d\(d) i\(i) m\(m) \(people.map(\.name))")
                case .error(let error): self.collection.append("error \(error)")
                }
            })
        }

        func observePerson(_ id: Int) throws {
            let person = try #require(db?.object(ofType: Person.self, forPrimaryKey: id))
            tokens.append(person.observe(keyPaths: [\.name]) { change in
                switch change {
                case .change(_, let properties):
                    self.object.append(properties.map { "\($0.name): \($0.oldValue ?? "nil") → \($0.newValue ?? "nil")" }.joined())
                case .deleted: self.object.append("deleted")
                case .error(let error): self.object.append("error \(error)")
                }
            })
        }
    }

    func eventually(isolation: isolated (any Actor)? = #isolation, _ condition: () async -> Bool) async throws -> Bool {
        for _ in 0..<1000 {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    func helper(_ arguments: String...) throws {
        let result = try HelperProcess.run(arguments)
        #expect(result.status == 0, "\(result.error)")
    }

    @Test func anotherProcessesCommitsArriveWithTheirChanges() async throws {
        let configuration = directory.configuration([Person.self])
        let observing = Observing()
        try await observing.start(configuration)
        #expect(try await eventually { await observing.collection == ["initial []"] })

        try helper("put", directory.file().path, "1", "Cy")
        #expect(try await eventually { await observing.collection.last == "d[] i[0] m[] [\"Cy\"]" })
        try helper("put", directory.file().path, "2", "Ann")
        #expect(try await eventually { await observing.collection.last == "d[] i[0] m[] [\"Ann\", \"Cy\"]" })

        // A rename that keeps its place in the sort: a modification, and the old value.
        try await observing.observePerson(1)
        try helper("put", directory.file().path, "1", "Bo")
        #expect(try await eventually { await observing.object == ["name: Cy → Bo"] })
        #expect(try await eventually { await observing.collection.last == "d[] i[] m[1] [\"Ann\", \"Bo\"]" })
        // Each commit was one call: nothing was coalesced away or told twice.
        let calls = await observing.collection
        #expect(calls.count == 4, "\(calls)")
    }

    #if os(Linux)
    /// When the file cannot be watched (the per-user inotify limit reached), commits by other
    /// processes still arrive, by polling, and the fallback is reported once.
    @Test func withoutAFileWatchCommitsArriveByPollingAndTheFallbackIsReported() async throws {
        FileWatcher.unwatchableForTesting.insert(directory.file().path)
        defer { FileWatcher.unwatchableForTesting.remove(directory.file().path) }
        let failures = FailureBox()
        var configuration = directory.configuration([Person.self])
        configuration.readFailureHandler = { failures.append($0) }
        let observing = Observing()
        try await observing.start(configuration)
        #expect(try await eventually { await observing.collection == ["initial []"] })
        #expect(failures.errors.contains { $0.code == .storage && $0.message.contains("by polling") && $0.message.contains("inotify_init1") }, "\(failures.errors)")

        try helper("put", directory.file().path, "1", "Cy")
        #expect(try await eventually { await observing.collection.last == "d[] i[0] m[] [\"Cy\"]" })
        // Another instance observing the file is not told again.
        let other = try Database(configuration: configuration)
        let token = other.objects(Person.self).observe { _ in }
        other.refresh()
        #expect(failures.errors.filter { $0.message.contains("by polling") }.count == 1, "\(failures.errors)")
        token.invalidate()
    }
    #endif
}
