import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// `writeCopy(toFile:)` and `shouldCompactOnLaunch`, as realm-swift's `RealmTests`
/// (`testWriteCopyToPath`, `testCompactOnLaunch…`) use them.
@Suite(.serialized)
struct CompactionTests {
    let directory = TemporaryDirectory()

    /// A file that held 20,000 people, 90 % of them deleted since; its size.
    func mostlyDeleted() throws -> Int {
        let db = try directory.open([Person.self])
        try db.write {
            for id in 0..<20_000 { try db.add(person(id, String(repeating: "n", count: 100) + "\(id)")) }
        }
        try db.write { db.delete(db.objects(Person.self).where { $0.id >= 2_000 }) }
        return db.fileSize
    }

    @Test func writeCopyIsCompactAndComplete() throws {
        let size = try mostlyDeleted()
        let db = try directory.open([Person.self])
        let copy = directory.file("copy.objdb")
        try db.writeCopy(toFile: copy)
        let copied = try #require(FileManager.default.attributesOfItem(atPath: copy.path)[.size] as? Int)
        #expect(copied < size / 4, "copy \(copied) bytes, file \(size)")
        let error = try #require(throws: ObjDBError.self) { try db.writeCopy(toFile: copy) }
        #expect(error.code == .invalidValue)
        let reopened = try Database(configuration: Configuration(fileURL: copy, objectTypes: [Person.self]))
        #expect(reopened.objects(Person.self).count == 2_000)
        #expect(reopened.object(ofType: Person.self, forPrimaryKey: 1_999)?.name.hasSuffix("1999") == true)
        #expect(try reopened.verify().isHealthy)
    }

    @Test func compactionAtLaunchShrinksTheFile() throws {
        let size = try mostlyDeleted()
        let asked = LockedCalls()
        var configuration = directory.configuration([Person.self])
        configuration.shouldCompactOnLaunch = { total, used in
            asked.append("\(total) \(used)")
            return used < total / 2
        }
        let db = try Database(configuration: configuration)
        let report = try #require(asked.all.first?.split(separator: " ").compactMap { Int($0) })
        #expect(report.first == size)
        #expect(report.count == 2 && report[1] < size / 4)
        guard case .compacted(let from, let to) = db.compactionOnLaunch else {
            Issue.record("not compacted: \(String(describing: db.compactionOnLaunch))")
            return
        }
        #expect(from == size)
        #expect(to < size / 4)
        #expect(db.fileSize == to)
        #expect(db.objects(Person.self).count == 2_000)
        #expect(try db.verify().isHealthy)
        // Open in this process already: skipped, and says why.
        let second = try Database(configuration: configuration)
        #expect(second.compactionOnLaunch == .skipped(reason: "the file is already open in this process"))
    }

    /// The compacted copy keeps what the file had besides its bytes: permissions, owner and group
    /// (when this process may give them: it runs as root here, or owns the file), and extended
    /// attributes (a tag, an ACL or a label lives there).
    @Test func compactionAtLaunchKeepsPermissionsOwnerAndExtendedAttributes() throws {
        #if os(Linux)
        let size = try mostlyDeleted()
        let path = directory.file().path
        #expect(chmod(path, 0o640) == 0)
        let tag = Array("kept".utf8)
        let tagged = FileAttributes.setForTesting("user.objdb.test", tag, on: path)
        let asRoot = getuid() == 0
        if asRoot { #expect(chown(path, 65_534, 65_534) == 0) }
        var configuration = directory.configuration([Person.self])
        configuration.shouldCompactOnLaunch = { _, _ in true }
        let db = try Database(configuration: configuration)
        guard case .compacted(_, let to) = db.compactionOnLaunch else {
            Issue.record("not compacted: \(String(describing: db.compactionOnLaunch))")
            return
        }
        #expect(to < size / 4)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o7777 == 0o640)
        if asRoot { #expect(status.st_uid == 65_534 && status.st_gid == 65_534) }
        if tagged { #expect(FileAttributes.getForTesting("user.objdb.test", of: path) == tag) }
        #expect(db.objects(Person.self).count == 2_000)
        #endif
    }

    @Test func aDeclinedCompactionLeavesTheFile() throws {
        let size = try mostlyDeleted()
        var configuration = directory.configuration([Person.self])
        configuration.shouldCompactOnLaunch = { _, _ in false }
        let db = try Database(configuration: configuration)
        guard case .declined(let total, let used) = db.compactionOnLaunch else {
            Issue.record("not declined: \(String(describing: db.compactionOnLaunch))")
            return
        }
        #expect(total == size && used < total)
        #expect(db.fileSize == size)
    }

    /// A lock on the file let go moments later (a process closing it, or a child process of
    /// this one between `fork` and `exec`, which shares this process's descriptors) does not
    /// make the compaction give up. Held here through a second descriptor of the lock file, which
    /// `flock` treats as another holder, and released from another thread after 20 ms.
    @Test func aLockLetGoMomentsLaterStillCompacts() throws {
        let size = try mostlyDeleted()
        let holder = open(directory.file().path + "-lock", O_RDWR | O_CLOEXEC)
        try #require(holder >= 0)
        #expect(flock(holder, LOCK_SH) == 0)
        let released = Thread {
            usleep(20_000)
            close(holder)
        }
        released.start()
        var configuration = directory.configuration([Person.self])
        configuration.shouldCompactOnLaunch = { _, _ in true }
        let db = try Database(configuration: configuration)
        guard case .compacted(let from, let to) = db.compactionOnLaunch else {
            Issue.record("not compacted: \(String(describing: db.compactionOnLaunch))")
            return
        }
        #expect(from == size && to < size / 4)
        #expect(db.objects(Person.self).count == 2_000)
    }

    @Test func anotherProcessHoldingTheFileSkipsTheCompaction() throws {
        _ = try mostlyDeleted()
        let (process, output, _) = try HelperProcess.start(["hold-write", directory.file().path, "2"])
        defer { process.waitUntilExit() }
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        #expect(line.contains("holding"))
        var configuration = directory.configuration([Person.self])
        configuration.shouldCompactOnLaunch = { _, _ in true }
        let db = try Database(configuration: configuration)
        guard case .skipped(let reason) = db.compactionOnLaunch else {
            Issue.record("not skipped: \(String(describing: db.compactionOnLaunch))")
            return
        }
        #expect(reason.contains("another process"))
        #expect(db.objects(Person.self).count == 2_000)
    }
}
