import Foundation
import ObjDB

// Random predicates for the query differential tests, and their two spellings: a predicate
// string with arguments (QDRenderer) and a `where { }` DSL expression (QDDSL).

// MARK: - Generator

/// Draws random predicates whose constants mostly come from the data, so that they match some
/// objects and not others.
struct QDGenerator {
    /// The random source.
    var rng: SeededRandom
    /// The data's values of each property (without `nil`).
    let fieldValues: [QDField: [QDValue]]
    /// Every string of the data (names, nicknames, tags, owner names).
    let strings: [String]
    /// Every integer of the data.
    let ints: [Int]
    /// Every double of the data.
    let doubles: [Double]
    /// Every date of the data.
    let dates: [Date]

    /// A generator over the values of `snapshot`.
    init(seed: UInt64, snapshot: QDSnapshot) {
        rng = SeededRandom(seed: seed)
        let brute = QDBruteForce(snapshot: snapshot)
        var fieldValues: [QDField: [QDValue]] = [:]
        for field in QDField.allCases {
            fieldValues[field] = snapshot.items.indices.map { brute.value(field, $0) }.filter { !$0.isNull }
        }
        self.fieldValues = fieldValues
        strings = snapshot.items.flatMap { [$0.name] + ($0.nickname.map { [$0] } ?? []) + $0.tags } + snapshot.owners.map(\.name)
        ints = snapshot.items.flatMap { [$0.id, $0.rank] + ($0.age.map { [$0] } ?? []) + $0.nums.compactMap { $0 } }
            + snapshot.owners.map(\.level)
        doubles = snapshot.items.map(\.score)
        dates = snapshot.items.compactMap(\.born)
    }

    // MARK: Values

    /// A random constant of `type`, often one of the data's values of `field`.
    mutating func value(_ type: QDType, field: QDField? = nil) -> QDValue {
        if let field, let values = fieldValues[field], !values.isEmpty, rng.percent(55) { return rng.pick(values) }
        switch type {
        case .int:
            switch rng.below(10) {
            case 0: return .int(rng.pick(QDPools.extremeInts))
            case 1: return .double(Double(rng.inRange(-60...140)) + rng.pick([0.5, -0.5, 0]))
            case 2, 3, 4: return .int(rng.inRange(-60...140))
            default: return .int(rng.pick(ints))
            }
        case .double:
            switch rng.below(10) {
            case 0, 1: return .int(rng.inRange(-10...120))
            case 2, 3: return .double(rng.pick(QDPools.doubles))
            case 4: return .double(Double(rng.inRange(-400...400)) / 4)
            default: return .double(rng.pick(doubles))
            }
        case .string:
            switch rng.below(10) {
            case 0, 1: return .string(rng.pick(QDPools.strings))
            case 2: return .string(rng.pick(QDPools.longStrings))
            case 3: return .string(rng.percent(50) ? rng.pick(strings).uppercased() : rng.pick(strings).lowercased())
            default: return .string(rng.pick(strings))
            }
        case .bool:
            return .bool(rng.percent(50))
        case .date:
            if rng.percent(25) { return .date(Date(timeIntervalSince1970: Double(rng.inRange(-2_000_000_000...2_100_000_000)))) }
            return .date(rng.percent(70) ? rng.pick(dates) : rng.pick(QDPools.dates))
        }
    }

    /// A string of the data of `field` (or any string of the data).
    mutating func dataString(_ field: QDField?) -> String {
        if let field, let values = fieldValues[field], !values.isEmpty, rng.percent(70),
            case .string(let s) = rng.pick(values)
        {
            return s
        }
        return rng.percent(85) ? rng.pick(strings) : rng.pick(QDPools.strings)
    }

    /// A needle for `CONTAINS`, `BEGINSWITH` or `ENDSWITH`: a piece of a data string (cut at
    /// scalar boundaries), sometimes with its case changed, sometimes empty.
    mutating func needle(_ op: QDOp, _ field: QDField?) -> String {
        if rng.percent(4) { return "" }
        let scalars = Array(dataString(field).unicodeScalars)
        var start = 0
        var end = scalars.count
        if !scalars.isEmpty {
            switch op {
            case .begins: end = rng.inRange(0...min(scalars.count, 6))
            case .ends: start = scalars.count - rng.inRange(0...min(scalars.count, 6))
            default:
                start = rng.below(scalars.count)
                end = min(scalars.count, start + rng.inRange(1...4))
            }
        }
        if scalars.count > 400 && rng.percent(60) {
            // Long strings: pieces around the index key's cut.
            switch op {
            case .begins: end = min(scalars.count, rng.pick([470, 479, 480, 481, scalars.count]))
            case .ends: start = max(0, scalars.count - rng.pick([2, 20, 500]))
            default: break
            }
        }
        var piece = String(String.UnicodeScalarView(scalars[start..<end]))
        switch rng.below(10) {
        case 0: piece = piece.uppercased()
        case 1: piece = piece.lowercased()
        default: break
        }
        return piece
    }

