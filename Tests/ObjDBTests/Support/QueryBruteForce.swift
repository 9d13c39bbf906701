import Foundation

// The predicates the query differential tests generate (a small AST of their own), and a brute
// force that evaluates them, sorts and applies `distinct` over a QDSnapshot in plain Swift,
// following the "Semantics" and "Sorting, distinct, limits" sections of Docs/Queries.md.

// MARK: - Predicates

/// A constant of a generated predicate.
enum QDValue {
    case null
    case int(Int)
    case double(Double)
    case string(String)
    case bool(Bool)
    case date(Date)

    /// Whether the value is `nil`.
    var isNull: Bool { if case .null = self { true } else { false } }
}

/// The type of the values a key path reaches.
enum QDType {
    case int, double, string, bool, date
}

/// A property of an item, or of its owner through the to-one link.
enum QDField: CaseIterable {
    case id, name, nickname, age, rank, score, flag, born, ownerName, ownerLevel

    /// The key path in a predicate string.
    var path: String {
        switch self {
        case .id: "id"
        case .name: "name"
        case .nickname: "nickname"
        case .age: "age"
        case .rank: "rank"
        case .score: "score"
        case .flag: "flag"
        case .born: "born"
        case .ownerName: "owner.name"
        case .ownerLevel: "owner.level"
        }
    }

    /// The type of its values.
    var type: QDType {
        switch self {
        case .id, .age, .rank, .ownerLevel: .int
        case .name, .nickname, .ownerName: .string
        case .score: .double
        case .flag: .bool
        case .born: .date
        }
    }

    /// Whether ``QItem`` has an index on it (or it is the primary key).
    var indexed: Bool {
        switch self {
        case .id, .name, .nickname, .age, .rank, .flag, .born: true
        case .score, .ownerName, .ownerLevel: false
        }
    }

    /// The properties of the item itself (not through the owner link).
    static let own: [QDField] = [.id, .name, .nickname, .age, .rank, .score, .flag, .born]
}

/// A list property of an item.
enum QDCollection {
    case friends, tags, nums

    /// The property name.
    var path: String {
        switch self {
        case .friends: "friends"
        case .tags: "tags"
        case .nums: "nums"
        }
    }
}

/// The values reached through a list: a property of the friends, or the elements of `tags` or
/// `nums`.
struct QDMany {
    /// The list.
    var collection: QDCollection
    /// For ``QDCollection/friends``: the property of the friends.
    var field: QDField?

    /// The key path in a predicate string.
    var path: String { field.map { "\(collection.path).\($0.path)" } ?? collection.path }

    /// The type of the values.
    var type: QDType {
        switch collection {
        case .friends: field?.type ?? .int
        case .tags: .string
        case .nums: .int
        }
    }
}

/// `ANY`, `ALL` or `NONE`.
enum QDQuantifier {
    case any, all, none
}

/// An aggregate of the values of a list.
enum QDAggregateFunction {
    case count, sum, min, max, avg

    /// The aggregate in a predicate string.
    var keyword: String {
        switch self {
        case .count: "@count"
        case .sum: "@sum"
        case .min: "@min"
        case .max: "@max"
        case .avg: "@avg"
        }
    }
}

/// The left side of a comparison.
indirect enum QDLeft {
    /// A property of the item or of its owner.
    case field(QDField)
    /// The values of a list, quantified.
    case many(QDQuantifier, QDMany)
    /// An aggregate of a list (for `@count`, `QDMany.field` is `nil`).
    case aggregate(QDAggregateFunction, QDMany)
    /// The number of friends that match a predicate.
    case subquery(QDPredicate)

    /// The type of the values the left side gives.
    var type: QDType {
        switch self {
        case .field(let field): field.type
        case .many(_, let many): many.type
        case .aggregate(.count, _), .subquery: .int
        case .aggregate(.avg, _): .double
        case .aggregate(_, let many): many.type
        }
    }
}

/// A comparison operator.
enum QDOp: CaseIterable {
    case eq, ne, lt, le, gt, ge, between, `in`, contains, begins, ends, like
}

