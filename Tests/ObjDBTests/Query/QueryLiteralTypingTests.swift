import Foundation
import Testing
import ObjDBTestModels
@testable import ObjDB

/// Literals written in a predicate take the type of what they are compared with, as realm-core's
/// parser types its constants (`ConstantNode::visit` with the property's type as hint): a quoted
/// number against a number property, a number with more digits than a `Double` keeps against a
/// `Decimal`. Values given as arguments keep their own type.
struct QueryLiteralTypingTests {
    let directory = TemporaryDirectory()

    /// Rows 1…5 with `int` = id, `double` = id / 2, `decimal` = id + 0.1, and a sixth row with
    /// `int` 6, `double` 0 and a decimal of π to 19 digits (a `Double` reads it as 3.141592653589793).
    func fixture() throws -> Database {
        let db = try directory.open([AllTypes.self])
        try db.write {
            for id in 1...5 {
                let row = AllTypes()
                row.id = id
                row.int = id
                row.double = Double(id) / 2
                row.decimal = Decimal(id) + Decimal(string: "0.1", locale: Locale(identifier: "en_US_POSIX"))!
                try db.add(row)
            }
            let pi = AllTypes()
            pi.id = 6
            pi.int = 6
            pi.decimal = Decimal(string: "3.141592653589793238", locale: Locale(identifier: "en_US_POSIX"))!
            try db.add(pi)
        }
        return db
    }

    func count(_ db: Database, _ predicate: String, _ arguments: Any?...) throws -> Int {
        try db.objects(AllTypes.self).filter(predicate, argumentArray: arguments).count
    }

    @Test(arguments: [
        ("int == '3'", 1),
        ("int == ' 3 '", 1),  // surrounding spaces, as a number read from text
        ("int == '3.0'", 1),  // a whole number written with a fraction
        ("int > '4'", 2),
        ("'2' == int", 1),
        ("int IN {'1', '2'}", 2),
        ("int IN {'1', 'two', 3}", 2),  // in a list compared for equality, 'two' equals nothing
        ("double == '1.5'", 1),
        ("double < '1.0'", 2),  // 0.5, and the sixth row's 0
        ("decimal == '2.1'", 1),
        ("decimal == 3.141592653589793238", 1),
        ("decimal == 3.141592653589793", 0),  // the Double's digits are another Decimal
        ("decimal IN {3.141592653589793238, 1.1}", 2),
        ("decimal BETWEEN {3.141592653589793238, 3.141592653589793238}", 1),
    ])
    func literalsTakeThePropertysType(_ predicate: String, _ expected: Int) throws {
        let db = try fixture()
        #expect(try count(db, predicate) == expected, "\(predicate)")
    }

    @Test(arguments: [
        "int == 'three'",
        "int == '3.5'",  // not a whole number
        "int > {'1', 'two'}",  // after an ordering operator, every value must fit
        "decimal == '1-2'",  // not a number as a whole (Decimal(string:) would read 1)
        "decimal == '3.14e'",
        "double == '1,5'",
    ])
    func quotedTextThatIsNoNumberIsRefused(_ predicate: String) throws {
        let db = try fixture()
        let error = #expect(throws: ObjDBError.self) { try count(db, predicate) }
        #expect(error?.code == .invalidQuery, "\(predicate)")
    }

    @Test func argumentsKeepTheirType() throws {
        let db = try fixture()
        // A String argument is a string: against an Int it is an error, as in Realm Swift.
        #expect(throws: ObjDBError.self) { try count(db, "int == %@", "3") }
        #expect(try count(db, "int == %@", 3) == 1)
        // A Double argument against a Decimal means the decimal it prints as.
        #expect(try count(db, "decimal == %@", 2.1) == 1)
    }
}
