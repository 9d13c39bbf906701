import Foundation
import ObjDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The child process of a crash cycle: commits the plan's transactions one after another until
/// it is killed, and acknowledges each after `commitWrite` returned.
///
/// Output: `ready sequence=<last committed>` once the file is open, then `ack sequence=<n>
/// operation=<name> live=<items>` after each commit.
enum CrashWorker {
    static func run(file: String, plan: CrashPlan, durability: Durability) throws {
        let parent = getppid()
        var config = Configuration(
            fileURL: URL(fileURLWithPath: file), objectTypes: crashModelTypes, durability: durability)
        config.encryptionKey = HarnessKey.current
        let db = try Database(configuration: config)
        var state = CrashCheck.state(of: db)
        Output.line("ready sequence=\(state.sequence)")
        while getppid() == parent {
            let sequence = state.sequence + 1
            let operation = plan.operation(sequence, after: state)
            var next = state
            next.apply(operation, sequence: sequence)
            try db.write {
                try write(operation, sequence: sequence, state: state, db: db)
                let marker = CrashMarker()
                marker.sequence = sequence
                marker.operation = operation.name
                marker.liveItems = next.ids.count
                marker.nextItem = next.nextItem
                try db.add(marker)
            }
            state = next
            Output.line("ack sequence=\(sequence) operation=\(operation.name) live=\(state.ids.count)")
        }
    }

    /// Writes `operation` in the current write transaction.
    static func write(_ operation: CrashOperation, sequence: Int, state: CrashState, db: Database) throws {
        switch operation {
        case .insert(let first, let count):
            let items = (first..<(first + count)).map { id -> CrashItem in
                let item = CrashItem()
                item.id = id
                CrashContent.fill(item, version: 0, writtenBy: sequence)
                for partID in CrashContent.parts(id) {
                    let part = CrashPart()
                    part.id = partID
                    part.name = CrashContent.partName(partID)
                    item.parts.append(part)
                }
                return item
            }
            try db.add(items)
        case .update(let ids):
            for id in ids {
                guard let item = db.object(ofType: CrashItem.self, forPrimaryKey: id), let old = state.items[id] else {
                    throw HarnessError("crash worker: item \(id) to update is missing")
                }
                CrashContent.fill(item, version: old.version + 1, writtenBy: sequence)
            }
        case .delete(let ids):
            for id in ids {
                guard let item = db.object(ofType: CrashItem.self, forPrimaryKey: id) else {
                    throw HarnessError("crash worker: item \(id) to delete is missing")
                }
                db.delete(item)
            }
        }
    }
}
