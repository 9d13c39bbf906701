import Foundation
import Testing
@testable import ObjDB

// realm-core test_parser.cpp: `valid_queries` and `invalid_queries`, used by TEST(Parser_valid_queries)
// and TEST(Parser_invalid_queries): parse only, without a schema, through the internal
// PredicateParser. Every query gets twenty nil arguments (upstream's grammar accepts `$0`…`$19`
// without values). The INCLUDE(...) entries of both lists are not ported (see RealmParserSkipped.swift).

/// One parse-only case: the query and, for a known failure, why it fails today.
struct RPSyntaxCase: Sendable, CustomTestStringConvertible {
    let query: String
    let reason: String
    init(_ query: String, reason: String = "") {
        self.query = query
        self.reason = reason
    }
    var testDescription: String { query }
}

/// Twenty nil arguments.
private func rpTwentyNils() -> [Any?] { Array(repeating: nil, count: 20) }

/// Records an issue unless `query` parses.
private func rpExpectParses(_ query: String) {
    do {
        _ = try PredicateParser.parseQuery(query, arguments: rpTwentyNils())
    } catch let error as ObjDBError {
        Issue.record("RPRESULT Parser_valid_queries | \(query) | parses | threw: \(error.message)")
    } catch {
        Issue.record("RPRESULT Parser_valid_queries | \(query) | parses | threw a non-ObjDB error: \(error)")
    }
}

/// Records an issue unless parsing `query` throws `.invalidQuery`.
private func rpExpectRejected(_ query: String) {
    do {
        let predicate = try PredicateParser.parseQuery(query, arguments: rpTwentyNils())
        Issue.record("RPRESULT Parser_invalid_queries | \(query) | throws | parsed: \(predicate)")
    } catch let error as ObjDBError {
        #expect(error.code == .invalidQuery, "RPRESULT Parser_invalid_queries | \(query) | throws | code \(error.code)")
    } catch {
        Issue.record("RPRESULT Parser_invalid_queries | \(query) | throws | a non-ObjDB error: \(error)")
    }
}

private func v(_ query: String, reason: String = "") -> RPSyntaxCase { RPSyntaxCase(query, reason: reason) }