/// One comparison: a left side, an operator, its constants and string options.
struct QDComparison {
    var left: QDLeft
    var op: QDOp
    /// One value, or the list of `IN` and the two bounds of `BETWEEN`.
    var values: [QDValue]
    /// `[c]`.
    var caseInsensitive = false
    /// `[d]`.
    var diacriticInsensitive = false
    /// A property of the same object to compare with instead of ``values`` (`age > rank`).
    var right: QDField? = nil
}

/// `[quantifier] {values} op [quantifier] many`: a list of constants written on the left of a
/// collection, as Realm's query language allows (`ALL {1, 2} IN ANY nums`). The list's quantifier
/// applies outside the collection's; a quantifier not written is ANY.
struct QDLeftList {
    /// The quantifier before the list, if written.
    var listQuantifier: QDQuantifier?
    /// The values of the list.
    var values: [QDValue]
    /// The operator as written (list on its left): `.eq`, `.ne`, `.lt`, `.le`, `.gt`, `.ge` or `.in`.
    var op: QDOp
    /// The quantifier before the collection, if written.
    var quantifier: QDQuantifier?
    /// The collection.
    var many: QDMany
}

/// A generated predicate.
indirect enum QDPredicate {
    case comparison(QDComparison)
    case leftList(QDLeftList)
    /// `left >= low AND left < high` (the DSL's `contains(low..<high)`).
    case range(QDLeft, QDValue, QDValue)
    case and([QDPredicate])
    case or([QDPredicate])
    case not(QDPredicate)
    case constant(Bool)
}

// MARK: - Value semantics

/// The order and equality the documentation gives: numbers by value (exactly, across integers
/// and doubles), strings by UTF-8 bytes, dates by time, `false` before `true`.
enum QDOrder {
    /// Compares two non-nil values of compatible types; `nil` when they cannot be ordered
    /// (different kinds, NaN).
    static func compare(_ a: QDValue, _ b: QDValue) -> Int? {
        switch (a, b) {
        case let (.int(x), .int(y)): return x < y ? -1 : x == y ? 0 : 1
        case let (.double(x), .double(y)): return ordered(x, y)
        case let (.int(x), .double(y)): return exact(x, y)
        case let (.double(x), .int(y)): return exact(y, x).map { -$0 }
        case let (.string(x), .string(y)): return bytes(x, y)
        case let (.bool(x), .bool(y)): return x == y ? 0 : (!x ? -1 : 1)
        case let (.date(x), .date(y)): return ordered(x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
        default: return nil
        }
    }

    /// Compares two doubles; `nil` for NaN.
    static func ordered(_ x: Double, _ y: Double) -> Int? {
        if x.isNaN || y.isNaN { return nil }
        return x < y ? -1 : x == y ? 0 : 1
    }

    /// Compares an integer with a double by their exact values.
    static func exact(_ i: Int, _ d: Double) -> Int? {
        if d.isNaN { return nil }
        if d >= 9_223_372_036_854_775_808.0 { return -1 }
        if d < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = d.rounded(.towardZero)
        let wholeInt = Int(whole)
        if i != wholeInt { return i < wholeInt ? -1 : 1 }
        let fraction = d - whole
        return fraction > 0 ? -1 : fraction < 0 ? 1 : 0
    }

    /// Compares two strings by their UTF-8 bytes.
    static func bytes(_ a: String, _ b: String) -> Int {
        var i = a.utf8.makeIterator()
        var j = b.utf8.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }

    /// Equality for `==`, `!=` and `IN`: `nil` equals only `nil`.
    static func equal(_ a: QDValue, _ b: QDValue) -> Bool {
        switch (a.isNull, b.isNull) {
        case (true, true): return true
        case (false, false): return compare(a, b) == 0
        default: return false
        }
    }

    /// Sort order: `nil` first, then ``compare(_:_:)`` (incomparable values tie).
    static func sortCompare(_ a: QDValue, _ b: QDValue) -> Int {
        switch (a.isNull, b.isNull) {
        case (true, true): return 0
        case (true, false): return -1
        case (false, true): return 1
        default: return compare(a, b) ?? 0
        }
    }
}

/// String matching as documented: byte-wise substring tests, `LIKE` on Unicode scalars, `[c]`
/// and `[d]` as Foundation's case and diacritic folding of both sides first.
enum QDText {
    /// `text` folded for the options.
    static func fold(_ text: String, _ caseInsensitive: Bool, _ diacriticInsensitive: Bool) -> String {
        var options: String.CompareOptions = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        if diacriticInsensitive { options.insert(.diacriticInsensitive) }
        return options.isEmpty ? text : text.folding(options: options, locale: nil)
    }

