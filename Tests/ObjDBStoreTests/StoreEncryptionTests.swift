import Foundation
import Testing
import ObjDB
import ObjDBStore

/// A Store persisted into an encrypted file: restored with the key, unreadable in the file's bytes.
@MainActor
struct StoreEncryptionTests {
    let scratch = Scratch()
    static let key = Data((0..<64).map { UInt8(($0 * 13 + 5) % 256) })

    func open(key: Data?) throws -> Database {
        var config = Configuration(fileURL: scratch.file())
        config.encryptionKey = key
        return try Database(configuration: config)
    }

    @Test func theStateIsRestoredWithTheKeyAndNotStoredInTheClear() throws {
        do {
            let store = try Store(
                reducer: counterReducer, state: CounterState(),
                persistence: .database(try open(key: Self.key), key: "vault-state").writeInterval(.seconds(3600)))
            for _ in 0..<5 { store.dispatch(CounterStateAction.increase) }
            store.dispatch(CounterStateAction.rename("Private-Ledger-Name"))
            try store.flush()
        }
        let bytes = try Data(contentsOf: scratch.file())
        for needle in ["Private-Ledger-Name", "vault-state", "\"count\""] {
            #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(needle) is in the file")
        }
        #expect(throws: ObjDBError.self) { _ = try open(key: nil) }
        let store = try Store(
            reducer: counterReducer, state: CounterState(),
            persistence: .database(try open(key: Self.key), key: "vault-state").writeInterval(.seconds(3600)))
        #expect(store.state.count == 5)
        #expect(store.state.name == "Private-Ledger-Name")
    }
}