struct RealmParserSyntaxTests {
    // realm-core test_parser.cpp: TEST(Parser_valid_queries)
    static let valid: [RPSyntaxCase] = [
        v(#"truepredicate"#),
        v(#"falsepredicate"#),
        v(#" TRUEPREDICATE "#),
        v(#" FALSEPREDICATE "#),
        v(#"truepredicates = falsepredicates"#),
        v(#""" = ''"#),
        v(#"'\uffFf' = '\u0020'"#),
        v(#"'\u01111' = 'asdf\u0111asdf'"#),
        v(#"-1 = 12"#),
        v(#"0 = 001"#),
        v(#"0x0 = -0X398235fcAb"#),
        v(#"10.0 = 5.034"#),
        v(#"true = false"#),
        v(#"truelove = false"#),
        v(#"true = falsey"#),
        v(#"nullified = null"#),
        v(#"nullified = nil"#),
        v(#"_ = a"#),
        v(#"_a = _.aZ"#),
        v(#"$0 = $19"#),
        v(#"$0=$0"#),
        v(#"0=0"#),
        v(#"0 = 0"#),
        v(#"0 =[c] 0"#),
        v(#"0!=0"#),
        v(#"0 != 0"#),
        v(#"0 !=[c] 0"#),
        v(#"0!=[c]0"#),
        v(#"0 <> 0"#),
        v(#"0<>0"#),
        v(#"0 <>[c] 0"#),
        v(#"0<>[c]0"#),
        v(#"0==0"#),
        v(#"0 == 0"#),
        v(#"0==[c]0"#),
        v(#"0 == [c] 0"#),
        v(#"0>0"#),
        v(#"0 > 0"#),
        v(#"0>=0"#),
        v(#"0 >= 0"#),
        v(#"0 => 0"#),
        v(#"0=>0"#),
        v(#"0<0"#),
        v(#"0 < 0"#),
        v(#"0<=0"#),
        v(#"0 <= 0"#),
        v(#"0 =< 0"#),
        v(#"0 contains 0"#),
        v(#"a CONTAINS[c] b"#),
        v(#"a contains [c] b"#),
        v(#"'a'CONTAINS[c]b"#),
        v(#"0 BeGiNsWiTh 0"#),
        v(#"0 ENDSWITH 0"#),
        v(#"(0=0)"#),
        v(#"( 0=0 )"#),
        v(#"((0=0))"#),
        v(#"!0=0"#),
        v(#"! 0=0"#),
        v(#"!(0=0)"#),
        v(#"! (0=0)"#),
        v(#"NOT0=0"#),
        v(#"NOT0.a=0"#),
        v(#"NOT0a.b=0"#),
        v(#"not-1=1"#),
        v(#"not 0=0"#),
        v(#"NOT(0=0)"#),
        v(#"not (0=0)"#),
        v(#"NOT (!0=0)"#),
        v(#"a==a && a==a"#),
        v(#"a==a || a==a"#),
        v(#"a==a&&a==a||a=a"#),
        v(#"a==a and a==a"#),
        v(#"a==a OR a==a"#),
        v(#"SUBQUERY(items, $x, $x.name == 'Tom').@size > 0"#),
        v(#"SUBQUERY(items, $x, $x.name == 'Tom').@count > 0"#),
        v(#"SUBQUERY(items, $x, $x.allergens.@min.population_affected < 0.10).@count > 0"#),
        v(#"SUBQUERY(items, $x, $x.name == 'Tom').@count == SUBQUERY(items, $x, $x.price < 10).@count"#),
        v(#"p.@links.class.prop.@count > 2"#),
        v(#"p.@links.class.prop.@sum.prop2 > 2"#),
        v(#"a=b SORT(p ASCENDING)"#),
        v(#"a=b SORT(p asc)"#),
        v(#"a=b SORT(p Descending)"#),
        v(#"a=b sort (p.q desc)"#),
        v(#"a=b distinct(p)"#),
        v(#"a=b DISTINCT(P)"#),
        v(#"a=b DISTINCT(p)"#),
        v(#"a == b sort(a ASC, b DESC)"#),
        v(#"a == b sort(a ASC, b DESC) sort(c ASC)"#),
        v(#"a=b DISTINCT(p) DISTINCT(q)"#),
        v(#"a=b DISTINCT(p, q, r) DISTINCT(q)"#),
        v(#"a == b sort(a ASC, b DESC) DISTINCT(p)"#),
        v(#"a == b sort(a ASC, b DESC) DISTINCT(p) sort(c ASC, d DESC) DISTINCT(q.r)"#),
        v(#"a == b and c==d sort(a ASC, b DESC) DISTINCT(p) sort(c ASC, d DESC) DISTINCT(q.r)"#),
        v(#"a=b LIMIT(1)"#),
        v(#"a=b LIMIT ( 1 )"#),
        v(#"a=b LIMIT( 1234567890 )"#),
        v(#"a=b && c=d || e=f LIMIT(1)"#),
        v(#"a=b LIMIT(1) SORT(a ASC) DISTINCT(b)"#),
        v(#"a=b SORT(a ASC) LIMIT(1) DISTINCT(b)"#),
        v(#"a=b SORT(a ASC) DISTINCT(b) LIMIT(1)"#),
        v(#"a=b LIMIT(2) LIMIT(1)"#),
        v(#"a=b LIMIT(5) SORT(age ASC) DISTINCT(name) LIMIT(2)"#),
        v(#"'azAZ09/ :()[]{}<>,.^@-+=*&~`' = '\" \' \\ \/ \b \f \n \r \t \0'"#),
        v(#""azAZ09/" = "\" \' \\ \/ \b \f \n \r \t \0""#),
        v(#"10. = -.034"#),
        v(#"a09._br.z = __-__.Z-9"#),
        v(#"a=1AND NOTb=2"#),
        v(#"contains contains 'contains'"#),
        v(#"beginswith beginswith 'beginswith'"#),
        v(#"endswith endswith 'endswith'"#),
    ]

    static let knownFailingValid: [RPSyntaxCase] = []

    // realm-core test_parser.cpp: TEST(Parser_invalid_queries)
    static let invalid: [RPSyntaxCase] = [
        v(#"predicate"#),
        v(#"'\a' = ''"#),
        v(#"'\u0' = ''"#),
        v(#""' = ''"#),
        v(#"" = ''"#),
        v(#"' = ''"#),
        v(#"03a = 1"#),
        v(#"1..0 = 1"#),
        v(#"1.0. = 1"#),
        v(#"1-0 = 1"#),
        v(#"0x = 1"#),
        v(#"- = a"#),
        v(#"a..b = a"#),
        v(#"{} = $0"#),
        v(#"0===>0"#),
        v(#"0 contains1"#),
        v(#"a contains_something"#),
        v(#"endswith 0"#),
        v(#"0=0)"#),
        v(#"(0=0"#),
        v(#"(0=0))"#),
        v(#"! =0"#),
        v(#"NOTNOT(0=0)"#),
        v(#"not.a=0"#),
        v(#"0=0 !"#),
        v(#"a==a & a==a"#),
        v(#"a==a | a==a"#),
        v(#"a==a &| a==a"#),
        v(#"a==a && OR a==a"#),
        v(#"a==aORa==a"#),
        v(#"a==a ORa==a"#),
        v(#"a==a AND==a"#),
        v(#"a==a ANDa==a"#),
        v(#"a=1ANDNOT b=2"#),
        v(#"truepredicate &&"#),
        v(#"truepredicate & truepredicate"#),
        v(#"SORT(p ASCENDING)"#),
        v(#"a=b SORT(p)"#),
        v(#"a=b SORT(0 Descending)"#),
        v(#"a=b sort()"#),
        v(#"a=b sort"#),
        v(#"distinct(p)"#),
        v(#"a=b DISTINCT()"#),
        v(#"a=b Distinct"#),
        v(#"sort(a ASC b, DESC) a == b"#),
        v(#"sort(a ASC b, DESC) a == b sort(c ASC)"#),
        v(#"a=bDISTINCT(p)"#),
        v(#"a=b sort p.q desc"#),
        v(#"a=b sort(p.qDESC)"#),
        v(#"a=b DISTINCT p"#),
        v(#"a=b SORT(p ASC"#),
        v(#"a=b DISTINCT(p"#),
        v(#"a=b sort(p.q DESC a ASC)"#),
        v(#"a=b DISTINCT(p q)"#),
        v(#"LIMIT(1)"#),
        v(#"a=b LIMIT"#),
        v(#"a=b LIMIT()"#),
        v(#"a=b LIMIT(2"#),
        v(#"a=b LIMIT2)"#),
        v(#"a=b LIMIT(-1)"#),
        v(#"a=b LIMIT(2.7)"#),
        v(#"a=b LIMIT(0xFFEE)"#),
        v(#"a=b LIMIT(word)"#),
        v(#"a=b LIMIT(11asdf)"#),
        v(#"a=b LIMIT(1, 1)"#),
        v(#"SUBQUERY(items, $x, $x.name == 'Tom') > 0"#),
        v(#"SUBQUERY(items, $x, $x.name == 'Tom').@min > 0"#),
        v(#"SUBQUERY(items, $x, $x.name == 'Tom').@max > 0"#),
        v(#"SUBQUERY(items, $x, $x.name == 'Tom').@sum > 0"#),
        v(#"SUBQUERY(items, $x, $x.name == 'Tom').@avg > 0"#),
        v(#"SUBQUERY(items, var, var.name == 'Tom').@avg > 0"#),
        v(#"SUBQUERY(, $x, $x.name == 'Tom').@avg > 0"#),
        v(#"SUBQUERY(items, , name == 'Tom').@avg > 0"#),
        v(#"SUBQUERY(items, $x, ).@avg > 0"#),
        v(#"@prop > 2"#),
        v(#"@backlinks.@count > 2"#),
        v(#"prop@links > 2"#),
    ]

    static let knownFailingInvalid: [RPSyntaxCase] = [
    ]

    @Test(arguments: valid) func parses(_ testCase: RPSyntaxCase) {
        rpExpectParses(testCase.query)
    }

    @Test(arguments: knownFailingValid) func knownFailingParses(_ testCase: RPSyntaxCase) {
        withKnownIssue(Comment(rawValue: testCase.reason)) { rpExpectParses(testCase.query) }
    }

    @Test(arguments: invalid) func rejects(_ testCase: RPSyntaxCase) {
        rpExpectRejected(testCase.query)
    }

    @Test(arguments: knownFailingInvalid) func knownFailingRejects(_ testCase: RPSyntaxCase) {
        withKnownIssue(Comment(rawValue: testCase.reason)) { rpExpectRejected(testCase.query) }
    }
}