    /// Memoized ``fold(_:_:_:)``: folding is slow and the data has few distinct strings.
    final class Cache {
        /// Folded strings by options (bit 0 `[c]`, bit 1 `[d]`) and UTF-8 bytes of the original.
        private var folded: [Int: [[UInt8]: String]] = [:]

        /// `text` folded for the options.
        func fold(_ text: String, _ caseInsensitive: Bool, _ diacriticInsensitive: Bool) -> String {
            let options = (caseInsensitive ? 1 : 0) | (diacriticInsensitive ? 2 : 0)
            if options == 0 { return text }
            let key = Array(text.utf8)
            if let done = folded[options]?[key] { return done }
            let result = QDText.fold(text, caseInsensitive, diacriticInsensitive)
            folded[options, default: [:]][key] = result
            return result
        }
    }

    /// Whether the bytes of `needle` occur in those of `haystack`.
    static func contains(_ haystack: String, _ needle: String) -> Bool {
        let h = Array(haystack.utf8)
        let n = Array(needle.utf8)
        if n.isEmpty { return true }
        if n.count > h.count { return false }
        for start in 0...(h.count - n.count) where h[start..<(start + n.count)].elementsEqual(n) { return true }
        return false
    }

    /// Whether the bytes of `text` start with those of `prefix`.
    static func begins(_ text: String, _ prefix: String) -> Bool { text.utf8.starts(with: prefix.utf8) }

    /// Whether the bytes of `text` end with those of `suffix`.
    static func ends(_ text: String, _ suffix: String) -> Bool { text.utf8.reversed().starts(with: suffix.utf8.reversed()) }

    /// `LIKE`: `?` matches one Unicode scalar and `*` any run of them (dynamic programming over
    /// the scalars).
    static func like(_ text: String, _ pattern: String) -> Bool {
        let t = Array(text.unicodeScalars)
        let p = Array(pattern.unicodeScalars)
        // matched[j]: the first i scalars of the text match the first j of the pattern.
        var matched = [Bool](repeating: false, count: p.count + 1)
        matched[0] = true
        for j in 0..<p.count where p[j] == "*" && matched[j] { matched[j + 1] = true }
        for i in 0..<t.count {
            var next = [Bool](repeating: false, count: p.count + 1)
            for j in 0..<p.count {
                switch p[j] {
                case "*": next[j + 1] = next[j] || matched[j + 1]
                case "?": next[j + 1] = matched[j]
                default: next[j + 1] = matched[j] && p[j] == t[i]
                }
            }
            matched = next
        }
        return matched[p.count]
    }
}

// MARK: - Brute force

/// Evaluates ``QDPredicate``s, sorting and `distinct` over a snapshot, in plain Swift.
struct QDBruteForce {
    /// The data.
    let snapshot: QDSnapshot
    /// Folded strings, computed once.
    let folding = QDText.Cache()

    /// The value of a property of item `index` (`nil` through a `nil` owner link).
    func value(_ field: QDField, _ index: Int) -> QDValue {
        let item = snapshot.items[index]
        switch field {
        case .id: return .int(item.id)
        case .name: return .string(item.name)
        case .nickname: return item.nickname.map(QDValue.string) ?? .null
        case .age: return item.age.map(QDValue.int) ?? .null
        case .rank: return .int(item.rank)
        case .score: return .double(item.score)
        case .flag: return .bool(item.flag)
        case .born: return item.born.map(QDValue.date) ?? .null
        case .ownerName: return item.owner.map { .string(snapshot.owners[$0].name) } ?? .null
        case .ownerLevel: return item.owner.map { .int(snapshot.owners[$0].level) } ?? .null
        }
    }