    /// A `LIKE` pattern: a data string with some scalars replaced by `?` and some runs by `*`.
    mutating func pattern(_ field: QDField?) -> String {
        if rng.percent(5) { return rng.pick(["*", "?", "", "**", "?*", "*?*"]) }
        var result = String.UnicodeScalarView()
        var scalars = Array(dataString(field).unicodeScalars)
        if scalars.count > 12 { scalars = Array(scalars.prefix(6)) + ["*"] + Array(scalars.suffix(4)) }
        var i = 0
        while i < scalars.count {
            switch rng.below(100) {
            case 0..<15: result.append("?"); i += 1
            case 15..<25:
                result.append("*")
                i += rng.inRange(0...3)
            default: result.append(scalars[i]); i += 1
            }
        }
        if rng.percent(15) { result.insert("*", at: result.startIndex) }
        if rng.percent(15) { result.append("*") }
        var text = String(result)
        if rng.percent(15) { text = rng.percent(50) ? text.uppercased() : text.lowercased() }
        return text
    }

    // MARK: Comparisons

    /// The operators that apply to values of `type`.
    static func operators(_ type: QDType) -> [QDOp] {
        switch type {
        case .int, .double, .date: [.eq, .ne, .lt, .le, .gt, .ge, .between, .in, .eq, .ne]
        case .string: [.eq, .ne, .lt, .le, .gt, .ge, .between, .in, .contains, .begins, .ends, .like, .eq, .contains, .begins]
        case .bool: [.eq, .ne, .in, .eq]
        }
    }

    /// A random left side; inside a subquery, no nested subquery.
    mutating func left(inSubquery: Bool) -> QDLeft {
        let roll = rng.below(100)
        if roll < 48 { return .field(rng.pick(QDField.allCases)) }
        if roll < 70 {
            let quantifier: QDQuantifier = rng.percent(60) ? .any : (rng.percent(50) ? .all : .none)
            return .many(quantifier, rng.pick(Self.manyPaths))
        }
        if roll < 90 || inSubquery {
            let function = rng.pick([QDAggregateFunction.count, .count, .sum, .min, .max, .avg])
            switch function {
            case .count: return .aggregate(.count, QDMany(collection: rng.pick([.friends, .tags, .nums]), field: nil))
            case .sum, .avg:
                return .aggregate(function, rng.pick([QDMany(collection: .friends, field: .age), QDMany(collection: .friends, field: .score), QDMany(collection: .nums, field: nil)]))
            case .min, .max:
                return .aggregate(function, rng.pick([
                    QDMany(collection: .friends, field: .age), QDMany(collection: .friends, field: .score),
                    QDMany(collection: .friends, field: .born), QDMany(collection: .friends, field: .rank),
                    QDMany(collection: .nums, field: nil),
                ]))
            }
        }
        return .subquery(predicate(depth: 1, inSubquery: true))
    }

    /// The list paths comparisons quantify over.
    static let manyPaths: [QDMany] = [
        QDMany(collection: .friends, field: .age), QDMany(collection: .friends, field: .name),
        QDMany(collection: .friends, field: .score), QDMany(collection: .friends, field: .flag),
        QDMany(collection: .friends, field: .born), QDMany(collection: .tags, field: nil), QDMany(collection: .tags, field: nil),
        QDMany(collection: .nums, field: nil), QDMany(collection: .nums, field: nil),
    ]

    /// The property whose data values suit constants compared with `left`.
    static func sourceField(_ left: QDLeft) -> QDField? {
        switch left {
        case .field(let field): field
        case .many(_, let many), .aggregate(_, let many): many.field
        case .subquery: nil
        }
    }

    /// A random comparison with `left`.
    mutating func comparison(_ left: QDLeft) -> QDComparison {
        let type = left.type
        let field = Self.sourceField(left)
        let op = rng.pick(Self.operators(type))
        var c = QDComparison(left: left, op: op, values: [])
        if op == .between, case .many(let quantifier, let many) = left, many.field == nil, quantifier != .all {
            // Realm refuses BETWEEN on a list of values without ALL.
            c.left = .many(.all, many)
        }
        let constant: (inout QDGenerator) -> QDValue
        switch left {
        case .aggregate(.count, _), .subquery:
            constant = { g in .int(g.rng.inRange(0...4)) }
        case .aggregate(.avg, _):
            constant = { g in g.rng.percent(50) ? .double(Double(g.rng.inRange(-40...160)) / 4) : g.value(.double, field: .score) }
        case .aggregate(_, let many) where many.collection == .nums:
            constant = { g in .int(g.rng.inRange(-20...60)) }
        default:
            constant = { g in g.value(type, field: field) }
        }
        if case .aggregate = left, op == .eq || op == .ne, rng.percent(15) {
            c.values = [.null]
            return c
        }
        switch op {
        case .eq, .ne:
            c.values = [rng.percent(8) ? .null : constant(&self)]
        case .lt, .le, .gt, .ge:
            c.values = [constant(&self)]
        case .between:
            var low = constant(&self)
            var high = constant(&self)
            if rng.percent(75), let order = QDOrder.compare(low, high), order > 0 { swap(&low, &high) }
            c.values = [low, high]
        case .in:
            c.values = (0..<rng.pick([0, 1, 2, 2, 3, 4])).map { _ in rng.percent(8) ? .null : constant(&self) }
        case .contains, .begins, .ends:
            c.values = [.string(needle(op, field))]
        case .like:
            c.values = [.string(pattern(field))]
        }
        if type == .string, [.eq, .ne, .in, .contains, .begins, .ends, .like].contains(op), rng.percent(35) {
            switch rng.below(3) {
            case 0: c.caseInsensitive = true
            case 1: c.diacriticInsensitive = true
            default: c.caseInsensitive = true; c.diacriticInsensitive = true
            }
        }
        return c
    }

