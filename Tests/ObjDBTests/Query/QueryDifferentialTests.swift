import Foundation
import Testing
@_spi(Inspection) import ObjDB

// Seeded differential tests of the query engine. A random data set (Support/QueryDiffData.swift)
// is written as `QItem`s (with indexes) and as `QPlainItem`s (without), read back once into plain
// structs, and thousands of random predicates (Support/QueryGenerator.swift) are evaluated three
// ways: as predicate strings, as `where { }` DSL expressions, and by a brute force over the
// structs (Support/QueryBruteForce.swift) that implements the semantics of Docs/Queries.md.
// Everything is deterministic: the seeds are fixed.

/// Counts mismatches and records the first few as issues, so that a broken engine does not
/// drown the report.
struct QDFailures {
    /// How many mismatches were found.
    var count = 0
    /// How many are recorded in full.
    let limit = 15

    /// Records one mismatch.
    mutating func record(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        count += 1
        if count <= limit { Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation) }
    }

    /// Records how many mismatches there were beyond the recorded ones.
    func finish(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if count > limit { Issue.record(Comment(rawValue: "\(count) mismatches in \(what) (\(limit) shown)"), sourceLocation: sourceLocation) }
    }
}

/// The objects whose ids the tests compare.
protocol QDIdentified: ObjectBase {
    /// The id.
    var id: Int { get }
}

extension QItem: QDIdentified {}
extension QPlainItem: QDIdentified {}

extension Results where Element: QDIdentified {
    /// The ids, read by iterating: the iterator walks the evaluated keys, so it cannot overrun
    /// even when `count` disagrees with them.
    var qdIDs: [Int] {
        var ids: [Int] = []
        for object in self { ids.append(object.id) }
        return ids
    }
}

/// Differential tests of the query engine against a brute force, and minimal reproductions of
/// the disagreements they found.
struct QueryDifferentialTests {
    /// This test's directory.
    let directory = TemporaryDirectory()

    /// Opens a database holding the data set, checks that both classes hold the same values,
    /// and returns it with a brute force over its snapshot.
    func fixture() throws -> (Database, QDBruteForce) {
        let db = try directory.open([QItem.self, QPlainItem.self, QOwner.self])
        try QDDataSet.write(into: db)
        let snapshot = QDSnapshot.read(db)
        #expect(snapshot.items.count == QDDataSet.randomItemCount + QDPools.longStrings.count)
        #expect(QDSnapshot.readPlain(db) == snapshot.items)
        return (db, QDBruteForce(snapshot: snapshot))
    }

    /// A predicate string and its arguments, for messages.
    static func show(_ text: String, _ arguments: [Any?]) -> String {
        arguments.isEmpty ? text : "\(text)  arguments: \(String(reflecting: arguments))"
    }

    /// The ids of `results`, iterated, after checking that `count` — asked first, as a fresh
    /// query answers it (from an index alone where it can) — agrees with the iteration. (`map`
    /// would trust `count` and overrun when it is too large.)
    static func ids<T: QDIdentified>(_ results: Results<T>, _ failures: inout QDFailures, _ what: @autoclosure () -> String) -> [Int] {
        let count = results.count
        let ids = results.qdIDs
        if count != ids.count { failures.record("\(what()): count is \(count) but \(ids.count) objects were iterated (plan: \(results.queryPlan))") }
        return ids
    }

    /// How two id lists differ, with the values of the first item in only one of them.
    static func difference(_ expected: [Int], _ actual: [Int], _ brute: QDBruteForce) -> String {
        let missing = expected.filter { !actual.contains($0) }
        let extra = actual.filter { !expected.contains($0) }
        var text = "expected \(expected.count) ids, got \(actual.count); missing \(Array(missing.prefix(8))), extra \(Array(extra.prefix(8)))"
        if missing.isEmpty && extra.isEmpty {
            text += "; same ids in another order: expected \(Array(expected.prefix(12))), got \(Array(actual.prefix(12)))"
        }
        if let id = missing.first ?? extra.first, let item = brute.snapshot.items.first(where: { $0.id == id }) {
            text += "\nitem \(id): \(String(reflecting: item))"
            if let owner = item.owner { text += "\nits owner: \(String(reflecting: brute.snapshot.owners[owner]))" }
            let friends = item.friends.map { brute.snapshot.items[$0] }
            if !friends.isEmpty {
                text += "\nits friends (age, name, score, flag, born, rank): "
                    + String(reflecting: friends.map { ($0.age, $0.name, $0.score, $0.flag, $0.born, $0.rank) })
            }
        }
        return text
    }

    // MARK: - Random predicates