    /// The values a list path reaches from item `index`, in list order.
    func values(_ many: QDMany, _ index: Int) -> [QDValue] {
        let item = snapshot.items[index]
        switch many.collection {
        case .friends:
            guard let field = many.field else { return item.friends.map { .int(snapshot.items[$0].id) } }
            return item.friends.map { value(field, $0) }
        case .tags: return item.tags.map(QDValue.string)
        case .nums: return item.nums.map { $0.map(QDValue.int) ?? .null }
        }
    }

    /// The aggregate of a list of item `index`: `@count` counts elements, `@sum` of nothing is
    /// 0, `@min`, `@max`, `@avg` ignore `nil` and are `nil` without values.
    func aggregate(_ function: QDAggregateFunction, _ many: QDMany, _ index: Int) -> QDValue {
        let all = values(many, index)
        if function == .count { return .int(all.count) }
        let present = all.filter { !$0.isNull }
        switch function {
        case .count:
            return .int(all.count)
        case .sum:
            if many.type == .int {
                return .int(present.reduce(0) { total, value in if case .int(let v) = value { total &+ v } else { total } })
            }
            return .double(present.reduce(0.0) { $0 + Self.double($1) })
        case .avg:
            guard !present.isEmpty else { return .null }
            return .double(present.reduce(0.0) { $0 + Self.double($1) } / Double(present.count))
        case .min, .max:
            var best: QDValue = .null
            for value in present {
                if best.isNull {
                    best = value
                } else if let order = QDOrder.compare(value, best), function == .min ? order < 0 : order > 0 {
                    best = value
                }
            }
            return best
        }
    }

    /// A number as a `Double`.
    static func double(_ value: QDValue) -> Double {
        switch value {
        case .int(let v): Double(v)
        case .double(let v): v
        default: 0
        }
    }

    /// The values of the left side for item `index`.
    func leftValues(_ left: QDLeft, _ index: Int) -> [QDValue] {
        switch left {
        case .field(let field): [value(field, index)]
        case .many(_, let many): values(many, index)
        case .aggregate(let function, let many): [aggregate(function, many, index)]
        case .subquery(let inner): [.int(snapshot.items[index].friends.filter { matches(inner, $0) }.count)]
        }
    }

    /// Whether item `index` matches `predicate`.
    func matches(_ predicate: QDPredicate, _ index: Int) -> Bool {
        switch predicate {
        case .constant(let value): return value
        case .and(let operands): return operands.allSatisfy { matches($0, index) }
        case .or(let operands): return operands.contains { matches($0, index) }
        case .not(let operand): return !matches(operand, index)
        case .range(let left, let low, let high):
            return matches(.comparison(QDComparison(left: left, op: .ge, values: [low])), index)
                && matches(.comparison(QDComparison(left: left, op: .lt, values: [high])), index)
        case .leftList(let list):
            return matches(list, index)
        case .comparison(var c):
            if let right = c.right { c.values = [value(right, index)] }
            let values = leftValues(c.left, index)
            let test = { (value: QDValue) in Self.test(value, c, self.folding) }
            if case .many(let quantifier, _) = c.left { return Self.quantify(quantifier, values, test) }
            return test(values[0])
        }
    }

    /// Whether item `index` matches a list written on the left: the list's quantifier over its
    /// values `v` outside, the collection's over its elements `e` inside, testing `v op e`.
    func matches(_ list: QDLeftList, _ index: Int) -> Bool {
        let elements = values(list.many, index)
        let op: QDOp = list.op == .in ? .eq : list.op
        func holds(_ value: QDValue) -> Bool {
            Self.quantify(list.quantifier ?? .any, elements) { element in
                Self.test(value, QDComparison(left: .many(.any, list.many), op: op, values: [element]), folding)
            }
        }
        return Self.quantify(list.listQuantifier ?? .any, list.values, holds)
    }

