import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// A repository class, as Realm apps wrap their database: nonisolated, so its synchronous
/// initializer opens the database with no `#isolation` of its caller's.
final class PeopleRepository {
    let db: Database

    init(configuration: Configuration) throws {
        db = try Database(configuration: configuration)
    }
}

/// A database opened by main-actor code belongs to the main actor even when the code that opens
/// it is not marked so (a wrapper's initializer, a block on the main queue): it delivers other
/// instances' commits on the main queue, and `thaw()` on the main actor finds it.
///
/// The time limit catches hangs only: in a parallel run on 2 cores a test can wait minutes for
/// the main actor and the thread pool (a limit of one minute failed a CI run that way).
@Suite(.serialized, .timeLimit(.minutes(5)))
struct MainQueueDeliveryTests {
    let directory = TemporaryDirectory()

    /// Waits until `condition` holds, up to five seconds, letting the main queue run.
    @MainActor
    func eventually(_ condition: @MainActor () -> Bool) async throws -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test @MainActor func aWrapperOpenedFromTheMainActorDeliversThere() async throws {
        let configuration = directory.configuration([Person.self])
        let repository = try PeopleRepository(configuration: configuration)
        var calls: [String] = []
        let token = repository.db.objects(Person.self).observe { calls.append(ChangeSequenceTests.shape($0)) }
        #expect(try await eventually { calls == ["initial 0"] })
        try onAnotherThread(configuration) { other in try other.write { try other.add(person(1, "Ann")) } }
        #expect(try await eventually { calls == ["initial 0", "update d[] i[0] m[]"] })
        // thaw() on the main actor finds the wrapper's instance.
        let frozen = repository.db.objects(Person.self).freeze()
        #expect(frozen.thaw()?.database === repository.db)
        withExtendedLifetime(token) {}
    }

    // What decides it: code on the main queue counts as the main actor's, on whichever thread
    // the queue runs; code on another queue does not.
    @Test func codeOnTheMainQueueIsTheMainActors() async throws {
        let onMain = await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume(returning: IsolationContext(nil) == .main) }
        }
        let elsewhere = await withCheckedContinuation { continuation in
            DispatchQueue(label: "objdb.tests.not-main").async { continuation.resume(returning: IsolationContext(nil)) }
        }
        let detached = await Task.detached { IsolationContext(nil) }.value
        #expect(onMain)
        #expect(elsewhere == nil)
        #expect(detached == nil)
    }
}