    /// 2,000 random predicates in two seeded halves: the string form on the indexed class and
    /// (every fourth one) on the plain twin, and the DSL form where the DSL can express it, must
    /// all give the brute force's ids in object-key order.
    @Test(arguments: [0, 1]) func randomPredicatesMatchBruteForce(half: Int) throws {
        let (db, brute) = try fixture()
        let items = db.objects(QItem.self)
        let plain = db.objects(QPlainItem.self)
        var generator = QDGenerator(seed: 0x5EED_0001 &+ UInt64(half) &* 0x1000, snapshot: brute.snapshot)
        var failures = QDFailures()
        var dslCount = 0
        var selective = 0
        let count = 1000
        for i in 0..<count {
            let n = half * count + i
            let predicate = generator.predicate()
            let expected = brute.ids(predicate)
            if !expected.isEmpty && expected.count < brute.snapshot.items.count { selective += 1 }
            let (text, arguments) = QDRenderer.render(predicate, seed: UInt64(n) &* 0x9E37_79B9 &+ 17)
            do {
                let actual = Self.ids(try items.filter(text, argumentArray: arguments), &failures, "string #\(n): \(Self.show(text, arguments))")
                if actual != expected {
                    failures.record("string #\(n): \(Self.show(text, arguments))\n\(Self.difference(expected, actual, brute))")
                }
                if n % 4 == 0 {
                    let twin = Self.ids(try plain.filter(text, argumentArray: arguments), &failures, "plain twin #\(n): \(Self.show(text, arguments))")
                    if twin != expected {
                        failures.record("plain twin #\(n): \(Self.show(text, arguments))\n\(Self.difference(expected, twin, brute))")
                    }
                }
            } catch {
                failures.record("string #\(n) threw: \(Self.show(text, arguments))\n\(error)")
            }
            var rng = SeededRandom(seed: UInt64(n))
            var expressible = true
            let dsl = items.where { q in
                if let built = QDDSL.build(predicate, q, &rng) { return built }
                expressible = false
                return q.flag
            }
            guard expressible else { continue }
            dslCount += 1
            let actual = Self.ids(dsl, &failures, "DSL #\(n), the same as: \(Self.show(text, arguments))")
            if actual != expected {
                failures.record("DSL #\(n), the same as: \(Self.show(text, arguments))\n\(Self.difference(expected, actual, brute))")
            }
        }
        failures.finish("\(count) random predicates")
        // The generator must exercise the DSL and produce selective predicates.
        #expect(dslCount >= count * 2 / 5, "only \(dslCount) predicates had a DSL form")
        #expect(selective >= count / 2, "only \(selective) predicates selected some but not all items")
    }

    /// Random predicates on lists of objects (`item.friends.filter`, `.where`, `.sorted`):
    /// results in list order with repeats kept, for 150 predicates on 3 items each.
    @Test func queriesOnListsMatchBruteForce() throws {
        let (db, brute) = try fixture()
        var generator = QDGenerator(seed: 0x5EED_0006, snapshot: brute.snapshot)
        var rng = SeededRandom(seed: 0x1157)
        var failures = QDFailures()
        let owners = brute.snapshot.items.indices.filter { brute.snapshot.items[$0].friends.count >= 2 }
        for n in 0..<150 {
            let predicate = generator.predicate()
            let (text, arguments) = QDRenderer.render(predicate, seed: UInt64(n) &+ 0x7157)
            for _ in 0..<3 {
                let index = rng.pick(owners)
                let item = try #require(db.object(ofType: QItem.self, forPrimaryKey: brute.snapshot.items[index].id))
                let friends = brute.snapshot.items[index].friends
                let expected = friends.filter { brute.matches(predicate, $0) }.map { brute.snapshot.items[$0].id }
                let results: Results<QItem>
                switch arguments.count {
                case 0: results = try item.friends.filter(text)
                case 1: results = try item.friends.filter(text, arguments[0])
                case 2: results = try item.friends.filter(text, arguments[0], arguments[1])
                default: results = try item.friends.sorted(by: [] as [ObjDB.SortDescriptor]).filter(text, argumentArray: arguments)
                }
                let actual = Self.ids(results, &failures, "#\(n) on the friends of \(item.id): \(Self.show(text, arguments))")
                if actual != expected {
                    failures.record("#\(n) on the friends of \(item.id): \(Self.show(text, arguments))\n\(Self.difference(expected, actual, brute))")
                }
                var dslRng = SeededRandom(seed: UInt64(n))
                var expressible = true
                let dsl = item.friends.where { q in
                    if let built = QDDSL.build(predicate, q, &dslRng) { return built }
                    expressible = false
                    return q.flag
                }
                if expressible {
                    let dslIds = Self.ids(dsl, &failures, "DSL #\(n) on the friends of \(item.id)")
                    if dslIds != expected {
                        failures.record("DSL #\(n) on the friends of \(item.id), the same as \(Self.show(text, arguments))\n\(Self.difference(expected, dslIds, brute))")
                    }
                }
                let key = rng.pick(QDField.allCases)
                let ascending = rng.percent(50)
                let sorted = item.friends.sorted(byKeyPath: key.path, ascending: ascending).qdIDs
                let expectedSorted = brute.sorted(friends, by: [(key, ascending)]).map { brute.snapshot.items[$0].id }
                if sorted != expectedSorted {
                    failures.record("friends of \(item.id) sorted by \(key.path) \(ascending ? "asc" : "desc"): got \(sorted), expected \(expectedSorted)")
                }
            }
        }
        failures.finish("list queries")
    }

    // MARK: - Sorting, distinct, prefix

    /// The sort key, applied through one of the three `sorted` spellings.
    static func sorted(_ results: Results<QItem>, _ keys: [(QDField, Bool)], _ rng: inout SeededRandom) -> Results<QItem> {
        if keys.count == 1 {
            let (field, ascending) = keys[0]
            if rng.percent(40) {
                switch field {
                case .id: return results.sorted(by: \.id, ascending: ascending)
                case .name: return results.sorted(by: \.name, ascending: ascending)
                case .nickname: return results.sorted(by: \.nickname, ascending: ascending)
                case .age: return results.sorted(by: \.age, ascending: ascending)
                case .rank: return results.sorted(by: \.rank, ascending: ascending)
                case .score: return results.sorted(by: \.score, ascending: ascending)
                case .flag: return results.sorted(by: \.flag, ascending: ascending)
                case .born: return results.sorted(by: \.born, ascending: ascending)
                case .ownerName, .ownerLevel: break
                }
            }
            if rng.percent(50) { return results.sorted(byKeyPath: field.path, ascending: ascending) }
        }
        return results.sorted(by: keys.map { SortDescriptor(keyPath: $0.0.path, ascending: $0.1) })
    }