    /// A random predicate: comparisons under `AND`, `OR` and `NOT`, nested at most 3 deep.
    mutating func predicate(depth: Int = 0, inSubquery: Bool = false) -> QDPredicate {
        let maxDepth = inSubquery ? 2 : 3
        if depth < maxDepth && rng.percent(depth == 0 ? 55 : 35) {
            switch rng.below(10) {
            case 0..<4: return .and((0..<rng.inRange(2...3)).map { _ in predicate(depth: depth + 1, inSubquery: inSubquery) })
            case 4..<8: return .or((0..<rng.inRange(2...3)).map { _ in predicate(depth: depth + 1, inSubquery: inSubquery) })
            default: return .not(predicate(depth: depth + 1, inSubquery: inSubquery))
            }
        }
        return leaf(inSubquery: inSubquery)
    }

    /// A comparison of two key paths of the same object: `age > rank`, `ANY friends.name ==[c]
    /// nickname`, `score <= owner.level`.
    mutating func columns() -> QDPredicate {
        let left: QDLeft = rng.percent(65)
            ? .field(rng.pick(QDField.allCases))
            : .many(rng.pick([QDQuantifier.any, .any, .all, .none]), rng.pick(Self.manyPaths))
        let candidates = QDField.allCases.filter { field in
            switch (left.type, field.type) {
            case (.int, .int), (.int, .double), (.double, .int), (.double, .double), (.string, .string), (.bool, .bool), (.date, .date): true
            default: false
            }
        }
        var ops: [QDOp] = [.eq, .ne]
        if left.type != .bool { ops += [.lt, .le, .gt, .ge] }
        if left.type == .string { ops += [.contains, .begins, .ends, .like, .eq] }
        var c = QDComparison(left: left, op: rng.pick(ops), values: [], right: rng.pick(candidates))
        if left.type == .string, c.op != .lt, c.op != .le, c.op != .gt, c.op != .ge, rng.percent(35) {
            c.caseInsensitive = rng.percent(60)
            c.diacriticInsensitive = !c.caseInsensitive || rng.percent(50)
        }
        return .comparison(c)
    }

    /// A comparison, a comparison of two key paths, a half-open range or (rarely) a constant
    /// predicate.
    mutating func leaf(inSubquery: Bool) -> QDPredicate {
        let roll = rng.below(100)
        if roll < 2 { return .constant(rng.percent(50)) }
        if roll < 7 { return columns() }
        if roll < 14 {
            // To-one paths only: on a collection the DSL's half-open range holds per element,
            // which no predicate string spells (covered by `QueryEdgeCaseTests`).
            let left: QDLeft = .field(rng.pick([.id, .name, .nickname, .age, .rank, .score, .born, .ownerLevel]))
            var low = value(left.type, field: Self.sourceField(left))
            var high = value(left.type, field: Self.sourceField(left))
            if let order = QDOrder.compare(low, high), order > 0 { swap(&low, &high) }
            return .range(left, low, high)
        }
        if roll < 19 { return .leftList(leftList()) }
        return .comparison(comparison(left(inSubquery: inSubquery)))
    }

    /// A list of constants on the left of a collection, with a quantifier on one side at least.
    mutating func leftList() -> QDLeftList {
        let many = rng.pick(Self.manyPaths)
        var ops: [QDOp] = [.in, .in, .eq, .ne]
        if many.type != .bool { ops += [.lt, .le, .gt, .ge] }
        let op = rng.pick(ops)
        let quantifiers: [QDQuantifier?] = [nil, .any, .all, .all, QDQuantifier.none, QDQuantifier.none]
        var listQuantifier = rng.pick(quantifiers)
        let quantifier = rng.pick(quantifiers)
        if listQuantifier == nil && quantifier == nil { listQuantifier = .all }
        // nil only where equality compares: an ordered comparison with nil holds for nil alone.
        let values = (0..<rng.pick([0, 1, 2, 2, 3])).map { _ in
            op == .in || op == .eq || op == .ne ? (rng.percent(8) ? .null : value(many.type, field: many.field)) : value(many.type, field: many.field)
        }
        return QDLeftList(listQuantifier: listQuantifier, values: values, op: op, quantifier: quantifier, many: many)
    }
}

