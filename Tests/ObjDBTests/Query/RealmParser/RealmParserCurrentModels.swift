import Foundation
import Testing
import ObjDB

// Models and helpers for the port of the current realm-core test/test_parser.cpp (the cases the
// port of the old version, RealmParser*.swift with RP* models, does not cover). Property names are
// upstream's column names; class names carry an `RQ` prefix, and `@links.<Class>.<property>`
// paths name them.

// MARK: - Running cases

/// One ported query: the query, the count upstream expects (`nil`: upstream expects it to be
/// rejected, CHECK_THROW), and for a known-failing case why it fails today.
struct RQCase: Sendable, CustomTestStringConvertible {
    let query: String
    let expected: Int?
    let reason: String
    /// Which fixture or model variant the case runs on, for tests that port TEST_TYPES.
    let variant: String

    init(_ query: String, _ expected: Int?, _ reason: String = "", variant: String = "") {
        self.query = query
        self.expected = expected
        self.reason = reason
        self.variant = variant
    }

    func on(_ variant: String) -> RQCase { RQCase(query, expected, reason, variant: variant) }

    var testDescription: String {
        (variant.isEmpty ? "" : "[\(variant)] ") + "\(query) → \(expected.map(String.init) ?? "throws")"
    }
}

/// Checks one case on `T`'s objects: the count, or that the query is rejected with
/// `.invalidQuery`. Every mismatch is recorded with a line starting `RQRESULT`
/// (upstream | query | expected | what we do).
func rqCheck<T: Object>(_ upstream: String, _ type: T.Type, _ testCase: RQCase, arguments: [Any?] = [],
                        argumentsFrom: ((Database) -> [Any?])? = nil, fixture: () throws -> Database) {
    let expected = testCase.expected.map(String.init) ?? "throws"
    let label = testCase.variant.isEmpty ? upstream : "\(upstream) [\(testCase.variant)]"
    let prefix = "RQRESULT \(label) | \(testCase.query) | \(expected) |"
    let db: Database
    do {
        db = try fixture()
    } catch {
        Issue.record("\(prefix) fixture failed: \(error)")
        return
    }
    do {
        let count = try db.objects(type).filter(testCase.query, argumentArray: argumentsFrom?(db) ?? arguments).count
        if let expectedCount = testCase.expected {
            #expect(count == expectedCount, "\(prefix) count \(count)")
        } else {
            Issue.record("\(prefix) no error, count \(count)")
        }
    } catch let error as ObjDBError {
        if testCase.expected == nil {
            #expect(error.code == .invalidQuery, "\(prefix) threw code \(error.code): \(error.message)")
        } else {
            Issue.record("\(prefix) threw: \(error.message)")
        }
    } catch {
        Issue.record("\(prefix) threw a non-ObjDB error: \(error)")
    }
}

/// `rqCheck` for a case that fails today: its failure is expected, and its passing is reported.
func rqCheckKnownFailing<T: Object>(_ upstream: String, _ type: T.Type, _ testCase: RQCase, arguments: [Any?] = [],
                                    argumentsFrom: ((Database) -> [Any?])? = nil, fixture: () throws -> Database) {
    withKnownIssue(Comment(rawValue: testCase.reason)) {
        rqCheck(upstream, type, testCase, arguments: arguments, argumentsFrom: argumentsFrom, fixture: fixture)
    }
}

/// The cases of `all` that are not in `knownFailing` (same variant and query): a table whose
/// cases are generated lists its known failures separately and leaves them out of the passing table.
func rqExcluding(_ all: [RQCase], _ knownFailing: [RQCase]) -> [RQCase] {
    all.filter { c in !knownFailing.contains { $0.variant == c.variant && $0.query == c.query } }
}

/// A Realm `Timestamp(seconds, 0)` as a `Date`.
func rqSeconds(_ seconds: Int) -> Date { Date(timeIntervalSince1970: Double(seconds)) }

