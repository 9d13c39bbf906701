import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// ``ColumnTest``, the row test of table scans, agrees with the reference interpreter and with the
/// general evaluation of the same comparison.
struct QueryColumnTestTests {
    /// Every comparison that gets a column test, against the reference interpreter and the
    /// general evaluator, row by row:
    /// nil, NaN, infinities, the integer extremes, 2^53 + 1, -0.0, Float 0.1, strings of every
    /// comparison width.
    @Test func columnTestsAgreeWithTheGeneralEvaluator() throws {
        let directory = TemporaryDirectory()
        let db = try directory.open([AllTypes.self])
        let ints: [Int?] = [nil, 0, 1, 2, 3, -1, Int.max, Int.min, 9_007_199_254_740_993]
        let doubles: [Double?] = [nil, 0, -0.0, 1, 2.5, 3, .nan, .infinity, -.infinity, 9_007_199_254_740_992, 1e300]
        let floats: [Float?] = [nil, 0, 0.1, 1, 2.5, .nan, .infinity, -.infinity, 16_777_216]
        let bools: [Bool?] = [nil, true, false]
        let strings: [String?] = [nil, "", "a", "ab", "abcd", "abcdefgh", "abcdefghijklmnop", "abcdefghijklmnopq", "Ann"]
        var id = 0
        try db.write {
            for i in 0..<20 {
                id += 1
                let o = AllTypes()
                o.id = id
                o.optInt = ints[i % ints.count]
                o.int8 = Int8(truncatingIfNeeded: i * 13)
                o.optDouble = doubles[i % doubles.count]
                o.optFloat = floats[i % floats.count]
                o.optBool = bools[i % bools.count]
                o.optString = strings[i % strings.count]
                o.string = strings[(i + 3) % strings.count] ?? ""
                o.optDate = doubles[(i + 1) % doubles.count].map { Date(timeIntervalSince1970: $0) }
                o.float = floats[(i + 2) % floats.count] ?? 0
                try db.add(o)
            }
        }
        let info = try #require(try db.classInfo(for: AllTypes.self))
        let txn = try #require(db.readableTxn())
        let evaluator = QueryEvaluator(txn: txn, failure: db.queryReadFailures)
        let reference = ReferenceInterpreter(txn: txn, failure: db.queryReadFailures)
        let ops = ["==", "!=", "<", "<=", ">", ">="]
        var predicates: [(String, [Any?])] = []
        for op in ops {
            for k in ["0", "1", "2.5", "-1", "3", "9007199254740992", "9223372036854775807", "1e300", "-1e300"] {
                predicates.append(("optInt \(op) \(k)", []))
                predicates.append(("int8 \(op) \(k)", []))
                predicates.append(("optDouble \(op) \(k)", []))
                predicates.append(("optFloat \(op) \(k)", []))
                predicates.append(("float \(op) \(k)", []))
            }
            predicates.append(("optDouble \(op) %@", [Double.infinity]))
            predicates.append(("optFloat \(op) %@", [Double.infinity]))
            predicates.append(("optDouble \(op) %@", [Double.nan]))
            predicates.append(("optDate \(op) %@", [Date(timeIntervalSince1970: 1)]))
            predicates.append(("optDate \(op) %@", [Date(timeIntervalSince1970: 2.5)]))
            predicates.append(("optFloat \(op) %@", [Double(Float(0.1))]))
            predicates.append(("optFloat \(op) %@", [0.1]))
            predicates.append(("optInt \(op) nil", []))
        }
        for op in ["==", "!="] {
            for s in ["", "a", "ab", "abcd", "abcdefgh", "abcdefghijklmnop", "abcdefghijklmnopq", "Ann", "abcdefghijklmnoq"] {
                predicates.append(("optString \(op) %@", [s]))
                predicates.append(("string \(op) %@", [s]))
            }
            predicates.append(("optBool \(op) true", []))
            predicates.append(("optBool \(op) false", []))
            predicates.append(("optString \(op) nil", []))
        }
        // An integer is never infinite: Realm refuses the comparison, and so do we.
        #expect(throws: ObjDBError.self) { try db.objects(AllTypes.self).filter("optInt > %@", Double.infinity) }
        var tested = 0
        // Number tests and their outcome per row, for the pairs below.
        var numberTests: [(name: String, test: ColumnTest, holds: [Bool])] = []
        for (text, args) in predicates {
            let results = try db.objects(AllTypes.self).filter(text, argumentArray: args)
            guard let bound = results.boundPredicate(), case .comparison(let c) = bound else { continue }
            guard let test = c.columnTest else { continue }
            tested += 1
            var holds: [Bool] = []
            for key in 1...UInt64(id) {
                let row = try #require(evaluator.fetch(info, key))
                let expected = reference.holds(c, try #require(reference.fetch(info, key)))
                holds.append(expected)
                #expect(evaluator.evaluate(c, key: key, row: row) == expected, "general: \(text) \(args) key \(key)")
                #expect(test.holds(row) == expected, "\(text) \(args) key \(key)")
                // The loops specialized by shape (`RowFilter.specialized`) test the same, with
                // and without a branch on the outcome (`matchBit`, which full scans use).
                let specialized: (Bool, UInt8)? =
                    switch test.kind {
                    case .integer: (IntegerTest(test).matches(row), IntegerTest(test).matchBit(row))
                    case .double: (DoubleTest(test).matches(row), DoubleTest(test).matchBit(row))
                    case .bytes: (BytesEquality(test).matches(row), BytesEquality(test).matchBit(row))
                    default: nil
                    }
                if let (matches, bit) = specialized {
                    #expect(matches == expected, "specialized: \(text) \(args) key \(key)")
                    #expect(bit == (expected ? 1 : 0), "match bit: \(text) \(args) key \(key)")
                }
            }
            if test.kind == .integer || test.kind == .double { numberTests.append(("\(text) \(args)", test, holds)) }
        }
        // Every shape but `nil` constants (and NaN or a string order) has a test.
        #expect(tested >= 250, "\(tested) of \(predicates.count)")

        // Pairs of number tests, computed together (`BothTests`) and with the first guarding
        // the second (`GuardedTests`), give the conjunction of the two outcomes on every row,
        // as bits and as `matches`. Every third test against every third, in both orders.
        let sample = stride(from: 0, to: numberTests.count, by: 3).map { numberTests[$0] }
        #expect(sample.count >= 30, "\(sample.count) number tests sampled")
        var pairs = 0
        for a in sample {
            for b in sample {
                pairs += 1
                for key in 1...UInt64(id) {
                    let row = try #require(evaluator.fetch(info, key))
                    let both = a.holds[Int(key) - 1] && b.holds[Int(key) - 1]
                    let bits = Self.pairBits(a.test, b.test, row)
                    #expect(bits == [both ? 1 : 0, both ? 1 : 0, both ? 1 : 0, both ? 1 : 0], "\(a.name) AND \(b.name), key \(key)")
                }
            }
        }
        #expect(pairs >= 900)
    }

    /// For two integer or double tests: `BothTests`' and `GuardedTests`' `matches` (as 0 or 1)
    /// and `matchBit` on `row`.
    static func pairBits(_ a: ColumnTest, _ b: ColumnTest, _ row: RowView) -> [UInt8] {
        func bits<A: RowPredicate, B: RowPredicate>(_ a: A, _ b: B) -> [UInt8] {
            let both = BothTests(a, b)
            let guarded = GuardedTests(a, b)
            return [both.matches(row) ? 1 : 0, both.matchBit(row), guarded.matches(row) ? 1 : 0, guarded.matchBit(row)]
        }
        switch (a.kind, b.kind) {
        case (.integer, .integer): return bits(IntegerTest(a), IntegerTest(b))
        case (.integer, _): return bits(IntegerTest(a), DoubleTest(b))
        case (_, .integer): return bits(DoubleTest(a), IntegerTest(b))
        default: return bits(DoubleTest(a), DoubleTest(b))
        }
    }
}