    /// 300 queries with random predicates, sort keys (1–2, through the owner link too),
    /// `distinct(by:)` and `prefix(_:)`, chained in random order, against a brute force that
    /// filters, sorts stably, keeps the first of each distinct combination, then cuts.
    @Test func sortedDistinctAndPrefixMatchBruteForce() throws {
        let (db, brute) = try fixture()
        var generator = QDGenerator(seed: 0x5EED_0002, snapshot: brute.snapshot)
        var rng = SeededRandom(seed: 0x50_27ED)
        var failures = QDFailures()
        for n in 0..<300 {
            let predicate: QDPredicate? = rng.percent(75) ? generator.predicate() : nil
            let keys: [(QDField, Bool)] = rng.percent(85)
                ? (0..<rng.inRange(1...2)).map { _ in (rng.pick(QDField.allCases), rng.percent(50)) } : []
            let distinct: [QDField] = rng.percent(35)
                ? (0..<rng.inRange(1...2)).map { _ in rng.pick(QDField.allCases) } : []
            let limit: Int? = rng.percent(45) ? rng.inRange(0...25) : nil

            var indexes = brute.indexes(predicate)
            if !keys.isEmpty { indexes = brute.sorted(indexes, by: keys) }
            if !distinct.isEmpty { indexes = brute.distinct(indexes, by: distinct) }
            if let limit { indexes = Array(indexes.prefix(limit)) }
            let expected = indexes.map { brute.snapshot.items[$0].id }

            var results = db.objects(QItem.self)
            var text = "TRUEPREDICATE"
            var arguments: [Any?] = []
            var steps = [0, 1, 2, 3]
            for i in stride(from: steps.count - 1, to: 0, by: -1) { steps.swapAt(i, rng.below(i + 1)) }
            for step in steps {
                switch step {
                case 0:
                    guard let predicate else { continue }
                    (text, arguments) = QDRenderer.render(predicate, seed: UInt64(n) &+ 0xABCD)
                    results = try results.filter(text, argumentArray: arguments)
                case 1: if !keys.isEmpty { results = Self.sorted(results, keys, &rng) }
                case 2: if !distinct.isEmpty { results = results.distinct(by: distinct.map(\.path)) }
                default: if let limit { results = results.prefix(limit) }
                }
            }
            let actual = results.qdIDs
            let description = "#\(n): filter \(Self.show(text, arguments)), sort \(keys.map { "\($0.0.path) \($0.1 ? "asc" : "desc")" }), "
                + "distinct \(distinct.map(\.path)), prefix \(limit.map(String.init) ?? "none"), call order \(steps)"
            if actual != expected {
                failures.record("\(description)\n\(Self.difference(expected, actual, brute))")
            } else if results.count != expected.count || results.first?.id != expected.first || results.isEmpty != expected.isEmpty {
                failures.record("\(description): count \(results.count), first \(String(describing: results.first?.id)) disagree with the elements")
            }
        }
        failures.finish("300 sorted queries")
    }

    // MARK: - Indexes

    /// The indexed properties of ``QItem`` (and its primary key).
    static let indexedFields: [QDField] = [.id, .name, .nickname, .age, .rank, .flag, .born]

    /// A constant of the property's own type (the planner uses indexes only for those), often a
    /// long string or a piece of one around the index key's 480-byte cut.
    static func indexConstant(_ field: QDField, _ generator: inout QDGenerator, allowNil: Bool) -> QDValue {
        if allowNil && generator.rng.percent(12) { return .null }
        if field.type == .string && generator.rng.percent(35) {
            let long = generator.rng.pick(QDPools.longStrings)
            if generator.rng.percent(50) { return .string(long) }
            let scalars = Array(long.unicodeScalars)
            let cut = min(scalars.count, generator.rng.pick([200, 470, 478, 479, 480, 481, 500, scalars.count]))
            return .string(String(String.UnicodeScalarView(scalars[0..<cut])))
        }
        while true {
            let value = generator.value(field.type, field: field)
            switch (field.type, value) {
            case (.int, .int), (.string, .string), (.bool, .bool), (.date, .date): return value
            default: continue
            }
        }
    }

    /// A comparison an index serves, and the start of the plan it must report.
    static func servedComparison(_ generator: inout QDGenerator) -> (QDPredicate, String) {
        let field = generator.rng.pick(indexedFields)
        var ops: [QDOp] = [.eq, .in]
        if field != .id && field != .flag { ops += [.lt, .le, .gt, .ge, .between] }
        if field.type == .string { ops += [.begins, .begins] }
        let op = generator.rng.pick(ops)
        var c = QDComparison(left: .field(field), op: op, values: [])
        switch op {
        case .eq: c.values = [indexConstant(field, &generator, allowNil: true)]
        case .in: c.values = (0..<generator.rng.inRange(1...4)).map { _ in indexConstant(field, &generator, allowNil: true) }
        case .between:
            var low = indexConstant(field, &generator, allowNil: false)
            var high = indexConstant(field, &generator, allowNil: false)
            if generator.rng.percent(85), let order = QDOrder.compare(low, high), order > 0 { swap(&low, &high) }
            c.values = [low, high]
        case .begins:
            if generator.rng.percent(60) {
                c.values = [indexConstant(field, &generator, allowNil: false)]
            } else {
                c.values = [.string(generator.needle(.begins, field))]
            }
        default: c.values = [indexConstant(field, &generator, allowNil: false)]
        }
        let plan: String
        switch op {
        case _ where field == .id: plan = "primary key lookup on id"
        case .eq, .in: plan = "index lookup on \(field.path)"
        case .begins: plan = "index prefix scan on \(field.path)"
        default: plan = "index range on \(field.path)"
        }
        return (.comparison(c), plan)
    }

