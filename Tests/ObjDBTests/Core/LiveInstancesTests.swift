import Foundation
import Testing
@testable import ObjDB

/// An actor that opens live instances of its own (each registered for this actor).
private actor InstanceOpener {
    /// Opens an instance, reads how many instances the registry lists for its file while it is
    /// open, and drops it.
    func openAndCount(_ configuration: Configuration) throws -> Int {
        let db = try Database(configuration: configuration)
        return withExtendedLifetime(db) { LiveInstances.shared.count(path: db.path) }
    }

    /// Opens and drops `times` instances, keeping each until `seen` moves on (a lookup got it)
    /// or for at most 2 ms, so that lookups race with the last releases. Until a first lookup
    /// got one, for up to 10 s: on a loaded machine the looking task may not run for a while.
    func churn(_ configuration: Configuration, times: Int, seen: Counter) throws {
        for _ in 0..<times {
            let db = try Database(configuration: configuration)
            let before = seen.value
            let wait: UInt64 = before == 0 ? 10_000_000_000 : 2_000_000
            let deadline = DispatchTime.now().uptimeNanoseconds + wait
            while seen.value == before && DispatchTime.now().uptimeNanoseconds < deadline {}
            withExtendedLifetime(db) {}
        }
    }

    /// Opens an instance and keeps it until `body` returns.
    func withInstance<R: Sendable>(_ configuration: Configuration, _ body: @Sendable () -> R) throws -> R {
        let db = try Database(configuration: configuration)
        return withExtendedLifetime(db) { body() }
    }
}

/// The registry of live instances that `thaw()` uses: it holds no reference to them (a weak one
/// would slow every retain of a `Database`), so an instance's `deinit` must take it out, and a
/// lookup racing with the last release must never hand out an instance being deinitialized.
@Suite(.serialized) struct LiveInstancesTests {
    let directory = TemporaryDirectory()

    @Test func anInstanceIsListedWhileOpenAndLeavesWhenItGoes() async throws {
        let opener = InstanceOpener()
        let configuration = directory.configuration()
        // Counted per file: other suites open instances of their own meanwhile.
        let path = try directory.open().path  // the path as instances report it (opened outside any actor: not listed)
        #expect(LiveInstances.shared.count(path: path) == 0)
        let whileOpen = try await opener.openAndCount(configuration)
        #expect(whileOpen == 1)
        #expect(LiveInstances.shared.count(path: path) == 0)
    }

    @Test func theInstanceOfAnActorIsFoundForItOnly() async throws {
        let opener = InstanceOpener()
        let other = InstanceOpener()
        let configuration = directory.configuration()
        let path = try directory.open().path  // the path as instances report it (opened outside any actor: not listed)
        let (mine, others) = try await opener.withInstance(configuration) {
            (LiveInstances.shared.instance(path: path, context: .actor(ObjectIdentifier(opener))) != nil,
             LiveInstances.shared.instance(path: path, context: .actor(ObjectIdentifier(other))) != nil)
        }
        #expect(mine)
        #expect(!others)
        // Gone with the instance.
        #expect(LiveInstances.shared.instance(path: path, context: .actor(ObjectIdentifier(opener))) == nil)
    }

    /// Lookups while an actor opens and drops instances: a lookup either misses or gets an
    /// instance it may use and release, often the last reference, so that the instance's deinit
    /// runs on the looking thread. Run it under the thread sanitizer when the registry changes
    /// (`swift test --sanitize=thread --filter LiveInstancesTests`): a use after free crashes or
    /// is reported.
    @Test func lookupsRacingWithLastReleasesGetALiveInstanceOrNone() async throws {
        let opener = InstanceOpener()
        let configuration = directory.configuration()
        let path = try directory.open().path  // the path as instances report it (opened outside any actor: not listed)
        let context = IsolationContext.actor(ObjectIdentifier(opener))
        let stop = ManagedAtomicFlag()
        let found = Counter()
        let looker = Task.detached {
            while !stop.isSet {
                if let db = LiveInstances.shared.instance(path: path, context: context) {
                    // A usable instance: its immutable state reads as it was opened.
                    if db.path == path { found.increment() }
                }
            }
        }
        try await opener.churn(configuration, times: 200, seen: found)
        stop.set()
        await looker.value
        #expect(found.value > 0)
        #expect(LiveInstances.shared.count(path: path) == 0)
        #expect(LiveInstances.shared.instance(path: path, context: context) == nil)
    }
}

/// A flag set once, read from other threads.
private final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// A counter shared between threads.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
