import Foundation
import Testing
@testable import ObjDB

// realm-core test_parser.cpp (current): the entries of `valid_queries` and `invalid_queries` (used by
// TEST(Parser_valid_queries) and TEST(Parser_invalid_queries)) that are new or changed since the old
// version: parse only, without a schema, through the internal PredicateParser, with twenty nil
// arguments as the old port does.

private func rqTwentyNils() -> [Any?] { Array(repeating: nil, count: 20) }

/// Checks that `testCase.query` parses (`expected` 1) or is rejected with `.invalidQuery` (`expected` nil).
private func rqCheckParse(_ testCase: RQCase) {
    let upstream = testCase.expected == nil ? "Parser_invalid_queries" : "Parser_valid_queries"
    let expected = testCase.expected == nil ? "throws" : "parses"
    do {
        let predicate = try PredicateParser.parseQuery(testCase.query, arguments: rqTwentyNils())
        if testCase.expected == nil {
            Issue.record("RQRESULT \(upstream) | \(testCase.query) | \(expected) | parsed: \(predicate)")
        }
    } catch let error as ObjDBError {
        if testCase.expected == nil {
            #expect(error.code == .invalidQuery, "RQRESULT \(upstream) | \(testCase.query) | \(expected) | code \(error.code)")
        } else {
            Issue.record("RQRESULT \(upstream) | \(testCase.query) | \(expected) | threw: \(error.message)")
        }
    } catch {
        Issue.record("RQRESULT \(upstream) | \(testCase.query) | \(expected) | a non-ObjDB error: \(error)")
    }
}

struct RealmParserCurrentSyntaxTests {
    // realm-core test_parser.cpp (current): TEST(Parser_valid_queries) — added entries
    static let valid: [RQCase] = [
        RQCase(#"stringCol == "\"\n\0\r\\'""#, 1),
        RQCase("你好=5", 1),
        RQCase("0x0 = 0X398235fcAb", 1),
        RQCase(#"true\ love = false"#, 1),
        // properties can contain '$'
        RQCase("a$a = a", 1),
        RQCase("$-1 = $0", 1),
        RQCase("$a = $0", 1),
        RQCase("$ = $", 1),
        RQCase("a BETWEEN {4, 5}", 1),
        RQCase("sort > 0", 1),
        RQCase("distinct > 0", 1),
        RQCase("limit > 0", 1),
        RQCase("TRUEPREDICATE SORT(sort ASCENDING)", 1),
        RQCase("TRUEPREDICATE SORT(distinct ASCENDING)", 1),
        RQCase("TRUEPREDICATE SORT(limit ASC)", 1),
        RQCase("TRUEPREDICATE SORT(sort ASC, distinct ASC, limit ASC)", 1),
        RQCase("TRUEPREDICATE DISTINCT(disstinct)", 1),
        RQCase("TRUEPREDICATE DISTINCT(sort)", 1),
        RQCase("TRUEPREDICATE DISTINCT(limit)", 1),
        RQCase("TRUEPREDICATE DISTINCT(sort, distinct, limit)", 1),
        RQCase("TRUEPREDICATE SORT(sort ASC, distinct ASC, limit ASC) DISTINCT(sort, distinct, limit) LIMIT(1)", 1),
        RQCase("TRUEPREDICATE LIMIT(1)", 1),
        RQCase("a == b  and c==d sort(a   ASC, b DESC)   DISTINCT( p )  sort( c   ASC  ,  d  DESC  ) DISTINCT(q.r ,   p)   ", 1),
        RQCase("a=b && c=d LIMIT(1)", 1),
        RQCase("a=b && c=d LIMIT(5) LIMIT(2)", 1),
    ]
    static let knownFailingValid: [RQCase] = []
    // realm-core test_parser.cpp (current): TEST(Parser_invalid_queries) — added entries; `'\u0' = ''` was valid
    // in the old version
    static let invalid: [RQCase] = [
        RQCase(#"'\u0' = ''"#, nil),
        RQCase("a between {}", nil),
        RQCase("a between {1 2}", nil),
        // invalid property names
        RQCase("stone#age = 5", nil),
        RQCase(#"true\flove = false"#, nil),
        // include (ObjDB has no INCLUDE clause; each of these is malformed upstream too)
        RQCase("INCLUDE(a)", nil),
        RQCase("a=b INCLUDE", nil),
        RQCase("a=b INCLUDE()", nil),
        RQCase("a=b INCLUDE(a", nil),
        RQCase("a=b INCLUDEb)", nil),
        RQCase("a=b INCLUDE(1)", nil),
        RQCase("a=b INCLUDE(a,)", nil),
        RQCase("a=b INCLUDE(,a)", nil),
        RQCase("a=b INCLUDE(a.)", nil),
        RQCase("a=b INCLUDE(a b)", nil),
        RQCase("a=b INCLUDE(a < b)", nil),
    ]
    static let knownFailingInvalid: [RQCase] = []

    @Test(arguments: rqExcluding(valid + invalid, knownFailingValid + knownFailingInvalid)) func parse(_ c: RQCase) {
        rqCheckParse(c)
    }
    @Test(arguments: knownFailingValid + knownFailingInvalid) func knownFailingParse(_ c: RQCase) {
        withKnownIssue(Comment(rawValue: c.reason)) { rqCheckParse(c) }
    }
}