    /// 400 predicates of the shapes the planner serves (primary key `==`/`IN`; indexed `==`,
    /// `IN`, `nil`, ranges, `BETWEEN`, `BEGINSWITH`; conjunctions with one of those), with long
    /// strings that share a prefix longer than an index key and `nil` in indexed properties: the
    /// plan must use the index, the twin without indexes must scan, and both must give the brute
    /// force's ids. Shapes the documentation says scan (`OR`, `NOT`, `[c]`, links, a `Double`
    /// against an `Int` property) must report a table scan and give the same ids.
    @Test func indexedQueriesUseIndexesAndMatchTheTwin() throws {
        let (db, brute) = try fixture()
        let items = db.objects(QItem.self)
        let plain = db.objects(QPlainItem.self)
        var generator = QDGenerator(seed: 0x5EED_0003, snapshot: brute.snapshot)
        var failures = QDFailures()
        var indexPlans = 0
        for n in 0..<400 {
            var (predicate, plan) = Self.servedComparison(&generator)
            var exactPlan = true
            switch generator.rng.below(100) {
            case 0..<30:
                let other = generator.predicate(depth: 1)
                predicate = generator.rng.percent(50) ? .and([predicate, other]) : .and([other, predicate])
                exactPlan = false
            case 30..<38:
                predicate = .and([predicate, Self.servedComparison(&generator).0])
                exactPlan = false
            case 38..<41:
                predicate = .or([predicate, Self.servedComparison(&generator).0])
                plan = "table scan"
            case 41..<44:
                predicate = .not(predicate)
                plan = "table scan"
            case 44..<47:
                let value = generator.value(.string, field: .name)
                predicate = .comparison(QDComparison(left: .field(.name), op: .eq, values: [value], caseInsensitive: true))
                plan = "table scan"
            case 47..<50:
                let field = generator.rng.pick([QDField.ownerLevel, .ownerName, .score])
                predicate = .comparison(QDComparison(left: .field(field), op: .eq, values: [generator.value(field.type, field: field)]))
                plan = "table scan"
            case 50..<53:
                let value = Double(generator.rng.inRange(-10...60)) + 0.5
                predicate = .comparison(QDComparison(left: .field(generator.rng.pick([.age, .rank])), op: .gt, values: [.double(value)]))
                plan = "table scan"
            default:
                break
            }
            let expected = brute.ids(predicate)
            let (text, arguments) = QDRenderer.render(predicate, seed: UInt64(n) &+ 0x1D3)
            let shown = Self.show(text, arguments)
            do {
                let results = try items.filter(text, argumentArray: arguments)
                let twin = try plain.filter(text, argumentArray: arguments)
                let actual = Self.ids(results, &failures, "indexed #\(n): \(shown)")
                let twinIds = Self.ids(twin, &failures, "plain twin #\(n): \(shown)")
                if actual != expected { failures.record("indexed #\(n): \(shown)\nplan: \(results.queryPlan)\n\(Self.difference(expected, actual, brute))") }
                if twinIds != expected { failures.record("plain twin #\(n): \(shown)\n\(Self.difference(expected, twinIds, brute))") }
                if twin.queryPlan != "table scan" { failures.record("plain twin #\(n): \(shown): plan '\(twin.queryPlan)', expected a table scan") }
                let used = results.queryPlan
                if used != "table scan" { indexPlans += 1 }
                if exactPlan ? !used.hasPrefix(plan) : used == "table scan" {
                    failures.record("plan #\(n): \(shown): '\(used)', expected \(exactPlan ? "'\(plan)…'" : "an index")")
                }
                var rng = SeededRandom(seed: UInt64(n))
                var expressible = true
                let dsl = items.where { q in
                    if let built = QDDSL.build(predicate, q, &rng, sugar: false) { return built }
                    expressible = false
                    return q.flag
                }
                if expressible {
                    let dslIds = Self.ids(dsl, &failures, "DSL #\(n), the same as \(shown)")
                    if dslIds != expected { failures.record("DSL #\(n), the same as \(shown)\nplan: \(dsl.queryPlan)\n\(Self.difference(expected, dslIds, brute))") }
                    // The DSL's half-open range is one comparison (an index range), the string's two:
                    // the plans may pick different indexes, but both must use one when either does.
                    if (dsl.queryPlan == "table scan") != (used == "table scan") {
                        failures.record("DSL #\(n), the same as \(shown): plan '\(dsl.queryPlan)', the string's '\(used)'")
                    }
                }
            } catch {
                failures.record("#\(n) threw: \(shown)\n\(error)")
            }
        }
        failures.finish("400 indexed queries")
        #expect(indexPlans >= 300)
    }

    // MARK: - Aggregates

    /// Whether an aggregate result equals the brute force's (strings by bytes, doubles by value
    /// with NaN equal to NaN).
    static func same(_ actual: QDValue, _ expected: QDValue) -> Bool {
        if case .double(let a) = actual, case .double(let b) = expected, a.isNaN && b.isNaN { return true }
        return QDOrder.equal(actual, expected)
    }