    /// Whether `test` holds for some, every or none of `values`.
    static func quantify(_ quantifier: QDQuantifier, _ values: [QDValue], _ test: (QDValue) -> Bool) -> Bool {
        switch quantifier {
        case .any: values.contains(where: test)
        case .all: values.allSatisfy(test)
        case .none: !values.contains(where: test)
        }
    }

    /// Whether one left value satisfies a comparison.
    static func test(_ value: QDValue, _ c: QDComparison, _ cache: QDText.Cache) -> Bool {
        let folding = c.caseInsensitive || c.diacriticInsensitive
        /// A string folded for the options; other values as they are.
        func folded(_ v: QDValue) -> QDValue {
            guard folding, case .string(let s) = v else { return v }
            return .string(cache.fold(s, c.caseInsensitive, c.diacriticInsensitive))
        }
        let left = folded(value)
        let right = c.values.map(folded)
        /// Whether the left value and `other` are both non-nil, ordered, and their order is accepted.
        func ordered(_ other: QDValue, _ accept: (Int) -> Bool) -> Bool {
            // Realm: nil equals nil and is unordered with anything else (`x >= nil` holds for nil).
            if left.isNull || other.isNull { return left.isNull && other.isNull && accept(0) }
            guard let order = QDOrder.compare(left, other) else { return false }
            return accept(order)
        }
        switch c.op {
        case .eq: return QDOrder.equal(left, right[0])
        case .ne: return !QDOrder.equal(left, right[0])
        case .lt: return ordered(right[0]) { $0 < 0 }
        case .le: return ordered(right[0]) { $0 <= 0 }
        case .gt: return ordered(right[0]) { $0 > 0 }
        case .ge: return ordered(right[0]) { $0 >= 0 }
        case .between: return ordered(right[0]) { $0 >= 0 } && ordered(right[1]) { $0 <= 0 }
        case .in: return right.contains { QDOrder.equal(left, $0) }
        case .contains, .begins, .ends, .like:
            // Realm: every string, nil included, contains, begins and ends with nil; only nil is LIKE nil.
            if case .null = right[0] {
                if c.op != .like { return true }
                if case .null = left { return true }
                return false
            }
            guard case .string(let text) = left, case .string(let pattern) = right[0] else { return false }
            switch c.op {
            case .contains: return QDText.contains(text, pattern)
            case .begins: return QDText.begins(text, pattern)
            case .ends: return QDText.ends(text, pattern)
            default: return QDText.like(text, pattern)
            }
        }
    }

    /// The ids of the items that match, in object-key order.
    func ids(_ predicate: QDPredicate?) -> [Int] {
        snapshot.items.indices.filter { i in predicate.map { matches($0, i) } ?? true }.map { snapshot.items[$0].id }
    }

    /// The indexes of the items that match, in object-key order.
    func indexes(_ predicate: QDPredicate?) -> [Int] {
        snapshot.items.indices.filter { i in predicate.map { matches($0, i) } ?? true }
    }

    /// `indexes` sorted stably by the keys (ascending puts `nil` first; descending reverses).
    func sorted(_ indexes: [Int], by keys: [(QDField, Bool)]) -> [Int] {
        let values = indexes.map { i in keys.map { value($0.0, i) } }
        let order = indexes.indices.sorted { a, b in
            for (k, key) in keys.enumerated() {
                let c = QDOrder.sortCompare(values[a][k], values[b][k])
                if c != 0 { return key.1 ? c < 0 : c > 0 }
            }
            return a < b
        }
        return order.map { indexes[$0] }
    }

    /// The first item of each combination of the values of `fields` (values compared as
    /// `==` compares them: strings by bytes, numbers by value, `nil` equal to `nil`).
    func distinct(_ indexes: [Int], by fields: [QDField]) -> [Int] {
        var seen: [[QDValue]] = []
        return indexes.filter { i in
            let identity = fields.map { value($0, i) }
            if seen.contains(where: { zip($0, identity).allSatisfy { QDOrder.equal($0, $1) } }) { return false }
            seen.append(identity)
            return true
        }
    }
}