// MARK: - Predicate strings

/// Spells a ``QDPredicate`` as a predicate string with arguments, varying the spelling: literals
/// or `%@` or `$n` arguments, `%K`, keyword case, operator synonyms, `value IN list`, mirrored
/// comparisons, optional parentheses.
struct QDRenderer {
    /// How the constants are given.
    enum Style {
        /// Literals only (a value without a literal form becomes a `%@` argument).
        case literals
        /// Literals and `%@` arguments (and `%K` key paths).
        case sequential
        /// Literals and `$0`, `$1`, … arguments.
        case indexed
    }

    /// The random source.
    var rng: SeededRandom
    /// The style of this predicate.
    var style: Style
    /// The arguments, in the order the predicate uses them.
    var arguments: [Any?] = []

    /// A renderer with a random style.
    init(seed: UInt64) {
        rng = SeededRandom(seed: seed)
        style = rng.pick([Style.literals, .sequential, .sequential, .indexed])
    }

    /// The predicate string and its arguments.
    static func render(_ predicate: QDPredicate, seed: UInt64) -> (String, [Any?]) {
        var renderer = QDRenderer(seed: seed)
        let text = renderer.render(predicate, variable: nil)
        return (text, renderer.arguments)
    }

    /// One of several spellings of a keyword.
    mutating func keyword(_ spellings: [String]) -> String { rng.pick(spellings) }

    // MARK: Values

    /// An argument placeholder for `value`, recording the argument.
    mutating func argument(_ value: Any?) -> String {
        if style == .indexed {
            arguments.append(value)
            return "$\(arguments.count - 1)"
        }
        if style == .literals { style = .sequential }
        arguments.append(value)
        return "%@"
    }

    /// `value` as a Swift argument of a type the predicate accepts for it.
    mutating func swiftValue(_ value: QDValue) -> Any? {
        switch value {
        case .null: return rng.percent(70) ? Optional<Int>.none as Any? : NSNull()
        case .int(let v):
            switch rng.below(6) {
            case 0: return Int64(v)
            case 1 where Int32(exactly: v) != nil: return Int32(v)
            default: return v
            }
        case .double(let v): return v
        case .string(let v): return rng.percent(15) ? Substring(v) : v
        case .bool(let v): return v
        case .date(let v): return v
        }
    }

    /// A constant, as a literal or an argument.
    mutating func render(_ value: QDValue) -> String {
        let literal = Self.literal(value, &rng)
        if let literal, style == .literals || rng.percent(50) { return literal }
        return argument(swiftValue(value))
    }

    /// The literal spelling of a value, or `nil` for values without one (infinite doubles).
    static func literal(_ value: QDValue, _ rng: inout SeededRandom) -> String? {
        switch value {
        case .null: return rng.pick(["nil", "NULL", "nil", "null"])
        case .int(let v):
            if rng.percent(15) { return (v < 0 ? "-" : "") + "0x" + String(v.magnitude, radix: 16, uppercase: rng.percent(50)) }
            return "\(v)"
        case .double(let v):
            guard v.isFinite else { return nil }
            return "\(v)"
        case .string(let v): return quoted(v, &rng)
        case .bool(let v): return v ? rng.pick(["true", "TRUE", "YES", "yes"]) : rng.pick(["false", "FALSE", "NO", "no"])
        case .date(let v): return dateLiteral(v, &rng)
        }
    }

