import Foundation
import Testing
@testable import ObjDB
import ObjDBTestModels

/// Lookups by integer primary key that guess the object key from the distance between earlier
/// keys (``KeyDistanceHint``): right guesses skip the primary-key table, wrong ones must give the
/// same answers as the table.
struct PrimaryKeyGuessTests {
    let directory = TemporaryDirectory()

    /// The hint of `Person` in `db`.
    private func hint(_ db: Database) throws -> KeyDistanceHint {
        try #require(db.classInfoForRead(Person.self)).keyDistance
    }

    @Test func keysAddedInOrderAreGuessedAfterTwoLookupsAgree() throws {
        let db = try directory.open()
        try db.write { try db.add((1...200).map { person($0, "P\($0)") }) }
        for id in 1...200 {
            #expect(db.object(ofType: Person.self, forPrimaryKey: id)?.name == "P\(id)")
        }
        // Lookups 1 and 2 go through the table and agree on the distance; the other 198 guess.
        #expect(try hint(db).rightGuesses == 198)
        #expect(try hint(db).wrongGuesses == 0)
    }

    @Test func aKeyAddedAgainIsFoundAtItsNewObjectKey() throws {
        let db = try directory.open()
        try db.write { try db.add((1...10).map { person($0, "P\($0)") }) }
        try db.write {
            db.delete(try #require(db.object(ofType: Person.self, forPrimaryKey: 5)))
            try db.add(person(5, "again"))
        }
        _ = db.object(ofType: Person.self, forPrimaryKey: 1)
        _ = db.object(ofType: Person.self, forPrimaryKey: 2)
        // Guessed at 5's old object key, which holds no row any more.
        #expect(db.object(ofType: Person.self, forPrimaryKey: 5)?.name == "again")
        #expect(try hint(db).wrongGuesses == 1)
        #expect(db.object(ofType: Person.self, forPrimaryKey: 6)?.name == "P6")
        #expect(db.object(ofType: Person.self, forPrimaryKey: 7)?.name == "P7")
    }

    @Test func aRowHoldingAnotherKeyIsNotTaken() throws {
        let db = try directory.open()
        // Object keys 1, 2, 3, 4 for primary keys 1, 2, 3, 1000.
        try db.write { try db.add([person(1, "one"), person(2, "two"), person(3, "three"), person(1000, "thousand")]) }
        _ = db.object(ofType: Person.self, forPrimaryKey: 1)
        _ = db.object(ofType: Person.self, forPrimaryKey: 2)
        // Guessed at object key 4, whose row has primary key 1000.
        #expect(db.object(ofType: Person.self, forPrimaryKey: 4) == nil)
        #expect(try hint(db).wrongGuesses == 1)
        #expect(db.object(ofType: Person.self, forPrimaryKey: 1000)?.name == "thousand")
        #expect(db.object(ofType: Person.self, forPrimaryKey: 3)?.name == "three")
    }

    @Test func distancesThatWrapAroundStillFindTheirObjects() throws {
        let db = try directory.open()
        let ids = [Int.max - 2, Int.max - 1, Int.max]
        try db.write { try db.add(ids.map { person($0, "P\($0)") }) }
        for id in ids + ids {
            #expect(db.object(ofType: Person.self, forPrimaryKey: id)?.name == "P\(id)")
        }
        #expect(try hint(db).rightGuesses == 4)
        #expect(db.object(ofType: Person.self, forPrimaryKey: Int.min) == nil)
        #expect(db.object(ofType: Person.self, forPrimaryKey: -1) == nil)
    }

    @Test func guessesInsideAWriteSeeItsChanges() throws {
        let db = try directory.open()
        try db.write {
            try db.add((1...5).map { person($0, "P\($0)") })
            #expect(db.object(ofType: Person.self, forPrimaryKey: 1)?.name == "P1")
            #expect(db.object(ofType: Person.self, forPrimaryKey: 2)?.name == "P2")
            #expect(db.object(ofType: Person.self, forPrimaryKey: 3)?.name == "P3")
            db.delete(try #require(db.object(ofType: Person.self, forPrimaryKey: 4)))
            #expect(db.object(ofType: Person.self, forPrimaryKey: 4) == nil)
        }
        db.beginWrite()
        try db.add(person(6, "P6"))
        #expect(db.object(ofType: Person.self, forPrimaryKey: 5)?.name == "P5")
        #expect(db.object(ofType: Person.self, forPrimaryKey: 6)?.name == "P6")
        db.cancelWrite()
        #expect(db.object(ofType: Person.self, forPrimaryKey: 6) == nil)
        #expect(db.object(ofType: Person.self, forPrimaryKey: 5)?.name == "P5")
        #expect(try hint(db).rightGuesses >= 3)
    }

    @Test func narrowKeyColumnsCompareTheWholeKey() throws {
        let db = try directory.open([Int8Keyed.self])
        try db.write {
            for key in Int8(-3)...Int8(3) {
                let object = Int8Keyed(); object.key = key; object.value = "K\(key)"
                try db.add(object)
            }
        }
        for key in -3...3 {
            #expect(db.object(ofType: Int8Keyed.self, forPrimaryKey: key)?.value == "K\(key)")
        }
        // Keys outside Int8 are guessed past the rows, and find nothing.
        let guesses = try #require(db.classInfoForRead(Int8Keyed.self)).keyDistance.rightGuesses
        #expect(guesses == 5)
        #expect(db.object(ofType: Int8Keyed.self, forPrimaryKey: 253) == nil)
        #expect(db.object(ofType: Int8Keyed.self, forPrimaryKey: -259) == nil)
        #expect(db.object(ofType: Int8Keyed.self, forPrimaryKey: Int8(3))?.value == "K3")
    }

    /// Runs of keys added in order (which the hint learns), random inserts, deletes, re-adds and
    /// lookups of present and absent keys, in and out of writes, against a dictionary.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func lookupsMatchADictionary(seed: UInt64) throws {
        let db = try directory.open()
        var random = SeededRandom(seed: seed)
        var model: [Int: String] = [:]
        var nextOrdered = 0
        var serial = 0
        for _ in 0..<60 {
            try db.write {
                if random.percent(40) {
                    nextOrdered += random.inRange(1...50)
                    for _ in 0..<random.inRange(10...30) {
                        serial += 1
                        nextOrdered += 1
                        model[nextOrdered] = "o\(serial)"
                        try db.add(person(nextOrdered, "o\(serial)"), update: .modified)
                    }
                    return
                }
                for _ in 0..<random.inRange(1...20) {
                    serial += 1
                    switch random.below(10) {
                    case 0..<4:
                        let id = random.inRange(-50...(nextOrdered + 50))
                        model[id] = "r\(serial)"
                        try db.add(person(id, "r\(serial)"), update: .modified)
                    case 4..<7:
                        guard let id = model.keys.sorted().randomElement(using: &random) else { continue }
                        model[id] = nil
                        db.delete(try #require(db.object(ofType: Person.self, forPrimaryKey: id)))
                    default:
                        let id = random.inRange(-50...(nextOrdered + 50))
                        #expect(db.object(ofType: Person.self, forPrimaryKey: id)?.name == model[id], "seed \(seed), id \(id)")
                    }
                }
            }
            // Sweeps up and down the keys, present and absent.
            let start = random.inRange(-60...(nextOrdered + 10))
            let sweep = random.percent(50) ? Array(start...(start + 40)) : Array((start...(start + 40)).reversed())
            for id in sweep {
                #expect(db.object(ofType: Person.self, forPrimaryKey: id)?.name == model[id], "seed \(seed), id \(id)")
            }
        }
        #expect(db.objects(Person.self).count == model.count)
        let hint = try hint(db)
        // Seeds 1, 2, 3 give 617, 480, 532 right and 143, 152, 148 wrong guesses.
        #expect(hint.rightGuesses > 300, "\(hint)")
        #expect(hint.wrongGuesses > 100, "\(hint)")
    }
}

extension SeededRandom: RandomNumberGenerator {}
