import Foundation
import Testing
import ObjDB

// The result sizes of realm-core test_parser.cpp's SORT/DISTINCT/LIMIT query suffixes
// (TEST(Parser_SortAndDistinct) and TEST(Parser_Limit)); the orders they check are not ported.

private func sortDistinct(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_SortAndDistinct", on: "RPAccountHolder", q, n, reason: reason)
}
private func limit(_ q: String, _ n: Int?, reason: String = "") -> RPCase {
    RPCase("Parser_Limit", on: "RPAccountHolder", q, n, reason: reason)
}

struct RealmParserOrderingTests {
    let directory = TemporaryDirectory()

    static let counts: [RPCase] = [
        // realm-core test_parser.cpp: TEST(Parser_SortAndDistinct)

        // realm-core test_parser.cpp: TEST(Parser_Limit)
        limit(#"age == 30"#, 1),
        limit(#"age == 1000"#, 0),
        limit(#"FALSEPREDICATE"#, 0),
        sortDistinct(#"age > 0 SORT(age ASC)"#, 3),
        sortDistinct(#"age > 0 SORT(age DESC)"#, 3),
        sortDistinct(#"age > 0 SORT(age ASC, name DESC)"#, 3),
        sortDistinct(#"TRUEPREDICATE SORT(account.balance ascending)"#, 3),
        sortDistinct(#"TRUEPREDICATE SORT(account.balance descending)"#, 3),
        sortDistinct(#"TRUEPREDICATE DISTINCT(age)"#, 2),
        sortDistinct(#"TRUEPREDICATE DISTINCT(age, account.balance)"#, 3),
        sortDistinct(#"TRUEPREDICATE DISTINCT(age) DISTINCT(account.balance)"#, 1),
        sortDistinct(#"TRUEPREDICATE SORT(age ASC) DISTINCT(age)"#, 2),
        sortDistinct(#"TRUEPREDICATE SORT(name DESC) DISTINCT(age) SORT(name ASC) DISTINCT(name)"#, 2),
        sortDistinct(#"account.num_transactions > 10 SORT(name ASC)"#, 2),
        limit(#"TRUEPREDICATE LIMIT(0)"#, 0),
        limit(#"TRUEPREDICATE LIMIT(2)"#, 2),
        limit(#"TRUEPREDICATE LIMIT(1)"#, 1),
        limit(#"TRUEPREDICATE LIMIT(3)"#, 3),
        limit(#"TRUEPREDICATE LIMIT(4)"#, 3),
        limit(#"TRUEPREDICATE SORT(name ASC) LIMIT(0)"#, 0),
        limit(#"TRUEPREDICATE SORT(name ASC) LIMIT(1)"#, 1),
        limit(#"TRUEPREDICATE SORT(name ASC) LIMIT(2)"#, 2),
        limit(#"TRUEPREDICATE SORT(name ASC) LIMIT(3)"#, 3),
        limit(#"TRUEPREDICATE SORT(name ASC) LIMIT(4)"#, 3),
        limit(#"TRUEPREDICATE SORT(name ASC) DISTINCT(age) LIMIT(0)"#, 0),
        limit(#"TRUEPREDICATE SORT(name ASC) DISTINCT(age) LIMIT(1)"#, 1),
        limit(#"TRUEPREDICATE SORT(name ASC) DISTINCT(age) LIMIT(2)"#, 2),
        limit(#"TRUEPREDICATE SORT(name ASC) DISTINCT(age) LIMIT(3)"#, 2),
        limit(#"TRUEPREDICATE SORT(name ASC) DISTINCT(age) LIMIT(4)"#, 2),
        limit(#"age < 30 SORT(name ASC) DISTINCT(age) LIMIT(0)"#, 0),
        limit(#"age < 30 SORT(name ASC) DISTINCT(age) LIMIT(1)"#, 1),
        limit(#"age < 30 SORT(name ASC) DISTINCT(age) LIMIT(2)"#, 1),
        limit(#"age < 30 SORT(name ASC) DISTINCT(age) LIMIT(3)"#, 1),
        limit(#"age < 30 SORT(name ASC) DISTINCT(age) LIMIT(4)"#, 1),
        limit(#"age < 30 && name == 'Adam' LIMIT(0)"#, 0),
        limit(#"age < 30 && name == 'Adam' LIMIT(1)"#, 1),
        limit(#"TRUEPREDICATE LIMIT(2) LIMIT(1)"#, 1),
        limit(#"TRUEPREDICATE LIMIT(3) LIMIT(2) LIMIT(1) LIMIT(10)"#, 1),
        limit(#"age > 0 SORT(name ASC) LIMIT(2)"#, 2),
        limit(#"age > 0 LIMIT(2) SORT(name ASC)"#, 2),
        limit(#"age > 0 SORT(name ASC) LIMIT(2) DISTINCT(age)"#, 1),
        limit(#"age > 0 SORT(name DESC) LIMIT(2) SORT(age ASC) LIMIT(1)"#, 1),
        limit(#"age == 30 LIMIT(0)"#, 0),
        limit(#"age == 1000 LIMIT(0)"#, 0),
        limit(#"age == 1000 SORT(name ASC)"#, 0),
        limit(#"age == 1000 SORT(name ASC) LIMIT(0)"#, 0),
        limit(#"age == 28 SORT(name ASC)"#, 2),
        limit(#"age == 28 SORT(name ASC) LIMIT(1)"#, 1),
        limit(#"age == 28 DISTINCT(age)"#, 1),
        limit(#"age == 28 DISTINCT(age) LIMIT(0)"#, 0),
        limit(#"age == 28 SORT(name ASC) DISTINCT(age)"#, 1),
        limit(#"age == 28 SORT(name ASC) DISTINCT(age) LIMIT(0)"#, 0),
        limit(#"FALSEPREDICATE LIMIT(0)"#, 0),
        limit(#"FALSEPREDICATE LIMIT(1)"#, 0),
    ]

    static let knownFailingCounts: [RPCase] = [
    ]

    static let rejected: [RPCase] = [
        // realm-core test_parser.cpp: TEST(Parser_SortAndDistinct) — CHECK_THROW
        sortDistinct(#"TRUEPREDICATE DISTINCT(balance)"#, nil),
        sortDistinct(#"TRUEPREDICATE sort(account.name ASC)"#, nil),
        // realm-core test_parser.cpp: TEST(Parser_Limit) — CHECK_THROW
        limit(#"TRUEPREDICATE LIMIT(-1)"#, nil),
        limit(#"TRUEPREDICATE LIMIT(age)"#, nil),
        limit(#"TRUEPREDICATE LIMIT('age')"#, nil),
    ]

    static let knownFailingRejected: [RPCase] = [
    ]

    @Test(arguments: counts) func count(_ testCase: RPCase) {
        rpCheck(testCase, in: directory)
    }

    @Test(arguments: knownFailingCounts) func knownFailingCount(_ testCase: RPCase) {
        rpCheckKnownFailing(testCase, in: directory)
    }

    @Test(arguments: rejected) func rejects(_ testCase: RPCase) {
        rpCheck(testCase, in: directory)
    }

    @Test(arguments: knownFailingRejected) func knownFailingRejects(_ testCase: RPCase) {
        rpCheckKnownFailing(testCase, in: directory)
    }
}