/// An ObjectId whose 12 bytes are `value` big-endian (upstream's TestValueGenerator makes
/// distinct ids from integers; only their order and equality matter to the counts).
func rqObjectId(_ value: Int) -> ObjectId {
    ObjectId(string: String(format: "%024llx", UInt64(bitPattern: Int64(value)))) ?? ObjectId()
}

/// A UUID made from an integer in its last 48 bits.
func rqUUID(_ value: Int) -> UUID {
    UUID(uuidString: String(format: "00000000-0000-0000-0000-%012llx", UInt64(value))) ?? UUID()
}

// MARK: - Parser_list_of_primitive_types (TEST_TYPES: a list of each type and a self link)

protocol RQValuesModel: Object {
    associatedtype V: CollectionElementType
    var values: List<V> { get }
    var link: Self? { get set }
}

final class RQIntValues: Object, RQValuesModel {
    @Persisted var values: List<Int>
    @Persisted var link: RQIntValues?
}
final class RQOptIntValues: Object, RQValuesModel {
    @Persisted var values: List<Int?>
    @Persisted var link: RQOptIntValues?
}
final class RQBoolValues: Object, RQValuesModel {
    @Persisted var values: List<Bool>
    @Persisted var link: RQBoolValues?
}
final class RQOptBoolValues: Object, RQValuesModel {
    @Persisted var values: List<Bool?>
    @Persisted var link: RQOptBoolValues?
}
final class RQFloatValues: Object, RQValuesModel {
    @Persisted var values: List<Float>
    @Persisted var link: RQFloatValues?
}
final class RQOptFloatValues: Object, RQValuesModel {
    @Persisted var values: List<Float?>
    @Persisted var link: RQOptFloatValues?
}
final class RQDoubleValues: Object, RQValuesModel {
    @Persisted var values: List<Double>
    @Persisted var link: RQDoubleValues?
}
final class RQOptDoubleValues: Object, RQValuesModel {
    @Persisted var values: List<Double?>
    @Persisted var link: RQOptDoubleValues?
}
final class RQDecimalValues: Object, RQValuesModel {
    @Persisted var values: List<Decimal>
    @Persisted var link: RQDecimalValues?
}
final class RQOptDecimalValues: Object, RQValuesModel {
    @Persisted var values: List<Decimal?>
    @Persisted var link: RQOptDecimalValues?
}
final class RQObjectIdValues: Object, RQValuesModel {
    @Persisted var values: List<ObjectId>
    @Persisted var link: RQObjectIdValues?
}
final class RQOptObjectIdValues: Object, RQValuesModel {
    @Persisted var values: List<ObjectId?>
    @Persisted var link: RQOptObjectIdValues?
}
final class RQUUIDValues: Object, RQValuesModel {
    @Persisted var values: List<UUID>
    @Persisted var link: RQUUIDValues?
}
final class RQOptUUIDValues: Object, RQValuesModel {
    @Persisted var values: List<UUID?>
    @Persisted var link: RQOptUUIDValues?
}
final class RQDateValues: Object, RQValuesModel {
    @Persisted var values: List<Date>
    @Persisted var link: RQDateValues?
}
final class RQOptDateValues: Object, RQValuesModel {
    @Persisted var values: List<Date?>
    @Persisted var link: RQOptDateValues?
}

// MARK: - Parser_list_of_primitive_strings

final class RQStringsRow: Object {
    @Persisted var strings: List<String?>
}

// MARK: - Parser_list_of_primitive_element_lengths (TEST_TYPES StringData, BinaryData)

final class RQStringLengths: Object {
    @Persisted var values: List<String?>
    @Persisted var length: Int = 0
    @Persisted var link: RQStringLengths?
}

final class RQDataLengths: Object {
    @Persisted var values: List<Data?>
    @Persisted var length: Int = 0
    @Persisted var link: RQDataLengths?
}

// MARK: - Parser_Set (TEST_TYPES: a set and a single value of each type)