    /// A string literal: single or double quotes, escapes for quotes, backslashes and control
    /// characters, other characters raw or as `\uXXXX`.
    ///
    /// The lexer reads the predicate as `Character`s, so a raw combining character right after
    /// the opening quote or an escape would merge with it; those are always escaped here (the
    /// focused test `stringLiteralStartingWithCombiningMark` covers the raw spelling).
    static func quoted(_ text: String, _ rng: inout SeededRandom) -> String {
        let quote: Character = rng.percent(70) ? "'" : "\""
        let escapeAll = rng.percent(20)
        var result = String(quote)
        var afterRaw = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"; afterRaw = false
            case "\n": result += "\\n"; afterRaw = false
            case "\t": result += "\\t"; afterRaw = false
            case "\r": result += "\\r"; afterRaw = false
            case "\0": result += "\\0"; afterRaw = false
            case _ where Character(scalar) == quote: result += "\\" + String(quote); afterRaw = false
            case _ where scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7F:
                result.unicodeScalars.append(scalar); afterRaw = true
            default:
                if escapeAll || !afterRaw || scalar.value < 0x20 || scalar.value == 0x7F {
                    result += unicodeEscape(scalar)
                    afterRaw = false
                } else {
                    result.unicodeScalars.append(scalar)
                    afterRaw = true
                }
            }
        }
        result.append(quote)
        return result
    }

    /// `\uXXXX`, with a surrogate pair for scalars beyond the BMP.
    static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        /// One `\uXXXX` escape.
        func hex(_ v: UInt32) -> String {
            let digits = String(v, radix: 16, uppercase: true)
            return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
        }
        if scalar.value < 0x10000 { return hex(scalar.value) }
        let v = scalar.value - 0x10000
        return hex(0xD800 + (v >> 10)) + hex(0xDC00 + (v & 0x3FF))
    }

    /// A date literal: `T<seconds>:<nanoseconds>` or `[T]YYYY-MM-DD@HH:MM:SS[:nanoseconds]`, UTC.
    static func dateLiteral(_ date: Date, _ rng: inout SeededRandom) -> String? {
        let interval = date.timeIntervalSince1970
        let seconds = interval.rounded(.down)
        let nanoseconds = Int(((interval - seconds) * 1_000_000_000).rounded())
        guard abs(seconds) < 1e11, nanoseconds < 1_000_000_000,
            Date(timeIntervalSince1970: seconds + Double(nanoseconds) / 1_000_000_000) == date
        else { return nil }
        let whole = Int(seconds)
        // Realm's form: seconds and nanoseconds share their sign (-1.25 s is T-1:-250000000).
        let epoch = whole < 0 && nanoseconds > 0 ? "T\(whole + 1):-\(1_000_000_000 - nanoseconds)" : "T\(whole):\(nanoseconds)"
        if rng.percent(40) { return epoch }
        var days = whole / 86_400
        var rest = whole % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let (year, month, day) = civil(days)
        guard (1000...9999).contains(year) else { return epoch }
        /// Two digits.
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var text = "\(year)-\(two(month))-\(two(day))@\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))"
        if nanoseconds != 0 { text += ":\(nanoseconds)" }
        return (rng.percent(50) ? "T" : "") + text
    }

    /// The proleptic Gregorian date of a day number since 1970-01-01.
    static func civil(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The values of `IN` or `BETWEEN`: a literal list, or one array argument.
    mutating func renderList(_ values: [QDValue]) -> String {
        if style != .literals && rng.percent(35) { return argument(values.map { swiftValue($0) }) }
        return "{" + values.map { render($0) }.joined(separator: rng.pick([", ", ",", " , "])) + "}"
    }

    // MARK: Key paths and comparisons

    /// A key path, from the subquery's variable if there is one, sometimes as `%K`.
    mutating func keyPath(_ path: String, _ variable: String?) -> String {
        if let variable { return "$\(variable).\(path)" }
        if style == .sequential && rng.percent(12) {
            arguments.append(path)
            return "%K"
        }
        return path
    }

    /// The operator's spelling.
    mutating func op(_ op: QDOp) -> String {
        switch op {
        case .eq: keyword(["==", "=", "=="])
        case .ne: keyword(["!=", "<>", "!="])
        case .lt: "<"
        case .le: keyword(["<=", "=<", "<="])
        case .gt: ">"
        case .ge: keyword([">=", "=>", ">="])
        case .between: keyword(["BETWEEN", "between"])
        case .in: keyword(["IN", "in"])
        case .contains: keyword(["CONTAINS", "contains"])
        case .begins: keyword(["BEGINSWITH", "beginswith", "BeginsWith"])
        case .ends: keyword(["ENDSWITH", "endswith"])
        case .like: keyword(["LIKE", "like"])
        }
    }

    /// `[c]`, `[d]` or `[cd]` (or nothing).
    mutating func options(_ c: QDComparison) -> String {
        switch (c.caseInsensitive, c.diacriticInsensitive) {
        case (false, false): ""
        case (true, false): keyword(["[c]", "[C]"])
        case (false, true): "[d]"
        case (true, true): keyword(["[cd]", "[dc]"])
        }
    }

    /// The left side of a comparison.
    mutating func left(_ left: QDLeft, _ variable: String?) -> String {
        switch left {
        case .field(let field):
            return keyPath(field.path, variable)
        case .many(let quantifier, let many):
            let prefix = switch quantifier {
            case .any: keyword(["", "", "ANY ", "any ", "SOME "])
            case .all: keyword(["ALL ", "all "])
            case .none: keyword(["NONE ", "none "])
            }
            return prefix + keyPath(many.path, variable)
        case .aggregate(let function, let many):
            let base = keyPath(many.collection.path, variable)
            let name = function == .count ? keyword(["@count", "@count", "@size", "@COUNT"]) : function.keyword
            return "\(base).\(name)" + (many.field.map { ".\($0.path)" } ?? "")
        case .subquery(let inner):
            let name = rng.pick(["f", "x", "friend"])
            let collection = keyPath("friends", variable)
            return "SUBQUERY(\(collection), $\(name), \(render(inner, variable: name))).@count"
        }
    }

    /// A comparison.
    mutating func comparison(_ c: QDComparison, _ variable: String?) -> String {
        // `value IN list` for ANY list == value.
        if case .many(.any, let many) = c.left, c.op == .eq, c.right == nil, rng.percent(30) {
            let value = render(c.values[0])
            return "\(value) \(keyword(["IN", "in"]))\(options(c)) \(keyPath(many.path, variable))"
        }
        let mirrors: [QDOp: String] = [.eq: "==", .ne: "!=", .lt: ">", .le: ">=", .gt: "<", .ge: "<="]
        if case .field = c.left, c.right == nil, let mirrored = mirrors[c.op], !c.caseInsensitive, !c.diacriticInsensitive, rng.percent(10) {
            let value = render(c.values[0])
            return "\(value) \(mirrored) \(left(c.left, variable))"
        }
        let lhs = left(c.left, variable)
        let spelled = op(c.op)
        if let right = c.right {
            return "\(lhs) \(spelled)\(options(c)) \(keyPath(right.path, variable))"
        }
        let rhs = c.op == .in || c.op == .between ? renderList(c.values) : render(c.values[0])
        return "\(lhs) \(spelled)\(options(c)) \(rhs)"
    }

    /// `ANY`, `ALL` or `NONE` and a space, in one of their spellings; nothing for `nil`.
    mutating func quantifier(_ quantifier: QDQuantifier?) -> String {
        guard let quantifier else { return "" }
        return switch quantifier {
        case .any: keyword(["ANY ", "any ", "SOME "])
        case .all: keyword(["ALL ", "all "])
        case .none: keyword(["NONE ", "none "])
        }
    }

    /// A list on the left of a collection (the list first: arguments are taken in text order).
    mutating func leftList(_ list: QDLeftList, _ variable: String?) -> String {
        let values = quantifier(list.listQuantifier) + renderList(list.values)
        let spelled = op(list.op)
        return "\(values) \(spelled) \(quantifier(list.quantifier))\(keyPath(list.many.path, variable))"
    }

    /// The whole predicate (inside a subquery, key paths start with `$variable`).
    mutating func render(_ predicate: QDPredicate, variable: String?) -> String {
        switch predicate {
        case .constant(let value):
            return value ? keyword(["TRUEPREDICATE", "truepredicate"]) : keyword(["FALSEPREDICATE", "FalsePredicate"])
        case .comparison(let c):
            return comparison(c, variable)
        case .leftList(let list):
            return leftList(list, variable)
        case .range(let left, let low, let high):
            let ge = QDComparison(left: left, op: .ge, values: [low])
            let lt = QDComparison(left: left, op: .lt, values: [high])
            return "(\(comparison(ge, variable)) \(keyword(["AND", "&&"])) \(comparison(lt, variable)))"
        case .and(let operands):
            let parts = operands.map { operand -> String in
                let text = render(operand, variable: variable)
                switch operand {
                case .or: return "(\(text))"
                case .and: return rng.percent(70) ? "(\(text))" : text
                default: return rng.percent(15) ? "(\(text))" : text
                }
            }
            return parts.joined(separator: " \(keyword(["AND", "and", "&&", "AND"])) ")
        case .or(let operands):
            let parts = operands.map { operand -> String in
                let text = render(operand, variable: variable)
                switch operand {
                case .and, .or: return rng.percent(60) ? "(\(text))" : text
                default: return rng.percent(15) ? "(\(text))" : text
                }
            }
            return parts.joined(separator: " \(keyword(["OR", "or", "||", "OR"])) ")
        case .not(let operand):
            let text = render(operand, variable: variable)
            let not = keyword(["NOT ", "not ", "!", "NOT "])
            switch operand {
            case .comparison, .constant, .not: return not + (rng.percent(50) ? "(\(text))" : text)
            default: return not + "(\(text))"
            }
        }
    }
}

