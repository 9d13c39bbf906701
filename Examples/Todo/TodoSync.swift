import Foundation
import ObjDB
import ObjDBStore
import ObjDBSync

/// Sync mode's settings, from `--sync`, `--token`/`--token-file`/`OBJDB_SYNC_TOKEN` and `--wait`.
struct SyncOptions {
    /// The service's WebSocket address.
    var serverURL: URL
    /// The JWT sent to the service.
    var token: String
    /// How long a command waits for a download or an upload before going on offline.
    var wait: Duration
}

/// How a wait bounded by ``waitAtMost(_:for:_:)`` ended.
enum BoundedWait {
    /// The wait returned in time.
    case finished
    /// Time ran out; the client was stopped. `wasConnected` tells whether it was connected
    /// then (a slow transfer rather than an unreachable service).
    case timedOut(wasConnected: Bool)
    /// The wait threw before the time ran out.
    case failed(any Error)

    /// Whether the wait returned in time.
    var isFinished: Bool {
        if case .finished = self { return true }
        return false
    }
}

/// Runs `wait` — `waitForUpload()` or `waitForDownload()` of `sync` — for at most `limit`.
///
/// Those waits sit on continuations that task cancellation does not end, so at the timeout the
/// client is stopped, which fails them; cancelling the loser of the race only ends the timer.
func waitAtMost(_ limit: Duration, for sync: SyncClient, _ wait: @escaping @Sendable (SyncClient) async throws -> Void) async -> BoundedWait {
    await withTaskGroup(of: BoundedWait?.self) { group in
        group.addTask {
            do {
                try await wait(sync)
                return .finished
            } catch {
                return .failed(error)
            }
        }
        group.addTask {
            do { try await Task.sleep(for: limit) } catch { return nil }  // the wait ended first
            let wasConnected = sync.state == .connected
            await sync.stop()
            return .timedOut(wasConnected: wasConnected)
        }
        // The first result ends the timer; a timeout wins over the failure it caused.
        var results: [BoundedWait] = []
        for await result in group {
            if let result { results.append(result) }
            group.cancelAll()
        }
        for result in results {
            if case .timedOut = result { return result }
        }
        return results.first ?? .failed(CancellationError())
    }
}

/// The subject (`sub`) of a JWT, read without checking its signature: the user a new todo is
/// marked as made by. The service checks the token, and its rules check the owner.
func tokenSubject(_ token: String) -> String? {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else { return nil }
    var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    guard let data = Data(base64Encoded: base64),
        let payload = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return nil }
    return payload["sub"] as? String
}

/// What `stderr` says when a command goes on without the service.
enum OfflineNotice {
    static let list = "todo: offline; showing the local copy"
    static let change = "todo: offline; the change is saved and will upload when the service is reachable"
}

/// Runs `command` with the file at `path` kept in sync through the service: downloads first
/// (bounded), so that ids of todos made on other devices are known, then runs the command on
/// the app's own instance of the file, then waits for the upload (bounded). Without the
/// service, the command works on the local copy and says so on standard error.
@MainActor
func runSynced(_ command: String, _ rest: [String], path: String, options: SyncOptions) async throws {
    let url = URL(fileURLWithPath: path)
    let token = options.token
    // The store's state object stays local: each device keeps its own order of the todos.
    let sync = try SyncClient(
        configuration: TodoApp.configuration(url),
        sync: SyncConfiguration(serverURL: options.serverURL, token: { token }, localClasses: [StoreStateObject.className]))
    do {
        // The store's state object exists before the first download: a store that finds none
        // writes its initial state over the file's todos, which would delete downloaded ones.
        do {
            let db = try Database(configuration: TodoApp.configuration(url))
            try TodoApp.store(db).flush()
        }
        try await sync.subscriptions.update { $0.append(QuerySubscription<TodoObject>()) }
        await sync.start()
        if command == "watch" {
            // Downloads arrive as commits of the client's instance; the store rehydrates.
            let db = try Database(configuration: TodoApp.configuration(url))
            let store = try TodoApp.store(db, watching: true)
            try await watch(store, path: path)
            withExtendedLifetime((db, store)) {}
        } else {
            let download = await waitAtMost(options.wait, for: sync) { try await $0.waitForDownload() }
            let db = try Database(configuration: TodoApp.configuration(url))
            let store = try TodoApp.store(db)
            try perform(command, rest, on: store, owner: tokenSubject(token) ?? "")
            try store.flush()
            if command == "list" {
                if !download.isFinished { warn(OfflineNotice.list) }
            } else {
                var upload = download
                switch download {
                case .finished:
                    upload = await waitAtMost(options.wait, for: sync) { try await $0.waitForUpload() }
                case .timedOut(wasConnected: true):
                    // Connected but slow: the timeout stopped the client; try the upload again.
                    await sync.start()
                    upload = await waitAtMost(options.wait, for: sync) { try await $0.waitForUpload() }
                case .timedOut, .failed:
                    break  // the service was not reachable for the download: no upload either
                }
                if !upload.isFinished { warn(OfflineNotice.change) }
            }
            withExtendedLifetime(db) {}
        }
    } catch {
        await sync.stop()
        throw error
    }
    await sync.stop()
}