    /// `min`, `max`, `sum` and `average` of properties (also through the owner link, by name)
    /// over 150 filtered results, with `nil` values, infinities and negative zero, against the
    /// brute force: `nil` ignored, `min`/`max`/`average` of nothing `nil`, `sum` of nothing 0.
    @Test func resultsAggregatesMatchBruteForce() throws {
        let (db, brute) = try fixture()
        let items = db.objects(QItem.self)
        var generator = QDGenerator(seed: 0x5EED_0004, snapshot: brute.snapshot)
        var failures = QDFailures()
        for n in 0..<150 {
            let predicate: QDPredicate? = n % 10 == 0 ? nil : generator.predicate()
            let indexes = brute.indexes(predicate)
            var text = "all objects"
            var results = items
            if let predicate {
                let (format, arguments) = QDRenderer.render(predicate, seed: UInt64(n) &+ 0xA66)
                text = Self.show(format, arguments)
                results = try items.filter(format, argumentArray: arguments)
            }
            /// The non-nil values of `field` of the matching items.
            func values(_ field: QDField) -> [QDValue] { indexes.map { brute.value(field, $0) }.filter { !$0.isNull } }
            /// The first smallest (or largest) value, `nil` without values.
            func extreme(_ field: QDField, _ smallest: Bool) -> QDValue {
                var best: QDValue = .null
                for value in values(field) {
                    if best.isNull { best = value; continue }
                    if let order = QDOrder.compare(value, best), smallest ? order < 0 : order > 0 { best = value }
                }
                return best
            }
            /// The sum in object-key order, 0 without values.
            func sum(_ field: QDField) -> QDValue {
                let present = values(field)
                if field.type == .int { return .int(present.reduce(0) { $0 &+ (QDDSL.int($1) ?? 0) }) }
                return .double(present.reduce(0.0) { $0 + QDBruteForce.double($1) })
            }
            /// The average, `nil` without values.
            func average(_ field: QDField) -> QDValue {
                let present = values(field)
                guard !present.isEmpty else { return .null }
                return .double(present.reduce(0.0) { $0 + QDBruteForce.double($1) } / Double(present.count))
            }
            /// Records a mismatch of one aggregate.
            func check(_ what: String, _ actual: QDValue, _ expected: QDValue) {
                if !Self.same(actual, expected) {
                    failures.record("#\(n) \(what) over \(text) (\(indexes.count) objects): got \(String(reflecting: actual)), expected \(String(reflecting: expected))")
                }
            }
            let int = { (v: Int?) in v.map(QDValue.int) ?? .null }
            let double = { (v: Double?) in v.map(QDValue.double) ?? .null }
            let string = { (v: String?) in v.map(QDValue.string) ?? .null }
            let date = { (v: Date?) in v.map(QDValue.date) ?? .null }
            check("min(of: \\.age)", int(results.min(of: \.age)), extreme(.age, true))
            check("max(of: \\.age)", int(results.max(of: \.age)), extreme(.age, false))
            check("sum(of: \\.age)", int(results.sum(of: \.age)), sum(.age))
            check("average(of: \\.age)", double(results.average(of: \.age)), average(.age))
            check("min(of: \\.id)", int(results.min(of: \.id)), extreme(.id, true))
            check("max(of: \\.rank)", int(results.max(of: \.rank)), extreme(.rank, false))
            check("min(of: \\.rank)", int(results.min(of: \.rank)), extreme(.rank, true))
            check("min(of: \\.score)", double(results.min(of: \.score)), extreme(.score, true))
            check("max(of: \\.score)", double(results.max(of: \.score)), extreme(.score, false))
            check("sum(of: \\.score)", .double(results.sum(of: \.score)), sum(.score))
            check("average(of: \\.score)", double(results.average(of: \.score)), average(.score))
            check("min(of: \\.born)", date(results.min(of: \.born)), extreme(.born, true))
            check("max(of: \\.born)", date(results.max(of: \.born)), extreme(.born, false))
            check("min(of: \\.name)", string(results.min(of: \.name)), extreme(.name, true))
            check("max(of: \\.nickname)", string(results.max(of: \.nickname)), extreme(.nickname, false))
            check("min(ofProperty: \"owner.level\")", int(results.min(ofProperty: "owner.level") as Int?), extreme(.ownerLevel, true))
            check("max(ofProperty: \"owner.name\")", string(results.max(ofProperty: "owner.name") as String?), extreme(.ownerName, false))
            check("max(ofProperty: \"age\")", int(results.max(ofProperty: "age") as Int?), extreme(.age, false))
            check("min(ofProperty: \"born\")", date(results.min(ofProperty: "born") as Date?), extreme(.born, true))
            check("sum(ofProperty: \"owner.level\")", .int(results.sum(ofProperty: "owner.level") as Int), sum(.ownerLevel))
            check("sum(ofProperty: \"score\")", .double(results.sum(ofProperty: "score") as Double), sum(.score))
            check("average(ofProperty: \"owner.level\")", double(results.average(ofProperty: "owner.level")), average(.ownerLevel))
            check("average(ofProperty: \"age\")", double(results.average(ofProperty: "age")), average(.age))
        }
        failures.finish("aggregates")
    }

    // MARK: - Invalid predicates

