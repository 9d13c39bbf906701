import Foundation
import Testing
import ObjDB
import ObjDBStore

/// State migrations at launch (by version, in one transaction), newer stored versions, and
/// states that do not decode.
@MainActor
struct StoreStateMigrationTests {
    let scratch = Scratch()

    /// Stores `json` at `version` under key "app", as an older app would have.
    func storeOld(_ json: String, version: Int) throws {
        let db = try scratch.open()
        try db.write {
            let object = StoreStateObject()
            object.key = "app"
            object.version = version
            object.json = json
            try db.add(object)
        }
    }

    func open(version: Int, migrations: [Int: StorePersistence<CounterState>.StateMigration], reset: Bool = false) throws -> Store<CounterState> {
        var persistence = StorePersistence<CounterState>.database(try scratch.open(), key: "app", version: version, migrations: migrations)
        if reset { persistence = persistence.resettingUndecodableState() }
        return try Store(reducer: counterReducer, state: CounterState(name: "fresh"), persistence: persistence)
    }

    // v1 → v3 in one launch: each step runs once, in order, and the result is stored at v3.
    @Test func migrationsRunInOrderFromTheStoredVersion() throws {
        try storeOld(#"{"counter": 5}"#, version: 1)
        var steps: [Int] = []
        let store = try open(version: 3, migrations: [
            2: { state in
                steps.append(2)
                state["count"] = state["counter"]
                state["counter"] = nil
            },
            3: { state in
                steps.append(3)
                state["name"] = "migrated"
                state["items"] = [Any]()
            },
        ])
        #expect(steps == [2, 3])
        #expect(store.state == CounterState(count: 5, name: "migrated"))
        let stored = try #require(try storedState(scratch.file(), key: "app"))
        #expect(stored.version == 3)
        #expect(stored.json == #"{"count":5,"items":[],"name":"migrated"}"#)
        // The next launch runs nothing.
        steps = []
        _ = try open(version: 3, migrations: [2: { _ in steps.append(2) }, 3: { _ in steps.append(3) }])
        #expect(steps.isEmpty)
    }

    /// Expects opening to fail with `code` and a message containing `text`, leaving the stored
    /// state as it was.
    func expectFailure(_ code: ObjDBError.Code, _ text: String, version: Int,
                       migrations: [Int: StorePersistence<CounterState>.StateMigration] = [:]) throws {
        let before = try storedState(scratch.file(), key: "app")
        #expect {
            try open(version: version, migrations: migrations)
        } throws: { error in
            let error = error as? ObjDBError
            return error?.code == code && error?.message.contains(text) == true && error?.key == "app"
        }
        let after = try storedState(scratch.file(), key: "app")
        #expect(after?.version == before?.version)
        #expect(after?.json == before?.json)
    }

    @Test func aMissingStepFailsAndLeavesTheStateAlone() throws {
        try storeOld(#"{"counter": 5}"#, version: 1)
        try expectFailure(.migrationFailed, "no state migration leads to version 3", version: 3, migrations: [2: { $0["x"] = 1 }])
    }

    @Test func aThrowingStepFailsAndLeavesTheStateAlone() throws {
        struct Refused: Error {}
        try storeOld(#"{"counter": 5}"#, version: 1)
        try expectFailure(.migrationFailed, "migration to version 2 of key 'app' threw: Refused()", version: 2, migrations: [2: { _ in throw Refused() }])
    }

    @Test func aNewerStoredVersionFails() throws {
        try storeOld(#"{"count":1,"items":[],"name":"x"}"#, version: 4)
        try expectFailure(.migrationRequired, "has version 4, newer than this store's version 2", version: 2)
    }

    // A state that does not decode names the key, the type and the path; nothing is changed.
    @Test func anUndecodableStateFailsWithTheKeyAndType() throws {
        try storeOld(#"{"count":"three","items":[],"name":"x"}"#, version: 1)
        try expectFailure(.stateNotDecodable, "key 'app' (version 1) cannot be decoded as CounterState: count is not a", version: 1)
    }

    // Opting in to a reset replaces an undecodable state with the initial one.
    @Test func anUndecodableStateCanBeReset() throws {
        try storeOld(#"{"count":"three"}"#, version: 1)
        let store = try open(version: 1, migrations: [:], reset: true)
        #expect(store.state == CounterState(name: "fresh"))
        #expect(try storedState(scratch.file(), key: "app")?.json.contains(#""name":"fresh""#) == true)
    }
}
