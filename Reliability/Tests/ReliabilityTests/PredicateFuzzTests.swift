import Foundation
import Testing
import ObjDB
@testable import ObjDBReliability

extension ReliabilityAttacks {
    /// The predicate fuzzer, short: no crash, and a good part of the predicates reach evaluation.
    @Suite struct PredicateFuzzTests {
        let scratch = ScratchDirectory()

        /// Nothing avoided: NaN dates, which crashed before (see `ReliabilityRegressionTests`), are
        /// generated too.
        @Test func fuzzedPredicatesDoNotCrash() throws {
            let options = PredicateFuzz.Options(
                count: 12_000, seed: 1, chunk: 4_000, avoiding: [], worker: try ReliabilityExecutable.require(), directory: scratch.url)
            let result = try PredicateFuzz.run(options)
            #expect(result.passed, "\(result.table)")
            #expect(result.predicates == 12_000)
            #expect(result.crashes == 0 && result.hangs == 0)
            #expect(result.parsed > 4_000, "\(result.table)")
            #expect(result.evaluated > 2_000, "\(result.table)")
            #expect(result.evaluatedMatching > 600, "\(result.table)")
            #expect(result.mutatedEvaluated > 200, "\(result.table)")
        }
    }
}

/// The generator without processes.
struct PredicateGeneratorTests {
    @Test func casesReplayFromTheirSeedAndIndex() throws {
        let scratch = ScratchDirectory()
        let url = scratch.url.appendingPathComponent("f.objdb")
        try PredicateFuzz.buildDatabase(url, seed: 1)
        let db = try Database(configuration: Configuration(fileURL: url, objectTypes: damageModelTypes))
        let schema = FuzzSchema(db.schema)
        #expect(schema.classes == ["AllTypes", "Note", "Owner", "Person", "Pet"])
        #expect(schema.paths["Owner"]?.contains { $0.text == "pets.name" && $0.toMany && $0.type == .string } == true)
        #expect(schema.paths["Pet"]?.contains { $0.text == "owners" && $0.objectCollection } == true)
        #expect(schema.sortable("Owner").contains("address.city"))
        #expect(!schema.sortable("Owner").contains("pets.name"))
        for index in [0, 1, 17, 999] {
            let a = PredicateGenerator.generate(schema: schema, seed: 5, index: index)
            let b = PredicateGenerator.generate(schema: schema, seed: 5, index: index)
            #expect(a.report == b.report)
        }
        #expect(PredicateGenerator.generate(schema: schema, seed: 5, index: 1).report != PredicateGenerator.generate(schema: schema, seed: 6, index: 1).report)
    }

    @Test func avoidedCrashesAreNotGenerated() throws {
        let scratch = ScratchDirectory()
        let url = scratch.url.appendingPathComponent("f.objdb")
        try PredicateFuzz.buildDatabase(url, seed: 1)
        let db = try Database(configuration: Configuration(fileURL: url, objectTypes: damageModelTypes))
        let schema = FuzzSchema(db.schema)
        var nanDates = 0
        for index in 0..<3_000 {
            for argument in PredicateGenerator.generate(schema: schema, seed: 1, index: index, avoiding: .known).arguments {
                if case .date(let time) = argument, time.isNaN { nanDates += 1 }
            }
        }
        #expect(nanDates == 0)
    }

    @Test func crashSitesNameTheInnermostObjDBFrame() {
        let backtrace = """
            Thread 0 "objdb-reliabili" crashed:

              0               0x00007fe9d6767ee8 Date.description.getter + 312 in libFoundationEssentials.so
              1 [ra]          0x00007fe9d7b03749 DefaultStringInterpolation.appendInterpolation<A>(_:) + 24 in libswiftCore.so
              2 [ra]          0x000055b28cde0abb QueryValue.description.getter + 2538 in objdb-reliability at /w/Sources/ObjDB/Query/PredicateTree.swift:156:30
            """
        #expect(Backtrace.site(backtrace) == "QueryValue.description.getter (PredicateTree.swift:156:30)")
        #expect(Backtrace.site("Thread 0 crashed:\n  0  0x00007f15b58b5191 <unknown> in liblmdb.so.0.0.0\n") == "<unknown> in liblmdb.so.0.0.0")
        #expect(Backtrace.site("no backtrace") == "unknown")
    }
}