// MARK: - DSL

/// Builds the `where { }` DSL expression of a ``QDPredicate`` on ``QItem``, or `nil` where the
/// DSL cannot express it (`ALL`, `NONE`, options on `==`/`IN`, `[d]` on `LIKE`, `nil` where the
/// Swift type is not optional, constants of another type than the property's, key paths on the
/// right, `TRUEPREDICATE`).
enum QDDSL {
    /// The DSL expression of `predicate`, or `nil`. With `sugar`, `Bool` comparisons are
    /// sometimes spelled `$0.flag` and `!$0.flag` (the latter is a `NOT`, which the planner
    /// does not serve from an index).
    static func build(_ predicate: QDPredicate, _ q: Query<QItem>, _ rng: inout SeededRandom, sugar: Bool = true) -> Query<Bool>? {
        switch predicate {
        case .constant:
            return nil
        case .and(let operands):
            var parts: [Query<Bool>] = []
            for operand in operands {
                guard let part = build(operand, q, &rng, sugar: sugar) else { return nil }
                parts.append(part)
            }
            return parts.dropFirst().reduce(parts[0]) { $0 && $1 }
        case .or(let operands):
            var parts: [Query<Bool>] = []
            for operand in operands {
                guard let part = build(operand, q, &rng, sugar: sugar) else { return nil }
                parts.append(part)
            }
            return parts.dropFirst().reduce(parts[0]) { $0 || $1 }
        case .not(let operand):
            return build(operand, q, &rng, sugar: sugar).map { !$0 }
        case .range(let left, let low, let high):
            return range(left, low, high, q)
        case .leftList:
            return nil
        case .comparison(let c):
            return comparison(c, q, &rng, sugar: sugar)
        }
    }

