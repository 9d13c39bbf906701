import Foundation
import Testing
import ObjDB

// BETWEEN as realm-core tests it now.
// - TEST(Parser_OddColumnNames), the newest test_parser.cpp (as carried by BarqDB/barq-core, see
//   RealmParserListLiteralTests): the BETWEEN cases of the old TEST(Parser_Between), on ages 24,
//   25, 26. Both ends are included, as in ObjDB and Realm Swift (the current realm-core version in
//   the index still expected `age between {20, 25}` to give 1).
// - TEST(Parser_Between) of realm-core pull request #5509 ("RQL: Disallow using 'NONE' and 'ANY'
//   with 'BETWEEN'"): ages 30, 35, 40 with lists of scores; realm-core's parser (driver.cpp,
//   BetweenNode) refuses BETWEEN on a list of values unless ALL is written ("Only 'ALL' supported
//   for operator 'BETWEEN' when applied to lists").

struct RealmParserBetweenTests {
    let directory = TemporaryDirectory()

    /// Ages 24, 25, 26 (`between` 0, 1, 2).
    func agesFixture() throws -> Database {
        let db = try directory.open([RQBetweenRow.self])
        try db.write {
            for i in 0..<3 {
                let row = RQBetweenRow()
                row.age = i + 24
                row.between = i
                try db.add(row)
            }
        }
        return db
    }

    // realm-core test_parser.cpp (newest): TEST(Parser_OddColumnNames) — BETWEEN.
    static let ages: [RQCase] = [
        RQCase("between == 0", 1),
        RQCase("between > 0", 2),
        RQCase("between <= 3", 3),
        RQCase("age between {24, 26}", 3),
        RQCase("age between {20, 23}", 0),
        RQCase("age between {20, 24}", 1),
        RQCase("age between {20, 25}", 2),
        RQCase("age between {20, 26}", 3),
        RQCase("age between {20, 27}", 3),
        RQCase("age between {23, 30}", 3),
        RQCase("age between {24, 30}", 3),
        RQCase("age between {25, 30}", 2),
        RQCase("age between {26, 30}", 1),
        RQCase("age between {27, 30}", 0),
        RQCase("age between {20}", nil),
        RQCase("age between {20, 25, 34}", nil),
    ]
    static let knownFailingAges: [RQCase] = []

    @Test(arguments: rqExcluding(ages, knownFailingAges)) func betweenAges(_ c: RQCase) {
        rqCheck("Parser_OddColumnNames", RQBetweenRow.self, c, fixture: agesFixture)
    }
    @Test(arguments: knownFailingAges) func knownFailingBetweenAges(_ c: RQCase) {
        rqCheckKnownFailing("Parser_OddColumnNames", RQBetweenRow.self, c, fixture: agesFixture)
    }

    /// Ages 30, 35, 40; row `i` scores `5i…5i+4` and `5i+10…5i+14`.
    func scoresFixture() throws -> Database {
        let db = try directory.open([RQScoresRow.self])
        try db.write {
            for i in 0..<3 {
                let row = RQScoresRow()
                row.age = 5 * i + 30
                row.scores.append(objectsIn: (0..<5).map { $0 + 5 * i } + (0..<5).map { $0 + 5 * i + 10 })
                try db.add(row)
            }
        }
        return db
    }

    // realm-core pull request #5509: TEST(Parser_Between) — the count on a single value, and BETWEEN on
    // the list refused without ALL (also NONE on a single value, which has no list to quantify).
    static let scores: [RQCase] = [
        RQCase("age between {30, 37}", 2),
        RQCase("scores between {5, 9}", nil),
        RQCase("ANY scores between {5, 9}", nil),
        RQCase("SOME scores between {5, 9}", nil),
        RQCase("NONE scores between {5, 9}", nil),
        RQCase("NONE age between {30, 37}", nil),
    ]
    static let knownFailingScores: [RQCase] = []

    @Test(arguments: rqExcluding(scores, knownFailingScores)) func betweenScores(_ c: RQCase) {
        rqCheck("Parser_Between", RQScoresRow.self, c, fixture: scoresFixture)
    }
    @Test(arguments: knownFailingScores) func knownFailingBetweenScores(_ c: RQCase) {
        rqCheckKnownFailing("Parser_Between", RQScoresRow.self, c, fixture: scoresFixture)
    }

    /// ALL, which Realm allows, holds when every score is in the range (and for no scores); the
    /// rows that hold are counted here from the fixture, not taken from upstream.
    @Test func allScoresBetween() throws {
        let rows = try scoresFixture().objects(RQScoresRow.self)
        #expect(try rows.filter("ALL scores between {0, 14}").map(\.age) == [30])
        #expect(try rows.filter("ALL scores BETWEEN {5, 24}").map(\.age) == [35, 40])
        #expect(try rows.filter("ALL scores between {5, 19}").map(\.age) == [35])
        #expect(try rows.filter("ALL scores between {100, 200}").isEmpty)
    }

    /// The refusal names the position, the key path and what to write instead.
    @Test func betweenOnScoresNamesTheProblem() throws {
        let rows = try scoresFixture().objects(RQScoresRow.self)
        do {
            _ = try rows.filter("age > 3 AND scores BETWEEN {5, 9}")
            Issue.record("no error")
        } catch let error as ObjDBError {
            #expect(error.code == .invalidQuery)
            #expect(error.message.contains("at position 12"), "\(error.message)")
            #expect(error.message.contains("BETWEEN on 'scores', a collection of values, needs ALL"), "\(error.message)")
        }
    }
}
