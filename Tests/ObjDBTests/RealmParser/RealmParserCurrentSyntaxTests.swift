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
    // realm-core test_parser.cpp (current): TEST(Parser_valid_queries) — added entry
    static let valid: [RQCase] = [RQCase("a BETWEEN {4, 5}", 1)]
    static let knownFailingValid: [RQCase] = []
    // realm-core test_parser.cpp (current): TEST(Parser_invalid_queries) — added entries; `'\u0' = ''` was valid
    // in the old version
    static let invalid: [RQCase] = [
        RQCase(#"'\u0' = ''"#, nil),
        RQCase("a between {}", nil),
        RQCase("a between {1 2}", nil),
    ]
    static let knownFailingInvalid: [RQCase] = []

    @Test(arguments: rqExcluding(valid + invalid, knownFailingValid + knownFailingInvalid)) func parse(_ c: RQCase) {
        rqCheckParse(c)
    }
    @Test(arguments: knownFailingValid + knownFailingInvalid) func knownFailingParse(_ c: RQCase) {
        withKnownIssue(Comment(rawValue: c.reason)) { rqCheckParse(c) }
    }
}