    /// A comparison.
    static func comparison(_ c: QDComparison, _ q: Query<QItem>, _ rng: inout SeededRandom, sugar: Bool) -> Query<Bool>? {
        guard c.right == nil else { return nil }
        switch c.left {
        case .field(let field):
            switch field {
            case .id: return ordered(q.id, c, int, int)
            case .name: return text(q.name, c, string)
            case .nickname: return text(q.nickname, c, optionalString)
            case .age: return ordered(q.age, c, optionalInt, int)
            case .rank: return ordered(q.rank, c, int, int)
            case .score: return ordered(q.score, c, double, double)
            case .flag: return bool(q.flag, c, negatable: sugar, &rng)
            case .born: return ordered(q.born, c, optionalDate, date)
            case .ownerName: return text(q.owner.name, c, string)
            case .ownerLevel: return ordered(q.owner.level, c, int, int)
            }
        case .many(.any, let many):
            switch (many.collection, many.field) {
            case (.tags, _): return text(q.tags.elements, c, string)
            case (.nums, _): return ordered(q.nums.elements, c, optionalInt, int)
            case (.friends, .age?): return ordered(q.friends.age, c, optionalInt, int)
            case (.friends, .name?): return text(q.friends.name, c, string)
            case (.friends, .score?): return ordered(q.friends.score, c, double, double)
            case (.friends, .flag?): return bool(q.friends.flag, c, negatable: false, &rng)
            case (.friends, .born?): return ordered(q.friends.born, c, optionalDate, date)
            default: return nil
            }
        case .many:
            return nil
        case .aggregate(let function, let many):
            return aggregate(function, many, c, q)
        case .subquery(let inner):
            var expressible = true
            let subquery = q.friends.where { element in
                if let built = build(inner, element, &rng, sugar: sugar) { return built }
                expressible = false
                return element.flag
            }
            return expressible ? ordered(subquery.count, c, int, int) : nil
        }
    }

    /// An aggregate compared with a constant.
    static func aggregate(_ function: QDAggregateFunction, _ many: QDMany, _ c: QDComparison, _ q: Query<QItem>) -> Query<Bool>? {
        switch (function, many.collection, many.field) {
        case (.count, .friends, _): return ordered(q.friends.count, c, int, int)
        case (.count, .tags, _): return ordered(q.tags.count, c, int, int)
        case (.count, .nums, _): return ordered(q.nums.count, c, int, int)
        case (.sum, .friends, .age?): return ordered(q.friends.sum(\.age), c, optionalInt, int)
        case (.sum, .friends, .score?): return ordered(q.friends.sum(\.score), c, double, double)
        case (.sum, .nums, _): return ordered(q.nums.sum, c, optionalInt, int)
        case (.avg, .friends, .age?): return ordered(q.friends.avg(\.age), c, optionalDouble, double)
        case (.avg, .friends, .score?): return ordered(q.friends.avg(\.score), c, optionalDouble, double)
        case (.avg, .nums, _): return ordered(q.nums.avg, c, optionalDouble, double)
        case (.min, .friends, .age?): return ordered(q.friends.min(\.age), c, optionalInt, int)
        case (.max, .friends, .age?): return ordered(q.friends.max(\.age), c, optionalInt, int)
        case (.min, .friends, .score?): return ordered(q.friends.min(\.score), c, double, double)
        case (.max, .friends, .score?): return ordered(q.friends.max(\.score), c, double, double)
        case (.min, .friends, .born?): return ordered(q.friends.min(\.born), c, optionalDate, date)
        case (.max, .friends, .born?): return ordered(q.friends.max(\.born), c, optionalDate, date)
        case (.min, .friends, .rank?): return ordered(q.friends.min(\.rank), c, int, int)
        case (.max, .friends, .rank?): return ordered(q.friends.max(\.rank), c, int, int)
        case (.min, .nums, _): return ordered(q.nums.min, c, optionalInt, int)
        case (.max, .nums, _): return ordered(q.nums.max, c, optionalInt, int)
        default: return nil
        }
    }

    /// `left.contains(low..<high)`.
    static func range(_ left: QDLeft, _ low: QDValue, _ high: QDValue, _ q: Query<QItem>) -> Query<Bool>? {
        /// `query.contains(low..<high)` if the bounds convert and are in order.
        func make<T: _QueryComparable>(_ query: Query<T>, _ base: (QDValue) -> T._QueryBase?) -> Query<Bool>? {
            guard let l = base(low), let h = base(high), l <= h else { return nil }
            return query.contains(l..<h)
        }
        switch left {
        case .field(.id): return make(q.id, int)
        case .field(.name): return make(q.name, string)
        case .field(.nickname): return make(q.nickname, string)
        case .field(.age): return make(q.age, int)
        case .field(.rank): return make(q.rank, int)
        case .field(.score): return make(q.score, double)
        case .field(.born): return make(q.born, date)
        case .field(.ownerLevel): return make(q.owner.level, int)
        case .many(.any, let many) where many.collection == .friends && many.field == .age: return make(q.friends.age, int)
        case .many(.any, let many) where many.collection == .nums: return make(q.nums.elements, int)
        case .many(.any, let many) where many.collection == .tags: return make(q.tags.elements, string)
        default: return nil
        }
    }