protocol RQSetModel: Object {
    associatedtype V: CollectionElementType
    var set: MutableSet<V> { get }
    var value: V { get set }
}

final class RQIntSet: Object, RQSetModel {
    @Persisted var set: MutableSet<Int>
    @Persisted var value: Int = 0
}
final class RQOptIntSet: Object, RQSetModel {
    @Persisted var set: MutableSet<Int?>
    @Persisted var value: Int? = nil
}
final class RQFloatSet: Object, RQSetModel {
    @Persisted var set: MutableSet<Float>
    @Persisted var value: Float = 0
}
final class RQOptFloatSet: Object, RQSetModel {
    @Persisted var set: MutableSet<Float?>
    @Persisted var value: Float? = nil
}
final class RQDoubleSet: Object, RQSetModel {
    @Persisted var set: MutableSet<Double>
    @Persisted var value: Double = 0
}
final class RQOptDoubleSet: Object, RQSetModel {
    @Persisted var set: MutableSet<Double?>
    @Persisted var value: Double? = nil
}
final class RQDecimalSet: Object, RQSetModel {
    @Persisted var set: MutableSet<Decimal>
    @Persisted var value: Decimal = 0
}
final class RQOptDecimalSet: Object, RQSetModel {
    @Persisted var set: MutableSet<Decimal?>
    @Persisted var value: Decimal? = nil
}
final class RQObjectIdSet: Object, RQSetModel {
    @Persisted var set: MutableSet<ObjectId>
    @Persisted var value: ObjectId
}
final class RQOptObjectIdSet: Object, RQSetModel {
    @Persisted var set: MutableSet<ObjectId?>
    @Persisted var value: ObjectId? = nil
}
final class RQDateSet: Object, RQSetModel {
    @Persisted var set: MutableSet<Date>
    @Persisted var value: Date = Date(timeIntervalSince1970: 0)
}
final class RQOptDateSet: Object, RQSetModel {
    @Persisted var set: MutableSet<Date?>
    @Persisted var value: Date? = nil
}
final class RQStringSet: Object, RQSetModel {
    @Persisted var set: MutableSet<String>
    @Persisted var value: String = ""
}
final class RQOptStringSet: Object, RQSetModel {
    @Persisted var set: MutableSet<String?>
    @Persisted var value: String? = nil
}
final class RQDataSet: Object, RQSetModel {
    @Persisted var set: MutableSet<Data>
    @Persisted var value: Data = Data()
}
final class RQOptDataSet: Object, RQSetModel {
    @Persisted var set: MutableSet<Data?>
    @Persisted var value: Data? = nil
}
final class RQUUIDSet: Object, RQSetModel {
    @Persisted var set: MutableSet<UUID>
    @Persisted var value: UUID
}
final class RQOptUUIDSet: Object, RQSetModel {
    @Persisted var set: MutableSet<UUID?>
    @Persisted var value: UUID? = nil
}

// MARK: - Parser_SetLinks

final class RQSetTarget: Object {
    @Persisted var val: Int = 0
}
final class RQSetHolder: Object {
    @Persisted var set: MutableSet<RQSetTarget>
}
final class RQSetOrigin: Object {
    @Persisted var link: RQSetHolder?
}

// MARK: - Parser_Dictionary (upstream's dictionary of Mixed holds only integers in the ported part)

final class RQDictRow: Object {
    @Persisted var dict: Map<String, Int>
}
final class RQDictOrigin: Object {
    @Persisted var link: RQDictRow?
    @Persisted var links: List<RQDictRow>
}

// MARK: - Parser_DictionaryObjects

final class RQDog: Object {
    @Persisted(primaryKey: true) var name: String = ""
    @Persisted var age: Int = 0
}
final class RQPetOwner: Object {
    @Persisted(primaryKey: true) var name: String = ""
    @Persisted var pets: Map<String, RQDog?>
    @Persisted var friend: RQPetOwner?
}

// MARK: - Parser_DictionaryAggregates (TEST_TYPES float, double, Decimal128)

