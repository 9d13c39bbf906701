import Foundation
import Testing
import ObjDB
@testable import ObjDBReliability

extension ReliabilityAttacks {
    /// SIGKILL crash cycles, short: every acknowledged commit survives, nothing beyond the one in
    /// flight appears, every file opens and verifies healthy.
    @Suite struct CrashCycleTests {
        let scratch = ScratchDirectory()

        @Test func twentyKillCyclesLoseNoAcknowledgedCommit() throws {
            let options = CrashCycles.Options(
                cycles: 20, seed: 1, batchSizes: 50...400, maximumItems: 2_000, maximumKillDelay: 400,
                worker: try ReliabilityExecutable.require(), directory: scratch.url)
            let result = try CrashCycles.run(options)
            #expect(result.passed, "\(result.table)")
            #expect(result.cycles == 20)
            #expect(result.fullCycles + result.noSyncCycles == 20)
            #expect(result.fullCycles > 0 && result.noSyncCycles > 0)
            #expect(result.acknowledgedCommits > 20)
            #expect(result.singleCommits > 0 && result.batchCommits > 0)
            #expect(result.acknowledgedCommitsLost == 0)
            #expect(result.unacknowledgedCommitsVisible == 0)
            #expect(result.healthyFilesRefused == 0)
            #expect(result.verifyProblems == 0)
            #expect(result.contentMismatches == 0)
            #expect(result.finalMarkers == result.acknowledgedCommits + result.inFlightCommitsPresent)
        }

        /// The same on an encrypted file: the worker and the checker open it with the key.
        @Test func tenKillCyclesOfAnEncryptedFileLoseNoAcknowledgedCommit() throws {
            let options = CrashCycles.Options(
                cycles: 10, seed: 2, batchSizes: 50...400, maximumItems: 2_000, maximumKillDelay: 400,
                worker: try ReliabilityExecutable.require(), directory: scratch.url, encryptionKey: HarnessKey.fixed)
            let result = try CrashCycles.run(options)
            #expect(result.passed, "\(result.table)")
            #expect(result.cycles == 10)
            #expect(result.acknowledgedCommits > 10)
            #expect(result.acknowledgedCommitsLost == 0)
            #expect(result.unacknowledgedCommitsVisible == 0)
            #expect(result.healthyFilesRefused == 0)
            #expect(result.verifyProblems == 0)
            #expect(result.contentMismatches == 0)
            let file = try FileManager.default.contentsOfDirectory(at: scratch.url, includingPropertiesForKeys: nil)
                .first { $0.pathExtension == "objdb" }
            let bytes = try Data(contentsOf: try #require(file))
            #expect(bytes.range(of: Data("CrashItem".utf8)) == nil, "a class name is in the encrypted file")
        }
    }
}

/// The crash plan and its checks, without processes.
struct CrashPlanTests {
    let plan = CrashPlan(seed: 9, batchSizes: 10...20, maximumItems: 100)

    @Test func thePlanIsAFunctionOfSeedSequenceAndState() {
        var a = CrashState()
        var b = CrashState()
        for sequence in 1...200 {
            let operation = plan.operation(sequence, after: a)
            #expect(operation == plan.operation(sequence, after: b))
            a.apply(operation, sequence: sequence)
            b.apply(operation, sequence: sequence)
        }
        #expect(a == b)
        #expect(a.digest == b.digest)
        // The cap holds: above 100 living items every transaction deletes.
        #expect(a.ids.count <= 100 + 20)
        #expect(a.ids == a.ids.sorted())
    }

    @Test func stateFollowsTheOperations() {
        var state = CrashState()
        state.apply(.insert(first: 1, count: 3), sequence: 1)
        state.apply(.update([2]), sequence: 2)
        state.apply(.delete([1]), sequence: 3)
        #expect(state.ids == [2, 3])
        #expect(state.items[2]?.version == 1 && state.items[2]?.writtenBy == 2)
        #expect(state.items[3]?.version == 0 && state.items[3]?.writtenBy == 1)
        #expect(state.nextItem == 4 && state.sequence == 3)
    }

    @Test func contentIsChecked() throws {
        let scratch = ScratchDirectory()
        let db = try Database(configuration: Configuration(fileURL: scratch.url.appendingPathComponent("c.objdb"), objectTypes: crashModelTypes))
        var state = CrashState()
        for sequence in 1...30 {
            let operation = plan.operation(sequence, after: state)
            try db.write { try CrashWorker.write(operation, sequence: sequence, state: state, db: db) }
            state.apply(operation, sequence: sequence)
        }
        for item in db.objects(CrashItem.self) {
            #expect(CrashContent.problems(item, expected: state.items[item.id]).isEmpty)
        }
        let item = try #require(db.objects(CrashItem.self).first)
        try db.write { item.values.append(-1) }
        #expect(CrashContent.problems(item, expected: state.items[item.id]).contains { $0.contains("values") })
        #expect(CrashContent.problems(item, expected: nil) == ["item \(item.id) exists but should not"])
        var read = CrashCheck.state(of: db)
        read.sequence = state.sequence
        read.nextItem = state.nextItem
        #expect(read == state)
    }

    /// The checker's own checks catch a missing commit and a changed item, which the parent's
    /// digests then also tell apart from the plan.
    @Test func theCheckerReportsAGapAndAChangedItem() throws {
        let scratch = ScratchDirectory()
        let db = try Database(configuration: Configuration(fileURL: scratch.url.appendingPathComponent("c.objdb"), objectTypes: crashModelTypes))
        var state = CrashState()
        var markers = Digest()
        for sequence in 1...12 {
            let operation = plan.operation(sequence, after: state)
            var next = state
            next.apply(operation, sequence: sequence)
            try db.write {
                try CrashWorker.write(operation, sequence: sequence, state: state, db: db)
                let marker = CrashMarker()
                marker.sequence = sequence
                marker.operation = operation.name
                marker.liveItems = next.ids.count
                marker.nextItem = next.nextItem
                try db.add(marker)
            }
            state = next
            markers.line(CrashCheck.markerLine(sequence, operation.name, state.ids.count, state.nextItem))
        }
        let clean = CrashCheck.contents(of: db, readFailures: FailureCollector())
        #expect(clean.problems.isEmpty, "\(clean.problems)")
        #expect(clean.state == state && clean.markers == 12 && clean.markersDigest == markers)

        // Marker 5 lost, an item's label changed behind the plan's back.
        let item = try #require(db.objects(CrashItem.self).first)
        try db.write {
            if let marker = db.object(ofType: CrashMarker.self, forPrimaryKey: 5) { db.delete(marker) }
            item.label = "changed"
        }
        let damaged = CrashCheck.contents(of: db, readFailures: FailureCollector())
        #expect(damaged.problems.contains("marker 6 where 5 was expected"), "\(damaged.problems)")
        #expect(damaged.problems.contains { $0.hasPrefix("item \(item.id): label") }, "\(damaged.problems)")
        #expect(damaged.markersDigest != markers)
    }
}
