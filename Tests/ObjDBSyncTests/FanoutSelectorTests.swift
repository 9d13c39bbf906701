import Foundation
import ObjDB
@testable import ObjDBSyncServer
import ObjDBSyncTestModels
import Testing

/// The fan-out's lookup (``FanoutSelector``) selects exactly the views whose predicate holds for
/// a row, as ``PortablePredicate/matches(_:variables:)`` decides one view at a time.
struct FanoutSelectorTests {
    /// The views a row is selected by, one view at a time: the reference.
    static func evaluated(_ predicates: [PortablePredicate], variables: [[String: SyncValue]], row: [String: SyncValue]) -> [Int] {
        predicates.indices.filter { i in (try? predicates[i].matches({ row[$0] }, variables: variables[i])) ?? false }
    }

    /// A selector for views of one shape, after checking they split into one template.
    static func selector(_ predicates: [PortablePredicate], variables: [[String: SyncValue]]) throws -> (FanoutSelector, [Int]) {
        var template: FanoutTemplate?
        var slots: [[String: SyncValue]] = []
        var views: [Int] = []
        for (i, predicate) in predicates.enumerated() {
            guard let (t, s) = FanoutTemplate.split(predicate, variables: variables[i]) else { continue }
            if let template { #expect(t == template, "views of one shape split into one template") }
            template = t
            slots.append(s)
            views.append(i)
        }
        let found = try #require(template)
        return (FanoutSelector(template: found, slots: slots), views)
    }

    @Test func ownerOrSharedIsTwoLookups() throws {
        let rule = try PortablePredicate(parsing: "owner == $user OR shared == true", variables: ["user", "claims"])
        let users = (0..<500).map { "user\($0)" }
        let variables = users.map { ["user": SyncValue.string($0)] }
        let (selector, views) = try Self.selector(Array(repeating: rule, count: users.count), variables: variables)
        #expect(selector.outline == "union(lookup(owner), lookup(shared))")
        // Known answers: a private row goes to its owner only, a shared one to every user.
        let privateRow: [String: SyncValue] = ["owner": .string("user42"), "shared": .bool(false)]
        #expect(selector.selecting({ privateRow[$0] }).map { views[$0] } == [42])
        let sharedRow: [String: SyncValue] = ["owner": .string("user7"), "shared": .bool(true)]
        #expect(Set(selector.selecting({ sharedRow[$0] })) == Set(users.indices))
        let nobodys: [String: SyncValue] = ["owner": .string("stranger"), "shared": .bool(false)]
        #expect(selector.selecting({ nobodys[$0] }).isEmpty)
    }

    @Test func equalityLooksUpBytesNotCanonicalEquivalence() throws {
        // "é" precomposed and decomposed are equal Swift strings but different bytes, and the
        // predicate language (like PostgreSQL's "C" collation) compares bytes.
        let rule = try PortablePredicate(parsing: "owner == $user", variables: ["user", "claims"])
        let variables: [[String: SyncValue]] = [["user": .string("caf\u{E9}")], ["user": .string("cafe\u{301}")]]
        let (selector, _) = try Self.selector([rule, rule], variables: variables)
        #expect(selector.outline == "lookup(owner)")
        let row: [String: SyncValue] = ["owner": .string("cafe\u{301}")]
        #expect(selector.selecting({ row[$0] }) == [1])
    }

    @Test func numbersAreLookedUpAcrossTheirTypes() throws {
        // 3, 3.0 and a decimal 3 are equal; the string "3" is not. A decimal operand is
        // tested, not keyed (its comparison with a double goes through the double's text).
        let rule = try PortablePredicate(parsing: "level == $claims.level", variables: ["user", "claims"])
        let three = Decimal(3)
        let variables: [[String: SyncValue]] = [
            ["claims.level": .int(3)], ["claims.level": .double(3)], ["claims.level": .string("3")], ["claims.level": .decimal(three)],
            ["claims.level": .float(3)], ["claims.level": .double(-0.0)],
        ]
        let (selector, _) = try Self.selector(Array(repeating: rule, count: variables.count), variables: variables)
        #expect(selector.outline == "lookup(level, testing 1)")
        for value in [SyncValue.double(3), .int(3), .decimal(three), .float(3)] {
            let row: [String: SyncValue] = ["level": value]
            #expect(selector.selecting({ row[$0] }).sorted() == [0, 1, 3, 4], "\(value)")
        }
        let zero: [String: SyncValue] = ["level": .int(0)]
        #expect(selector.selecting({ zero[$0] }) == [5])
        // A double past 2⁵³ is exact as a row's value: it equals the integer it holds.
        let large = try PortablePredicate(parsing: "level == $claims.level", variables: ["user", "claims"])
        let big: [[String: SyncValue]] = [["claims.level": .int(1 << 60)], ["claims.level": .int((1 << 60) + 1)]]
        let (bigSelector, _) = try Self.selector([large, large], variables: big)
        let bigRow: [String: SyncValue] = ["level": .double(0x1p60)]
        #expect(bigSelector.selecting({ bigRow[$0] }) == [0])
    }

    @Test func aViewWithoutItsVariableSelectsNothing() throws {
        let rule = try PortablePredicate(parsing: "team == $claims.team OR shared == true", variables: ["user", "claims"])
        #expect(FanoutTemplate.split(rule, variables: ["user": .string("ann")]) == nil)
        #expect(FanoutTemplate.split(rule, variables: ["claims.team": .string("red")]) != nil)
    }

    // MARK: Random predicates against the reference

    /// The properties of the random rows, with the values each may hold: strings equal but for
    /// normalization or case, integers and doubles of one value, signed zeros, NaN, nil, links.
    static let pools: [String: [SyncValue]] = [
        "owner": [.string("ann"), .string("Ann"), .string("bob"), .string("caf\u{E9}"), .string("cafe\u{301}"), .string(""), .null],
        "level": [
            .int(0), .int(3), .int(-1), .double(3), .double(-0.0), .double(0), .double(.nan), .double(2.5), .null, .float(3), .float(-0.0),
            .decimal(3), .decimal(Decimal(string: "2.5") ?? 0), .decimal(Decimal(string: "-0") ?? 0), .int(1 << 60), .double(0x1p60),
            .decimal(Decimal(string: "1152921504606846976") ?? 0), .double(0x1p63), .int(.max), .int(.min), .double(-0x1p63),
        ],
        "due": [
            .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: -0.0)),
            .date(Date(timeIntervalSinceReferenceDate: 86_400.5)), .date(Date(timeIntervalSinceReferenceDate: .nan)), .null,
        ],
        "blob": [.data(Data([1, 2])), .data(Data()), .null],
        "oid": [ObjectId(string: "000000010000000000000000").map(SyncValue.objectId) ?? .null, ObjectId(string: "000000020000000000000000").map(SyncValue.objectId) ?? .null, .null],
        "shared": [.bool(true), .bool(false), .null],
        "tag": [.uuid(UUID(uuid: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))), .uuid(UUID(uuid: (2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))), .null],
        "parent": [.link(.string("ann")), .link(.string("bob")), .null],
    ]

    /// The properties in a fixed order (a dictionary's order changes from run to run).
    static let names = pools.keys.sorted()

    /// A random predicate's shape; `fill` gives its operands a view's values.
    indirect enum Shape {
        case and([Shape]), or([Shape]), not(Shape)
        case comparison(property: String, op: PortableComparison.Operator, count: Int, caseInsensitive: Bool)

        static func random(depth: Int, using g: inout SeededGenerator) -> Shape {
            let roll = Int.random(in: 0..<10, using: &g)
            if depth > 0 && roll < 2 { return .and((0..<Int.random(in: 1...3, using: &g)).map { _ in random(depth: depth - 1, using: &g) }) }
            if depth > 0 && roll < 4 { return .or((0..<Int.random(in: 1...3, using: &g)).map { _ in random(depth: depth - 1, using: &g) }) }
            if depth > 0 && roll < 5 { return .not(random(depth: depth - 1, using: &g)) }
            let property = names.randomElement(using: &g) ?? "owner"
            let ops: [PortableComparison.Operator] = [.equal, .equal, .equal, .in, .in, .notEqual, .less, .beginsWith]
            let op = ops.randomElement(using: &g) ?? .equal
            let count = op == .in ? Int.random(in: 1...3, using: &g) : 1
            return .comparison(property: property, op: op, count: count, caseInsensitive: property == "owner" && Int.random(in: 0..<5, using: &g) == 0)
        }

        /// The predicate with random operands (each a value, or the variable `$user` bound
        /// per view), and the view's variables.
        func fill(using g: inout SeededGenerator, variables: inout [String: SyncValue]) -> PortablePredicate {
            switch self {
            case .and(let shapes): return .and(shapes.map { $0.fill(using: &g, variables: &variables) })
            case .or(let shapes): return .or(shapes.map { $0.fill(using: &g, variables: &variables) })
            case .not(let shape): return .not(shape.fill(using: &g, variables: &variables))
            case .comparison(let property, let op, let count, let caseInsensitive):
                let operands = (0..<count).map { _ -> PortableOperand in
                    // Operands of the property's pool, or now and then another's.
                    let pool = Int.random(in: 0..<6, using: &g) == 0 ? (pools[names.randomElement(using: &g) ?? "owner"] ?? []) : (pools[property] ?? [])
                    // Links are never operands; their keys are.
                    var value = pool.randomElement(using: &g) ?? .null
                    if case .link(let key) = value { value = key }
                    if Bool.random(using: &g) {
                        let name = "claims.v\(variables.count)"
                        variables[name] = value
                        return .variable(name)
                    }
                    return .value(value)
                }
                return .comparison(PortableComparison(property: property, op: op, operands: operands, caseInsensitive: caseInsensitive))
            }
        }
    }

    @Test func randomPredicatesSelectAsTheyEvaluate() throws {
        var g = SeededGenerator(state: 0x5E1E_C70F)
        var lookups = 0
        for _ in 0..<300 {
            let shape = Shape.random(depth: 3, using: &g)
            var predicates: [PortablePredicate] = []
            var variables: [[String: SyncValue]] = []
            for _ in 0..<24 {
                var v: [String: SyncValue] = [:]
                predicates.append(shape.fill(using: &g, variables: &v))
                variables.append(v)
            }
            // Views whose variables are named apart still share the template.
            let (selector, views) = try Self.selector(predicates, variables: variables)
            if selector.outline.contains("lookup") { lookups += 1 }
            for _ in 0..<40 {
                var row: [String: SyncValue] = [:]
                for name in Self.names where Int.random(in: 0..<12, using: &g) != 0 {
                    row[name] = Self.pools[name]?.randomElement(using: &g)
                }
                let expected = Self.evaluated(predicates, variables: variables, row: row)
                let found = selector.selecting({ row[$0] }).map { views[$0] }.sorted()
                #expect(found == expected, "\(predicates[0].predicateFormat.text) over \(row)")
            }
        }
        // The lookups were exercised, not only the tests.
        #expect(lookups > 100)
    }
}