final class RQFloatDict: Object {
    @Persisted var dict: Map<String, Float>
}
final class RQFloatDictLink: Object {
    @Persisted var link: RQFloatDict?
}
final class RQDoubleDict: Object {
    @Persisted var dict: Map<String, Double>
}
final class RQDoubleDictLink: Object {
    @Persisted var link: RQDoubleDict?
}
final class RQDecimalDict: Object {
    @Persisted var dict: Map<String, Decimal>
}
final class RQDecimalDictLink: Object {
    @Persisted var link: RQDecimalDict?
}

// MARK: - Parser_BacklinksIndex

final class RQIndexItem: Object {
    @Persisted var item_id: Int = 0
}
final class RQIndexPerson: Object {
    @Persisted(indexed: true) var age: Int = 0
    @Persisted var owns: List<RQIndexItem>
    @Persisted var wish: MutableSet<RQIndexItem>
    @Persisted var borrowed: Map<String, RQIndexItem?>
}

// MARK: - The shop of Parser_NegativeAgg, Parser_TwoColumnAggregates, Parser_AggregateShortcuts,
// Parser_OperatorIN and Parser_LinksToDifferentTable

final class RQDiscount: Object {
    @Persisted var promotion: String? = nil
    @Persisted var reduced_by: Double = 0
    @Persisted var active: Bool = false
}
final class RQAllergen: Object {
    @Persisted var name: String = ""
    @Persisted var population_affected: Double = 0
}
final class RQItem: Object {
    @Persisted var name: String = ""
    @Persisted var price: Double = 0
    @Persisted var price_float: Float = 0
    @Persisted var price_decimal: Decimal = 0
    @Persisted var discount: RQDiscount?
    /// Realm's non-null timestamps default to the 1970 epoch.
    @Persisted var creation_date: Date = Date(timeIntervalSince1970: 0)
    @Persisted var allergens: List<RQAllergen>
}
final class RQShopPerson: Object {
    @Persisted var customer_id: Int = 0
    @Persisted var account_balance: Double = 0
    @Persisted var items: List<RQItem>
    @Persisted var fav_item: RQItem?
    @Persisted var account_balance_float: Float = 0
    @Persisted var account_balance_decimal: Decimal = 0
    @Persisted var account_creation_date: Date = Date(timeIntervalSince1970: 0)
}

// MARK: - Parser_collection_aggregates (with the start_date column of the current version)

final class RQCourse: Object {
    @Persisted var title: String = ""
    @Persisted var credits: Double = 0
    @Persisted var hours_required: Int = 0
    @Persisted var failure_percentage: Float = 0
    @Persisted var start_date: Date = Date(timeIntervalSince1970: 0)
}
final class RQStudent: Object {
    @Persisted var age: Int = 0
    @Persisted var name: String = ""
    @Persisted var courses_taken: List<RQCourse>
    @Persisted var hash: Data = Data()
}

// MARK: - Parser_Numerics (TEST_TYPES Int, nullable, indexed, nullable indexed, Decimal128, nullable)

final class RQNumericInt: Object {
    @Persisted var values: Int = 0
}
final class RQNumericOptInt: Object {
    @Persisted var values: Int? = nil
}
final class RQNumericIndexedInt: Object {
    @Persisted(indexed: true) var values: Int = 0
}
final class RQNumericIndexedOptInt: Object {
    @Persisted(indexed: true) var values: Int? = nil
}
final class RQNumericDecimal: Object {
    @Persisted var values: Decimal = 0
}
final class RQNumericOptDecimal: Object {
    @Persisted var values: Decimal? = nil
}

// MARK: - Parser_basic_serialisation (the cases added since the old version)

final class RQBasicPerson: Object {
    @Persisted(indexed: true) var age: Int = 0
    @Persisted var name: String = ""
    @Persisted var fees: Double? = nil
    @Persisted var licensed: Bool? = nil
    @Persisted var buddy: RQBasicPerson?
}

