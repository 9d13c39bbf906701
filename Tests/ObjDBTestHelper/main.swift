import Foundation
import ObjDB
import ObjDBTestModels
import ObjDBStore

// A second process for the tests. Commands:
//   put <file> <id> <name>          adds or updates a Person and commits
//   hold-write <file> <seconds>     begins a write, prints "holding", waits, then commits
//   count <file>                    prints the number of Person objects
//   migrate <file> <stop>           migrates MigratingItemV0 to V1 (schema version 1), printing
//                                   "rewriting", "block", "enumerating" and "enumerated" as it goes;
//                                   with <stop> "end" it sleeps after the block's last write
//                                   (before the commit), for a test to kill it there
//   store-count <file> <n>          dispatches n increments to a Store persisted under key
//                                   "counter", flushes, prints "flushed" and sleeps (to be killed)
// With OBJDB_TEST_ENCRYPTION_KEY (128 hexadecimal digits) set, files are opened with that key.

/// Fails with a message on standard error and exit code 2.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ObjDBTestHelper: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments.dropFirst()
guard let command = arguments.first, arguments.count >= 2 else { fail("usage: put|hold-write|count <file> …") }
let url = URL(fileURLWithPath: arguments[arguments.startIndex + 1])
// OBJDB_TEST_ENCRYPTION_KEY: the 64-byte key of an encrypted file, in hexadecimal.
let encryptionKey: Data? = ProcessInfo.processInfo.environment["OBJDB_TEST_ENCRYPTION_KEY"].map { hex in
    Data(stride(from: 0, to: hex.count - 1, by: 2).compactMap { i in
        UInt8(hex.dropFirst(i).prefix(2), radix: 16)
    })
}
var config = Configuration(fileURL: url, objectTypes: [Person.self])
config.encryptionKey = encryptionKey

/// Writes a line to standard output at once (the test reads it while the process runs).
@Sendable func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

if command == "migrate" {
    guard arguments.count == 3 || arguments.count == 4 else { fail("migrate <file> <stop> [plain]") }
    let stop = arguments[arguments.startIndex + 2]
    // "plain": the model without an index, whose rows the enumeration rewrites as it goes.
    let plain = arguments.count == 4 && arguments[arguments.startIndex + 3] == "plain"
    var migrating = Configuration(fileURL: url, objectTypes: [plain ? MigratingPlainItemV1.self : MigratingItemV1.self])
    migrating.encryptionKey = encryptionKey
    migrating.schemaVersion = 1
    migrating.migrationProgress = { progress in
        if progress.processed == 1_000 { say(progress.phase.rawValue) }
    }
    migrating.migrationBlock = { migration, _ in
        say("block")
        migration.renameProperty(onType: "MigratingItem", from: "title", to: "name")
        try migration.enumerateObjects(ofType: "MigratingItem") { old, new in
            new?["total"] = "\((old?["count"] as? Int) ?? 0)"
        }
        say("enumerated")
        if stop == "end" { Thread.sleep(forTimeInterval: 30) }
    }
    do {
        let db = try Database(configuration: migrating)
        print(plain ? db.objects(MigratingPlainItemV1.self).count : db.objects(MigratingItemV1.self).count)
    } catch {
        fail("\(error)")
    }
    exit(0)
}

/// The state of the "counter" store (the tests decode the same JSON shape).
struct HelperCounter: Codable { var count = 0 }
/// Counts up.
struct Increment: Action {}

if command == "store-count" {
    guard arguments.count == 3, let n = Int(arguments[arguments.startIndex + 2]) else { fail("store-count <file> <n>") }
    do {
        var storeConfig = Configuration(fileURL: url)
        storeConfig.encryptionKey = encryptionKey
        let db = try Database(configuration: storeConfig)
        let store = try Store(
            reducer: { (action: any Action, state: HelperCounter) in action is Increment ? HelperCounter(count: state.count + 1) : state },
            state: HelperCounter(), persistence: .database(db, key: "counter").writeInterval(.seconds(3600)))
        for _ in 0..<n { store.dispatch(Increment()) }
        try store.flush()
        say("flushed")
        Thread.sleep(forTimeInterval: 30)
    } catch {
        fail("\(error)")
    }
    exit(0)
}

do {
    let db = try Database(configuration: config)
    switch command {
    case "put":
        guard arguments.count == 4, let id = Int(arguments[arguments.startIndex + 2]) else { fail("put <file> <id> <name>") }
        let person = Person()
        person.id = id
        person.name = arguments[arguments.startIndex + 3]
        try db.write { try db.add(person, update: .modified) }
    case "hold-write":
        guard arguments.count == 3, let seconds = Double(arguments[arguments.startIndex + 2]) else { fail("hold-write <file> <seconds>") }
        try db.write {
            let person = Person()
            person.id = 1_000_000
            person.name = "held"
            try db.add(person, update: .modified)
            FileHandle.standardOutput.write(Data("holding\n".utf8))
            Thread.sleep(forTimeInterval: seconds)
        }
    case "count":
        print(db.objects(Person.self).count)
    default:
        fail("unknown command \(command)")
    }
} catch {
    fail("\(error)")
}