    // MARK: Typed comparisons

    /// `==`, `!=`, `<`, `<=`, `>`, `>=`, `BETWEEN` and `IN` on a property of a comparable type.
    static func ordered<T: PersistableType & _QueryComparable>(
        _ q: Query<T>, _ c: QDComparison, _ full: (QDValue) -> T?, _ base: (QDValue) -> T._QueryBase?
    ) -> Query<Bool>? {
        guard !c.caseInsensitive, !c.diacriticInsensitive else { return nil }
        switch c.op {
        case .eq: return full(c.values[0]).map { q == $0 }
        case .ne: return full(c.values[0]).map { q != $0 }
        case .lt: return base(c.values[0]).map { q < $0 }
        case .le: return base(c.values[0]).map { q <= $0 }
        case .gt: return base(c.values[0]).map { q > $0 }
        case .ge: return base(c.values[0]).map { q >= $0 }
        case .between:
            guard let low = base(c.values[0]), let high = base(c.values[1]), low <= high else { return nil }
            return q.contains(low...high)
        case .in:
            let values = c.values.map(full)
            guard values.allSatisfy({ $0 != nil }) else { return nil }
            return q.in(values.compactMap { $0 })
        default:
            return nil
        }
    }

    /// Comparisons on a string property, with the string operators and their options.
    static func text<T: PersistableType & _QueryComparable>(
        _ q: Query<T>, _ c: QDComparison, _ full: (QDValue) -> T?
    ) -> Query<Bool>? where T._QueryBase == String {
        var options: StringOptions = []
        if c.caseInsensitive { options.insert(.caseInsensitive) }
        if c.diacriticInsensitive { options.insert(.diacriticInsensitive) }
        guard case .string(let s) = c.values.first ?? .null else { return ordered(q, c, full, string) }
        switch c.op {
        case .contains: return options.isEmpty ? q.contains(s) : q.contains(s, options: options)
        case .begins: return options.isEmpty ? q.starts(with: s) : q.starts(with: s, options: options)
        case .ends: return q.ends(with: s, options: options)
        case .like: return c.diacriticInsensitive ? nil : q.like(s, caseInsensitive: c.caseInsensitive)
        default: return ordered(q, c, full, string)
        }
    }

    /// Comparisons on a `Bool` property; `negatable` allows `!q` for `== false` (not for
    /// to-many paths, where `NOT ANY` differs from `ANY … == false`).
    static func bool(_ q: Query<Bool>, _ c: QDComparison, negatable: Bool, _ rng: inout SeededRandom) -> Query<Bool>? {
        switch c.op {
        case .eq:
            guard let b = boolValue(c.values[0]) else { return nil }
            if rng.percent(50) {
                if b { return q }
                if negatable { return !q }
            }
            return q == b
        case .ne:
            return boolValue(c.values[0]).map { q != $0 }
        case .in:
            let values = c.values.map(boolValue)
            guard values.allSatisfy({ $0 != nil }) else { return nil }
            return q.in(values.compactMap { $0 })
        default:
            return nil
        }
    }

    // MARK: Constants

    /// An `Int` constant.
    static func int(_ v: QDValue) -> Int? { if case .int(let i) = v { i } else { nil } }
    /// An `Int?` constant (`nil` included).
    static func optionalInt(_ v: QDValue) -> Int?? {
        switch v {
        case .null: .some(nil)
        case .int(let i): .some(i)
        default: nil
        }
    }
    /// A `Double` constant (integers that convert exactly included).
    static func double(_ v: QDValue) -> Double? {
        switch v {
        case .double(let d): d
        case .int(let i): Double(exactly: i)
        default: nil
        }
    }
    /// A `Double?` constant.
    static func optionalDouble(_ v: QDValue) -> Double?? { v.isNull ? .some(nil) : double(v).map { .some($0) } }
    /// A `String` constant.
    static func string(_ v: QDValue) -> String? { if case .string(let s) = v { s } else { nil } }
    /// A `String?` constant.
    static func optionalString(_ v: QDValue) -> String?? { v.isNull ? .some(nil) : string(v).map { .some($0) } }
    /// A `Bool` constant.
    static func boolValue(_ v: QDValue) -> Bool? { if case .bool(let b) = v { b } else { nil } }
    /// A `Date` constant.
    static func date(_ v: QDValue) -> Date? { if case .date(let d) = v { d } else { nil } }
    /// A `Date?` constant.
    static func optionalDate(_ v: QDValue) -> Date?? { v.isNull ? .some(nil) : date(v).map { .some($0) } }
}
