import Foundation
import Testing
import ObjDB

// realm-core test_parser.cpp: TEST(Parser_substitution): `$n` arguments, with upstream's twelve
// arguments (see rpSubstitutionArguments) unless a case passes fewer.

private func sub(_ q: String, _ n: Int?, arguments: Int? = nil, reason: String = "") -> RPCase {
    RPCase("Parser_substitution", on: "RPArgPerson", q, n, argumentCount: arguments, reason: reason)
}

struct RealmParserSubstitutionTests {
    let directory = TemporaryDirectory()

    static let counts: [RPCase] = [
        // realm-core test_parser.cpp: TEST(Parser_substitution)
        sub(#"age > $0"#, 2),
        sub(#"age > $0 || fees == $1"#, 3),
        sub(#"name CONTAINS[c] $2"#, 2),
        sub(#"paid == $3"#, 3),
        sub(#"paid != $3"#, 2),
        sub(#"paid == $4"#, 1),
        sub(#"paid != $4"#, 4),
        sub(#"paid = $11"#, 1),
        sub(#"time == $5"#, 1),
        sub(#"time == $3"#, 4),
        sub(#"binary == $6"#, 1),
        sub(#"binary == $3"#, 3),
        sub(#"floats == $7"#, 1),
        sub(#"floats == $3"#, 3),
        sub(#"nuldouble == $7"#, 1),
        sub(#"nuldouble == $3"#, 3),
        sub(#"links == $3"#, 3),
        sub(#"list.@min.age < $0"#, 2),
        sub(#"list.@max.age >= $0"#, 1),
        sub(#"list.@sum.age >= $0"#, 1),
        sub(#"list.@avg.age < $0"#, 2),
        sub(#"list.@count > $0"#, 1),
        sub(#"list.@size > $0"#, 1),
        sub(#"(age > $0 || fees == $1) && age == $0"#, 1),
        sub(#"name CONTAINS[c] $002"#, 2),
        sub(#"age == $10"#, 1),
        sub(#"name == $3"#, 0),
        sub(#"name.@count > $0"#, 5),
        sub(#"name.@size > $0"#, 5),
    ]

    static let knownFailingCounts: [RPCase] = [
    ]

    static let rejected: [RPCase] = [
        // realm-core test_parser.cpp: TEST(Parser_substitution) — CHECK_THROW
        sub(#"age > $-1"#, nil),
        sub(#"age > $"#, nil),
        sub(#"age > $age"#, nil),
        sub(#"age > $0"#, nil, arguments: 0),
        sub(#"age > $1"#, nil, arguments: 1),
        sub(#"age > $2"#, nil, arguments: 2),
        sub(#"age > $2"#, nil),
        sub(#"age > $4"#, nil),
        sub(#"age > $5"#, nil),
        sub(#"age > $6"#, nil),
        sub(#"fees > $2"#, nil),
        sub(#"fees > $4"#, nil),
        sub(#"fees > $5"#, nil),
        sub(#"fees > $6"#, nil),
        sub(#"floats > $2"#, nil),
        sub(#"floats > $4"#, nil),
        sub(#"floats > $5"#, nil),
        sub(#"floats > $6"#, nil),
        sub(#"name == $0"#, nil),
        sub(#"name == $1"#, nil),
        sub(#"name == $4"#, nil),
        sub(#"name == $5"#, nil),
        sub(#"name == $7"#, nil),
        sub(#"paid == $0"#, nil),
        sub(#"paid == $1"#, nil),
        sub(#"paid == $2"#, nil),
        sub(#"paid == $5"#, nil),
        sub(#"paid == $6"#, nil),
        sub(#"paid == $7"#, nil),
        sub(#"time == $0"#, nil),
        sub(#"time == $1"#, nil),
        sub(#"time == $2"#, nil),
        sub(#"time == $4"#, nil),
        sub(#"time == $6"#, nil),
        sub(#"time == $7"#, nil),
        sub(#"binary == $0"#, nil),
        sub(#"binary == $1"#, nil),
        sub(#"binary == $4"#, nil),
        sub(#"binary == $5"#, nil),
        sub(#"binary == $7"#, nil),
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
