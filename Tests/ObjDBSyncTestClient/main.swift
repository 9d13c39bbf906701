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
//   ObjDBSyncTestClient <file> <url> <token> work <user> <seed> <operations>
//       the fault harness's worker: random creates, updates, deletes and list appends (its own
//       todos "<user>-<n>", titled "<user>:…"; appends to the shared todos "shared-<n>" the
//       file holds), now
//       and then a subscription change (every todo, or those not done); prints "append <id>
//       <token>" after each append's commit and "acked <token> …" once waitForUpload has
//       returned after them
//   ObjDBSyncTestClient <file> <url> <token> settle
//       with the subscriptions the file holds (every todo for a file that holds none): waits
//       for the upload and the download, prints
//       "subscription all" or "subscription open", then each todo as "id|title|done|count|lines"

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
    case "work":
        guard arguments.count >= 7, let seed = UInt64(arguments[5]), let operations = Int(arguments[6]) else {
            fail("work needs <user> <seed> <operations>")
        }
        try await work(user: arguments[4], seed: seed, operations: operations)
    case "settle":
        let client = try SyncClient(configuration: configuration, sync: sync)
        // A new file subscribes to every todo; a file keeps what its workers chose.
        if client.subscriptions.count == 0 {
            try await client.subscriptions.update { $0.append(QuerySubscription<SyncedTodo>(name: "todos")) }
        }
        await client.start()
        try await client.waitForUpload()
        try await client.waitForDownload()
        await client.stop()
        say(client.subscriptions.all.contains { $0.hasQuery } ? "subscription open" : "subscription all")
        let db = try Database(configuration: configuration, isolation: nil)
        for todo in db.objects(SyncedTodo.self).sorted(by: \.id) {
            say("\(todo.id)|\(todo.title)|\(todo.done)|\(todo.count)|\(Array(todo.lines).joined(separator: ","))")
        }
    default:
        fail("unknown command \(arguments[3])")
    }
} catch {
    fail("\(error)")
}

/// The fault harness's worker (see the usage above).
@MainActor func work(user: String, seed: UInt64, operations: Int) async throws {
    var random = SeededGenerator(state: seed)
    let client = try SyncClient(configuration: configuration, sync: sync)
    await client.start()
    let db = try Database(configuration: configuration, isolation: nil)
    var unacknowledged: [String] = []
    for step in 0..<operations {
        let roll = Int.random(in: 0..<100, using: &random)
        if roll < 4 {
            let open = Bool.random(using: &random)
            try await client.subscriptions.update { subs in
                subs.removeAll()
                subs.append(open ? QuerySubscription<SyncedTodo>(name: "todos", where: "done == false") : QuerySubscription<SyncedTodo>(name: "todos"))
            }
            continue
        }
        db.refresh()
        let own = "\(user)-\(Int.random(in: 0..<6, using: &random))"
        var appended: (String, String)?
        try db.write {
            let existing = db.object(ofType: SyncedTodo.self, forPrimaryKey: own)
            switch roll {
            case 4..<20 where existing == nil:
                let todo = SyncedTodo()
                todo.id = own
                todo.title = "\(user):made \(step)"
                try db.add(todo)
            case 20..<35: existing?.title = "\(user):\(step)"
            case 35..<45: existing?.done.toggle()
            case 45..<55: existing?.count = Int.random(in: 0...9, using: &random)
            case 55..<62: if let existing { db.delete(existing) }
            default:
                // An append to a shared todo (the harness made them; a create here would carry
                // the whole list, which replaces another's by the conflict rules): the token is
                // this operation's, once.
                let id = "shared-\(Int.random(in: 0..<3, using: &random))"
                guard let todo = db.object(ofType: SyncedTodo.self, forPrimaryKey: id) else { break }
                let token = "\(user).\(seed).\(step)"
                todo.lines.append(token)
                appended = (id, token)
            }
        }
        if let (id, token) = appended {
            say("append \(id) \(token)")
            unacknowledged.append(token)
        }
        if step % 7 == 6 {
            try await client.waitForUpload()
            if !unacknowledged.isEmpty { say("acked " + unacknowledged.joined(separator: " ")) }
            unacknowledged = []
        }
        try await Task.sleep(for: .milliseconds(Int.random(in: 0..<15, using: &random)))
    }
    try await client.waitForUpload()
    if !unacknowledged.isEmpty { say("acked " + unacknowledged.joined(separator: " ")) }
    say("done")
    await client.stop()
}