// MARK: - Parser_TwoColumnExpressionBasics

final class RQTwoColumnRow: Object {
    @Persisted var ints: Int? = nil
    @Persisted var doubles: Double = 0
    @Persisted var strings: String = ""
    @Persisted var decimals: Decimal = 0
    @Persisted var objectids: ObjectId
    @Persisted var link: RQTwoColumnRow?
}

// MARK: - Parser_Object

final class RQObjectRow: Object {
    @Persisted var ints: Int? = nil
    @Persisted var link: RQObjectRow?
    @Persisted var linkx: RQObjectRow?
}

// MARK: - Parser_Between

final class RQBetweenRow: Object {
    @Persisted var age: Int? = nil
    @Persisted var between: Int? = nil
}

// MARK: - Parser_ObjectId, Parser_UUID, Parser_Decimal128

final class RQObjectIdRow: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted var nid: ObjectId? = nil
}
final class RQUUIDRow: Object {
    @Persisted(primaryKey: true) var id: UUID
    @Persisted var nid: UUID? = nil
}
final class RQDecimalRow: Object {
    @Persisted var dec: Decimal = 0
    @Persisted var nullable_dec: Decimal? = nil
}

// MARK: - Parser_Logical, Parser_UTF8

final class RQLogicalRow: Object {
    @Persisted var id1: Int = 0
    @Persisted var id2: Int = 0
    @Persisted var id3: Int = 0
}
final class RQUTF8Person: Object {
    @Persisted var løbenummer: Int = 0
    @Persisted var 姓名: String = ""
}

// MARK: - Parser_Arithmetic (TEST_TYPES int64, float, double, Decimal128; the Mixed `tag` column is left out)

final class RQArithIntPerson: Object {
    @Persisted(primaryKey: true) var name: String = ""
    @Persisted var age: Int = 0
    @Persisted var number: Int = 0
    @Persisted var spouse: RQArithIntPerson?
}
final class RQArithFloatPerson: Object {
    @Persisted(primaryKey: true) var name: String = ""
    @Persisted var age: Int = 0
    @Persisted var number: Float = 0
    @Persisted var spouse: RQArithFloatPerson?
}
final class RQArithDoublePerson: Object {
    @Persisted(primaryKey: true) var name: String = ""
    @Persisted var age: Int = 0
    @Persisted var number: Double = 0
    @Persisted var spouse: RQArithDoublePerson?
}
final class RQArithDecimalPerson: Object {
    @Persisted(primaryKey: true) var name: String = ""
    @Persisted var age: Int = 0
    @Persisted var number: Decimal = 0
    @Persisted var spouse: RQArithDecimalPerson?
}

// MARK: - Parser_substitution (current version: other fees and arguments)

final class RQArgPerson: Object {
    @Persisted var age: Int = 0
    @Persisted var name: String = ""
    @Persisted var fees: Double = 0
    @Persisted var paid: Bool? = nil
    @Persisted var time: Date? = nil
    @Persisted var binary: Data? = nil
    @Persisted var floats: Float? = nil
    @Persisted var nuldouble: Float? = nil
    @Persisted var links: RQArgPerson?
    @Persisted var list: List<RQArgPerson>
}

// MARK: - Parser_list_of_primitive_ints

final class RQIntListRow: Object {
    @Persisted var integers: List<Int>
    @Persisted var single_int: Int = 0
    @Persisted var integers_nullable: List<Int?>
    @Persisted var single_int_nullable: Int? = nil
}
final class RQIntListHolder: Object {
    @Persisted var link: RQIntListRow?
    @Persisted var list: List<RQIntListRow>
}

// MARK: - Parser_ListVsList

final class RQKeyedIntList: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var integers: List<Int>
}

// MARK: - Parser_Between (with a list of scores, realm-core pull request #5509)

final class RQScoresRow: Object {
    @Persisted var age: Int? = nil
    @Persisted var scores: List<Int>
}
