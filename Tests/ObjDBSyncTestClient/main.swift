import Foundation
import ObjDB
import ObjDBSync
import ObjDBSyncTestModels

#if canImport(Glibc)
import Glibc
#endif

// A second process for the sync tests, killed by them at chosen moments:
//
//   ObjDBSyncTestClient <file> <url> <token> append <id> <line> --kill
//       appends <line> to todo <id> (creating it) and kills itself with SIGKILL right after
//       the commit, before any upload
//   ObjDBSyncTestClient <file> <url> <token> sync
//       starts a SyncClient, prints "uploaded" once the outbox is in PostgreSQL, then
//       "downloaded", and exits

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ObjDBSyncTestClient: \(message)\n".utf8))
    exit(1)
}

func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 4, let url = URL(string: arguments[1]) else { fail("usage: <file> <url> <token> append|sync …") }
let fileURL = URL(fileURLWithPath: arguments[0])
let token = arguments[2]
var configuration = Configuration(fileURL: fileURL)
configuration.objectTypes = syncedTestTypes
let sync = SyncConfiguration(serverURL: url, token: { token }, reconnectDelay: .milliseconds(50), maximumReconnectDelay: .milliseconds(300))

do {
    switch arguments[3] {
    case "append":
        guard arguments.count >= 6 else { fail("append needs <id> <line>") }
        let db = try Database(configuration: configuration, isolation: nil)
        try db.write {
            let todo = db.object(ofType: SyncedTodo.self, forPrimaryKey: arguments[4]) ?? {
                let todo = SyncedTodo()
                todo.id = arguments[4]
                return todo
            }()
            if !todo.isManaged { try db.add(todo) }
            todo.lines.append(arguments[5])
        }
        if arguments.contains("--kill") { kill(getpid(), SIGKILL) }
    case "sync":
        let client = try SyncClient(configuration: configuration, sync: sync)
        try await client.subscriptions.update { $0.append(QuerySubscription<SyncedTodo>()) }
        await client.start()
        try await client.waitForUpload()
        say("uploaded")
        try await client.waitForDownload()
        say("downloaded")
        await client.stop()
    default:
        fail("unknown command \(arguments[3])")
    }
} catch {
    fail("\(error)")
}