    /// Invalid predicates, each with its arguments and a fragment its message must contain:
    /// unknown properties, paths through non-links, type mismatches, operators a type does not
    /// support, malformed `BETWEEN`/`IN`/quantifiers/aggregates/subqueries, argument counts and
    /// syntax errors.
    static var invalidPredicates: [(String, [Any?], String)] { [
        ("agee > 3", [], "has no property 'agee'"),
        ("owner.nmae == 'x'", [], "class 'QOwner' has no property 'nmae'"),
        ("friends.agee > 3", [], "has no property 'agee'"),
        ("name.count == 3", [], "is not a link"),
        ("age.value > 3", [], "is not a link"),
        ("age == 'x'", [], "cannot be compared with"),
        ("name == 3", [], "cannot be compared with"),
        ("flag == 2", [], "cannot be compared with"),
        ("score == true", [], "cannot be compared with"),
        ("born == 'yesterday'", [], "cannot be compared with"),
        ("name == %@", [Date(timeIntervalSince1970: 0)], "cannot be compared with"),
        ("owner == 3", [], "cannot be compared with"),
        ("age CONTAINS 3", [], "CONTAINS applies to strings and data"),
        ("score BEGINSWITH 1", [], "BEGINSWITH applies to strings and data"),
        ("flag < true", [], "does not apply to 'flag' of type"),
        ("owner > 3", [], "does not apply to"),
        ("age LIKE '1*'", [], "LIKE applies to strings"),
        ("age ==[c] 3", [], "[c] and [d] apply to strings"),
        ("ANY nums ==[d] 3", [], "[c] and [d] apply to strings"),
        ("name <[c] 'a'", [], "can't be used with '<'"),
        ("name BEGINSWITH[x] 'a'", [], "unknown option '[x]'"),
        ("age BETWEEN {1, 2, 3}", [], "BETWEEN needs a list of two values"),
        ("age BETWEEN {1}", [], "BETWEEN needs a list of two values"),
        ("age BETWEEN 3", [], "BETWEEN needs a list of two values"),
        ("age BETWEEN %@", [[1, 2, 3]], "BETWEEN needs a list of two values"),
        ("age IN 3", [], "IN needs a list"),
        ("age IN %@", [3], "IN needs a list like {1, 2}, an array argument or a key path"),
        ("{1, 2} == age", [], "a list goes on the right"),
        ("ALL owner.name == 'x'", [], "ALL needs a to-many key path"),
        ("NONE age == 3", [], "NONE needs a to-many key path"),
        ("ANY 3 == age", [], "must be followed by a key path"),
        ("tags.@sum > 3", [], "@sum needs numbers"),
        ("friends.@sum.name > 3", [], "@sum needs numbers"),
        ("friends.@avg.flag > 3", [], "@avg needs numbers"),
        ("friends.@max.name > 'a'", [], "@max needs numbers or dates"),
        ("age.@count > 1", [], "@count needs a list, set, map or linking objects"),
        ("owner.@sum > 1", [], "@sum needs a list, set, map or linking objects"),
        ("friends.@count.age > 1", [], "can't be followed by a property name"),
        ("friends.@median.age > 1", [], "unknown aggregate '@median'"),
        ("5 IN owner.level", [], "the key path after IN must reach several values"),
        ("5 IN ANY owner.level", [], "the key path after IN must reach several values"),
        ("ALL {5, 6} IN owner.level", [], "the key path after IN must reach several values"),
        ("ANY {5, 6} < ALL owner.level", [], "ALL needs a to-many key path"),
        ("nums BETWEEN {1, 2}", [], "BETWEEN on 'nums', a collection of values, needs ALL"),
        ("ANY nums BETWEEN {1, 2}", [], "BETWEEN on 'nums', a collection of values, needs ALL"),
        ("NONE tags BETWEEN {'a', 'b'}", [], "NONE is refused"),
        ("NULL CONTAINS age", [], "age"),
        ("SUBQUERY(owner, $o, $o.level > 1).@count > 0", [], "SUBQUERY needs a collection of objects"),
        ("SUBQUERY(tags, $t, $t == 'a').@count > 0", [], "SUBQUERY needs a collection of objects"),
        ("SUBQUERY(friends, $f, $g.age > 1).@count > 0", [], "must start with $f"),
        ("SUBQUERY(friends, $f, age > 1).@count > 0", [], "must start with $f"),
        ("SUBQUERY(friends, $f, $f.age > 1) > 0", [], "must be followed by .@count"),
        ("$x.age > 3", [], "has no property '$x'; a variable such as $x is defined only inside SUBQUERY"),
        ("age > %@", [], "the predicate uses 1 argument but 0 were given"),
        ("age > %@ AND name == %@", [3], "the predicate uses 2 arguments but 1 was given"),
        ("age > $1", [3], "the predicate uses 2 arguments but 1 was given"),
        ("%K > 3", [5], "%K needs a String key path"),
        ("(age > 3", [], "missing ')'"),
        ("((age > 3) AND (name == 'a')", [], "missing ')'"),
        ("age > 3)", [], "unexpected ')'"),
        ("age > 3 garbage", [], "expected AND, OR or the end of the predicate"),
        ("age > 3 AND", [], "expected a key path or value"),
        ("age >", [], "expected a key path or value"),
        ("NOT", [], "expected a key path or value"),
        ("", [], "the predicate is empty"),
        ("name == 'abc", [], "unterminated string"),
        ("name == \"abc", [], "unterminated string"),
        ("name == 'a\\qb'", [], "unknown escape sequence"),
        ("age >> 3", [], "unknown operator '>>'"),
        ("age > 3 & name == 'a'", [], "unknown operator '&'"),
        ("age IS 3", [], "unknown operator 'IS'"),
        ("age == 99999999999999999999", [], "out of range for a 64-bit integer"),
        ("age == 1.2.3", [], "is not a valid number"),
        ("born > T2024-13-01@00:00:00", [], "month 13 is not between 1 and 12"),
        ("born > 2023-02-29@00:00:00", [], "has no day 29"),
        ("'x' == 'y'", [], "needs a key path"),
        ("age == %z", [], "unknown format specifier"),
        ("name IN {'a', {'b'}}", [], "lists can't be nested"),
        ("age == uuid(nope)", [], "invalid UUID"),
        ("friends.age > 'x'", [], "cannot be compared with"),
        ("age == name", [], "cannot be compared with 'name'"),
    ] }

