import Foundation
import Testing
import ObjDB
@testable import ObjDBReliability

extension ReliabilityAttacks {
    /// Damaged and foreign files, short: verify() never crashes and never calls a file healthy
    /// whose reads changed.
    @Suite struct DamagedFileTests {
        let scratch = ScratchDirectory()

        @Test func sixtyDamagedFiles() throws {
            let options = DamagedFiles.Options(
                files: 60, seed: 1, baseObjects: 600, worker: try ReliabilityExecutable.require(), directory: scratch.url)
            let result = try DamagedFiles.run(options)
            #expect(result.passed, "\(result.table)")
            #expect(result.files == 60)
            #expect(result.total(DamagedFiles.VerifyOutcome.crashed) == 0)
            // The damage is real: verify finds problems in many files, and reads change.
            #expect(result.total(DamagedFiles.VerifyOutcome.problems) >= 20, "\(result.table)")
            #expect(result.total(.refused) + result.total(.differs) + result.total(.crashed) >= 20, "\(result.table)")
            #expect(result.counts[.truncation]?.verify[.healthy] ?? 0 == 0)
        }

        /// The same on encrypted files: a changed value does not authenticate, so verify (with
        /// the key) never calls healthy a file whose reads changed.
        @Test func thirtyDamagedEncryptedFiles() throws {
            let options = DamagedFiles.Options(
                files: 30, seed: 3, baseObjects: 600, worker: try ReliabilityExecutable.require(), directory: scratch.url,
                encryptionKey: HarnessKey.fixed)
            let result = try DamagedFiles.run(options)
            #expect(result.passed, "\(result.table)")
            #expect(result.files == 30)
            #expect(result.total(DamagedFiles.VerifyOutcome.crashed) == 0)
            #expect(result.total(DamagedFiles.VerifyOutcome.problems) >= 10, "\(result.table)")
        }
    }
}

/// The damage itself, byte by byte.
struct DamagerTests {
    let newest = (0..<(8 * 4_096)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    var previous: [UInt8] { newest.map { $0 ^ 0x5A } }

    func damager() -> Damager { Damager(newest: newest, previous: previous, pageSize: 4_096) }

    func differences(_ a: [UInt8], _ b: [UInt8]) -> [Int] {
        (0..<min(a.count, b.count)).filter { a[$0] != b[$0] }
    }

    @Test(arguments: 0..<20)
    func aBitFlipChangesOneBit(_ seed: Int) {
        var rng = SeededRandom(seed: UInt64(seed))
        let damaged = damager().damage(.bitFlip, &rng)
        let changed = differences(newest, damaged.bytes)
        #expect(damaged.bytes.count == newest.count)
        #expect(changed.count == 1)
        if let at = changed.first { #expect((newest[at] ^ damaged.bytes[at]).nonzeroBitCount == 1) }
    }

    @Test(arguments: 0..<20)
    func aTruncationCutsTheFile(_ seed: Int) {
        var rng = SeededRandom(seed: UInt64(seed))
        let damaged = damager().damage(.truncation, &rng)
        #expect(damaged.bytes.count < newest.count)
        #expect(Array(newest.prefix(damaged.bytes.count)) == damaged.bytes)
    }

    @Test(arguments: 0..<20)
    func pageDamageStaysInOnePage(_ seed: Int) {
        var rng = SeededRandom(seed: UInt64(seed))
        for kind in [DamageKind.zeroedPage, .randomPage, .stalePage] {
            let damaged = damager().damage(kind, &rng)
            let pages = Set(differences(newest, damaged.bytes).map { $0 / 4_096 })
            #expect(pages.count <= 1, "\(kind) \(damaged.detail)")
            if kind == .stalePage, let page = pages.first {
                #expect(damaged.bytes[(page * 4_096)..<((page + 1) * 4_096)] == previous[(page * 4_096)..<((page + 1) * 4_096)])
            }
        }
    }

    @Test func metaFieldsLieInTheMetaPageHeader() {
        // LMDB 0.9's MDB_meta on 64-bit: the transaction id is the last field, at 144..<152.
        #expect(Damager.metaFields.allSatisfy { $0.offset + $0.size <= 152 })
        #expect(Damager.metaFields.last?.name == "transaction id" && Damager.metaFields.last?.offset == 144)
    }

    @Test func theBaseReadsDifferentlyAtItsTwoVersions() throws {
        let scratch = ScratchDirectory()
        let base = try DamageBase.build(in: scratch.url, objects: 300, seed: 3, compact: true)
        #expect(base.pageSize == 4_096 || base.pageSize == 16_384 || base.pageSize == 65_536)
        let newest = try CanonicalDump.digest(of: Database(configuration: Configuration(fileURL: base.newest, objectTypes: damageModelTypes)))
        let previous = try CanonicalDump.digest(of: Database(configuration: Configuration(fileURL: base.previous, objectTypes: damageModelTypes)))
        #expect(newest.digest != previous.digest)
        #expect(newest.objects > 250)
        #expect(try Database.verify(fileAt: base.newest).isHealthy)
    }
}