    /// Every invalid predicate throws ``ObjDBError`` with code `invalidQuery` and the expected
    /// message, on the indexed class, on the plain twin and on dynamic results; none crashes.
    @Test func invalidPredicatesThrowInvalidQuery() throws {
        let (db, _) = try fixture()
        #expect(Self.invalidPredicates.count >= 25)
        for (text, arguments, fragment) in Self.invalidPredicates {
            for (kind, results) in [("QItem", { try db.objects(QItem.self).filter(text, argumentArray: arguments).count }),
                                    ("QPlainItem", { try db.objects(QPlainItem.self).filter(text, argumentArray: arguments).count })] as [(String, () throws -> Int)] {
                do {
                    let count = try results()
                    Issue.record("\(kind): \(Self.show(text, arguments)) was accepted (\(count) objects); expected an error containing '\(fragment)'")
                } catch let error as ObjDBError {
                    #expect(error.code == .invalidQuery, "\(kind): \(text): \(error)")
                    #expect(error.message.contains(fragment), "\(kind): \(text): '\(error.message)' lacks '\(fragment)'")
                    #expect(error.message.contains("position") || fragment.contains("predicate uses"), "\(kind): \(text): '\(error.message)' names no position")
                } catch {
                    Issue.record("\(kind): \(text) threw \(error), not an ObjDBError")
                }
            }
        }
    }

    /// 600 random predicate strings, damaged (cut, a character removed, doubled or inserted,
    /// arguments dropped): each either works or throws an `invalidQuery` ObjDBError — never a
    /// crash, never another error.
    @Test func damagedPredicatesNeverCrash() throws {
        let (db, brute) = try fixture()
        let items = db.objects(QItem.self)
        var generator = QDGenerator(seed: 0x5EED_0005, snapshot: brute.snapshot)
        var rng = SeededRandom(seed: 0xDA_3A6E)
        let noise: [Character] = ["(", ")", "'", "\"", "{", "}", "[", "]", "%", "@", "$", ".", ",", "!", "=", "<", ">", "&", "|", " ", "\\", "é", "\u{301}", "0", "x", "T"]
        var accepted = 0
        for n in 0..<600 {
            let (text, arguments) = QDRenderer.render(generator.predicate(), seed: UInt64(n) &+ 0xDEAD)
            var characters = Array(text)
            var args = arguments
            let i = rng.below(max(characters.count, 1))
            switch rng.below(6) {
            case 0: characters = Array(characters.prefix(i))
            case 1: if !characters.isEmpty { characters.remove(at: i) }
            case 2: if !characters.isEmpty { characters.insert(characters[i], at: i) }
            case 3: characters.insert(rng.pick(noise), at: min(i, characters.count))
            case 4: if !args.isEmpty { args.removeLast() } else { characters.insert(rng.pick(noise), at: min(i, characters.count)) }
            default: characters = Array(characters.suffix(characters.count - i))
            }
            let damaged = String(characters)
            do {
                let results = try items.filter(damaged, argumentArray: args)
                _ = results.count
                _ = results.sorted(byKeyPath: "name").first
                accepted += 1
            } catch let error as ObjDBError {
                #expect(error.code == .invalidQuery, "\(Self.show(damaged, args)): \(error)")
                #expect(!error.message.isEmpty)
            } catch {
                Issue.record("\(Self.show(damaged, args)) threw \(error), not an ObjDBError")
            }
        }
        #expect(accepted > 0)
    }

    // MARK: - Disagreements found (minimal reproductions; they fail until ObjDB is fixed)

    /// Opens an empty database for a minimal reproduction.
    func emptyDatabase() throws -> Database {
        try directory.open([QItem.self, QPlainItem.self, QOwner.self], name: "minimal.objdb")
    }

    /// Adds a `QItem` and a `QPlainItem` with the given id and values.
    func add(_ db: Database, _ id: Int, name: String = "", score: Double = 0, born: Date? = nil, rank: Int = 0) throws {
        try db.write {
            let item = QItem()
            item.id = id; item.name = name; item.score = score; item.born = born; item.rank = rank
            try db.add(item)
            let twin = QPlainItem()
            twin.id = id; twin.name = name; twin.score = score; twin.born = born; twin.rank = rank
            try db.add(twin)
        }
    }

    /// `count` must equal the number of objects the results hold, also when an index answers it
    /// and an `IN` list repeats a value (found by `indexedQueriesUseIndexesAndMatchTheTwin` as
    /// `flag IN {false, true, false, true}`: `count` 344 of 172 objects, and `map`, which trusts
    /// `count`, trapping with "Results index 172 out of range 0..<172").
    @Test func countOfInWithRepeatedValues() throws {
        let db = try emptyDatabase()
        try add(db, 1, name: "a")
        try add(db, 2, name: "b")
        try db.write { db.objects(QItem.self).first?.flag = true }
        let items = db.objects(QItem.self)
        for (text, expected) in [
            ("flag IN {true, true}", [1]), ("flag IN {false, true, false, true}", [1, 2]), ("name IN {'a', 'a'}", [1]),
            ("id IN {2, 2, 2}", [2]), ("age IN {nil, nil}", [1, 2]),
        ] {
            let results = try items.filter(text)
            let count = results.count
            #expect(results.qdIDs == expected, "\(text)")
            #expect(count == expected.count, "\(text): count \(count) with \(results.queryPlan)")
        }
    }

    /// `LIKE`: a `*` of the pattern must stay a wildcard when the text has a literal `*` at that
    /// place. ObjDB matches the two stars as literal characters first and never backtracks to the
    /// wildcard: `'a*b' LIKE 'a*'` and `'*é' LIKE '*'` are false (found by
    /// `randomPredicatesMatchBruteForce` as `nickname LIKE[c] '*'` missing `"*é"`).
    @Test func likeWildcardFacingALiteralStar() throws {
        let db = try emptyDatabase()
        try add(db, 1, name: "a*b")
        try add(db, 2, name: "*é")
        try add(db, 3, name: "ab")
        let items = db.objects(QItem.self)
        #expect(try items.filter("name LIKE 'a*'").qdIDs == [1, 3])
        #expect(try items.filter("name LIKE '*'").qdIDs == [1, 2, 3])
        #expect(try items.filter("name LIKE '*b'").qdIDs == [1, 3])
        #expect(items.where { $0.name.like("a*") }.qdIDs == [1, 3])
        #expect(try db.objects(QPlainItem.self).filter("name LIKE[c] 'A*'").qdIDs == [1, 3])
    }

    /// An index on a `Date` must treat a date stored as `-0.0` seconds since 2001 as the same
    /// time as `0.0`, as the scan of the un-indexed twin does. ObjDB's index keys order `-0.0`
    /// before `0.0`, so lookups and range walks of `born` miss one of the two (found by all the
    /// random tests); with the working tree's uncommitted planner (exact index candidates
    /// without a re-check), `born > -0.0` also returns the `0.0` date.
    @Test func indexedDateAtNegativeZero() throws {
        let db = try emptyDatabase()
        let zero = Date(timeIntervalSinceReferenceDate: 0)
        let negativeZero = Date(timeIntervalSinceReferenceDate: -0.0)
        try add(db, 1, born: zero)
        try add(db, 2, born: negativeZero)
        for (text, arguments, expected) in [
            ("born == %@", [zero], [1, 2]), ("born == %@", [negativeZero], [1, 2]), ("born IN %@", [[zero]], [1, 2]),
            ("born >= %@", [zero], [1, 2]), ("born <= %@", [negativeZero], [1, 2]), ("born BETWEEN %@", [[zero, zero]], [1, 2]),
            ("born == T2001-01-01@00:00:00", [], [1, 2]), ("born > %@", [negativeZero], []), ("born < %@", [zero], []),
        ] as [(String, [Any?], [Int])] {
            let scan = try db.objects(QPlainItem.self).filter(text, argumentArray: arguments)
            let indexed = try db.objects(QItem.self).filter(text, argumentArray: arguments)
            #expect(scan.qdIDs == expected, "\(text) \(arguments) on the plain twin")
            #expect(indexed.qdIDs == expected, "\(text) \(arguments) with \(indexed.queryPlan)")
        }
    }

    /// `distinct(by:)` must treat `-0.0` and `0.0` as one value, as `==` and sorting do
    /// (numbers compare by value). ObjDB compares the stored bytes and keeps both (found by
    /// `sortedDistinctAndPrefixMatchBruteForce` with `distinct(by: ["score"])` and `["born"]`).
    @Test func distinctOfNegativeZero() throws {
        let db = try emptyDatabase()
        try add(db, 1, score: 0, born: Date(timeIntervalSinceReferenceDate: 0))
        try add(db, 2, score: -0.0, born: Date(timeIntervalSinceReferenceDate: -0.0))
        let items = db.objects(QItem.self)
        #expect(try items.filter("score == 0").qdIDs == [1, 2])
        #expect(items.distinct(by: ["score"]).qdIDs == [1])
        #expect(items.distinct(by: ["born"]).qdIDs == [1])
    }

    /// A string literal may start with a combining character (searching for decomposed accents),
    /// and an escape may be followed by one. ObjDB's lexer reads the predicate as `Character`s,
    /// so the opening quote (or the escaped character) and the combining mark form one
    /// character: "unexpected character" and "unknown escape sequence". Arguments work.
    @Test func stringLiteralStartingWithCombiningMark() throws {
        let db = try emptyDatabase()
        try add(db, 1, name: "\u{301}lead")
        try add(db, 2, name: "x'\u{301}")
        let items = db.objects(QItem.self)
        #expect(try items.filter("name == %@", "\u{301}lead").qdIDs == [1])
        for (text, expected) in [
            ("name == '\u{301}lead'", [1]), ("name == \"\u{301}lead\"", [1]), ("name CONTAINS '\u{301}'", [1, 2]),
            ("name == 'x\\'\u{301}'", [2]),
        ] {
            do {
                #expect(try items.filter(text).qdIDs == expected, "\(text)")
            } catch {
                Issue.record("\(text) threw: \(error)")
            }
        }
    }

    /// Integers and doubles compare by value, so `2^53 + 1` is not equal to `2^53` (a `Double`)
    /// and `Int.max` is below `2^63`. ObjDB converts the integer to `Double` first, which rounds
    /// it (found by a probe of `rank` with extreme values; the documentation says "Numbers
    /// compare by value across types").
    @Test func integersAndDoublesCompareByValue() throws {
        let db = try emptyDatabase()
        try add(db, 1, rank: 9_007_199_254_740_993)
        try add(db, 2, rank: Int.max)
        let items = db.objects(QItem.self)
        #expect(try items.filter("rank == 9007199254740992.0").qdIDs == [])
        #expect(try items.filter("rank > %@", 9_007_199_254_740_992.0).qdIDs == [1, 2])
        #expect(try items.filter("rank < 9223372036854775808.0").qdIDs == [1, 2])
        #expect(try db.objects(QPlainItem.self).filter("rank == %@", 9_223_372_036_854_775_807.0).qdIDs == [])
    }
}
