import Foundation

/// Binds a ``QueryPredicate`` to a class: resolves key paths against the stored schema, converts
/// constants to the types they are compared with, and rejects what cannot be evaluated with an
/// ``ObjDBError/Code/invalidQuery`` error that names the property and the problem.
struct PredicateBinder {
    /// The class the predicate is about.
    let rootClass: String
    /// The database whose classes the predicate is bound against.
    let database: Database
    /// The model classes the file does not store yet, for checking a query when it is built;
    /// `nil` to bind against the file's classes alone.
    var models: ModelClasses?
    /// Inside a subquery: its variable.
    var variable: String?
    /// The runtime information of `rootClass`, when the caller has it at hand (saves looking it
    /// up by name).
    var rootInfo: ClassInfo?

    /// The stored description of a class, by name: the file's, else the model's.
    func lookup(_ name: String) -> StoredClass? {
        if let info = database.classInfo(named: name) { return info.stored }
        return models?.storedClass(named: name)
    }

    /// The runtime information of a class of the file, by name.
    func infoLookup(_ name: String) -> ClassInfo? { database.classInfo(named: name) }

    /// Binds a whole predicate.
    func bind(_ predicate: QueryPredicate) throws -> BoundPredicate {
        switch predicate {
        case .constant(let value): return .constant(value)
        case .and(let operands): return .and(try operands.map(bind))
        case .or(let operands): return .or(try operands.map(bind))
        case .not(let operand): return .not(try bind(operand))
        case .comparison(let comparison):
            if let typeOf = try bindTypeOf(comparison) { return typeOf }
            if let nullOnLeft = try bindNullOnLeft(comparison) { return nullOnLeft }
            return .comparison(try bind(comparison))
        }
    }

    /// `NULL CONTAINS name`, `NULL LIKE data` and the other string operators with nil on their
    /// left, as Realm evaluates them: nil contains, begins and ends with nothing, and is LIKE only
    /// nil. `nil` when `c` is not of that form.
    private func bindNullOnLeft(_ c: QueryComparison) throws -> BoundPredicate? {
        // The operator first: it is the cheap test, and most comparisons stop at it.
        switch c.op {
        case .contains, .beginsWith, .endsWith, .like: break
        default: return nil
        }
        guard case .value(.null) = c.left, case .keyPath = c.right else { return nil }
        // Checked as written the other way round: the key path must hold strings or data.
        var checked = c
        checked.left = c.right
        checked.right = c.left
        _ = try bind(checked)
        guard c.op == .like else { return .constant(false) }
        var isNil = checked
        isNil.op = .equal
        isNil.options = []
        return .comparison(try bind(isNil))
    }

    // MARK: Comparisons

    private func bind(_ c: QueryComparison) throws -> BoundComparison {
        if c.op == .text { return try bindText(c) }
        // Matched without binding payloads, which would copy both sides.
        if c.left.isConstant {
            guard !c.right.isConstant else {
                throw error(c.position, "a comparison needs a key path, an aggregate or a SUBQUERY on its left")
            }
            guard let mirrored = c.op.mirrored else {
                throw error(c.position, "put the key path on the left of \(c.op.rawValue)")
            }
            var swapped = c
            swapped.left = c.right
            swapped.right = c.left
            swapped.op = mirrored
            return try bind(swapped)
        }
        let (left, type, toMany, leafClass, leafOptional) = try bindLeft(c)
        var op = c.op
        if op == .in, !c.right.isList {
            // `value IN keyPath`, which the parser writes with the key path on the left: the key
            // path must reach several values, as in Realm.
            guard toMany else {
                throw error(
                    c.position,
                    "the key path after IN must reach several values (a list, set, map or linking objects), and \(describe(c.left)) reaches one; use == instead")
            }
            op = .equal
        }
        if c.listFirst, op == .in, !toMany {
            // `ANY {1, 2} IN owner.age`: as `value IN keyPath`, the key path must reach several values.
            throw error(
                c.position,
                "the key path after IN must reach several values (a list, set, map or linking objects), and \(describe(c.left)) reaches one; use == instead")
        }
        if c.quantifier != .any && !toMany {
            throw error(c.position, "\(c.quantifier.rawValue) needs a to-many key path (a list, set, map or linking objects)")
        }
        try checkBetween(c, left)
        try check(op, type: type, options: c.options, c.position, c.left)
        if toMany, type == .object, case .value(.null) = c.right {
            // Realm refuses it too: a collection of objects is never nil.
            throw error(c.position, "\(describe(c.left)) reaches several objects and cannot be compared with nil; compare its @count with 0")
        }
        let right = try bindRight(c, op: op, type: type, leafClass: leafClass, leafOptional: leafOptional, leftIsToMany: toMany)
        // A data, UUID or ObjectId path compared with a mixed one reads as mixed values do.
        var boundLeft = left
        if case .path(let path) = right, path.leafType == .mixed, !path.measuresType, case .path(let leftPath) = left {
            boundLeft = .path(leftPath.asMixedCounterpart())
        }
        let order = QuantifierOrder(c, leftIsToMany: toMany)
        return BoundComparison(
            left: boundLeft, op: op, right: right, options: c.options, quantifier: order.quantifier, type: type,
            listQuantifier: order.listQuantifier, listFirst: order.listFirst)
    }

    /// Realm's rule for BETWEEN on a collection of values (`scores BETWEEN {5, 9}`) in a predicate
    /// string: only ALL is allowed (every element in the range); ANY (also when not written) and
    /// NONE are refused. Through collections of objects, and in the DSL, BETWEEN tests each value.
    private func checkBetween(_ c: QueryComparison, _ left: BoundOperand) throws {
        guard c.op == .between, c.stringSyntax, c.quantifier != .all, case .path(let path) = left, path.endsInValueCollection else { return }
        let written = c.quantifier == .none ? "NONE" : "ANY (written or not)"
        throw error(
            c.position,
            "BETWEEN on '\(path.text)', a collection of values, needs ALL, as in Realm: ALL \(path.text) BETWEEN {low, high} holds when "
                + "every element is in the range; \(written) is refused")
    }

    /// The left operand, the type of its values, whether it is to-many, the class of object
    /// values and whether values may be nil.
    func bindLeft(_ c: QueryComparison) throws -> (BoundOperand, PropertyType, Bool, String?, Bool) {
        switch c.left {
        case .keyPath(let keyPath):
            let path = try bindPath(keyPath)
            return (.path(path), path.leafType, path.isToMany, path.leafClass, path.leafOptional)
        case .aggregate(let keyPath, let aggregate, let property):
            let (operand, type) = try bindAggregate(keyPath, aggregate, property, c.position)
            return (operand, type, false, nil, aggregate != .count)
        case .subqueryCount(let collection, let variable, let predicate):
            return (try bindSubquery(collection, variable, predicate, c.position), .int, false, nil, false)
        case .arithmetic:
            return (try bindArithmetic(c.left, c.position), .double, false, nil, true)
        case .value, .list:
            throw error(c.position, "a comparison needs a key path on its left")
        }
    }

    /// An arithmetic operand: each side a number constant, a to-one numeric key path, an
    /// aggregate or a SUBQUERY count, or arithmetic again. Computed in `Double` (Realm's
    /// division by zero is infinite).
    private func bindArithmetic(_ expression: QueryExpression, _ position: Int?) throws -> BoundOperand {
        switch expression {
        case .arithmetic(let op, let left, let right):
            return .arithmetic(op, try bindArithmetic(left, position), try bindArithmetic(right, position))
        case .value(let value):
            guard let number = value.doubleValue else { throw error(position, "arithmetic needs numbers, not \(value)") }
            return .constant(.double(number))
        case .keyPath(let keyPath):
            let path = try bindPath(keyPath)
            // A mixed value counts when it holds a number; otherwise the arithmetic is nil, as
            // realm-core's `age + tag` is for a tag that holds a string.
            guard !path.isToMany, path.leafType.isNumeric || path.leafType == .mixed else {
                throw error(keyPath.position ?? position, "arithmetic needs a number property, and '\(keyPath)' is \(path.isToMany ? "to-many" : "\(path.leafType)")")
            }
            return .path(path)
        case .aggregate(let keyPath, let aggregate, let property):
            return try bindAggregate(keyPath, aggregate, property, position).0
        case .subqueryCount(let collection, let variable, let predicate):
            return try bindSubquery(collection, variable, predicate, position)
        case .list:
            throw error(position, "arithmetic needs numbers, not a list")
        }
    }

    /// An aggregate operand and the type of its value: `@count` of a collection (elements), of
    /// a string or data (UTF-8 bytes, as Realm's `@size`) or of a to-one link (0 or 1);
    /// `@sum`, `@avg` of numbers; `@min`, `@max` of numbers or dates.
    private func bindAggregate(
        _ keyPath: QueryKeyPath, _ aggregate: QueryAggregate, _ property: String?, _ position: Int?
    ) throws -> (BoundOperand, PropertyType) {
        var full = keyPath
        if let property { full.components.append(property) }
        let path = try bindPath(full)
        let at = keyPath.position ?? position
        try checkSizeTarget(path, aggregate, at)
        // `@size` of one value: a string's or data's length, also in a mixed value (0 for its
        // other values), or whether a link is set.
        guard path.isToMany || (aggregate == .count && [.string, .data, .object, .mixed].contains(path.leafType)) else {
            throw error(at, "\(aggregate.rawValue) needs a list, set, map or linking objects\(aggregate == .count ? ", a string or data" : ""), and '\(keyPath)' is not one")
        }
        switch aggregate {
        case .count:
            if property != nil { throw error(at, "@count takes no property") }
            return (.aggregate(path, .count), .int)
        case .sum, .average:
            // A collection of mixed values sums its numbers as decimals (``MixedAggregate``).
            if path.leafType == .mixed { return (.aggregate(path, aggregate), .decimal) }
            guard path.leafType.isNumeric else {
                throw error(at, "\(aggregate.rawValue) needs numbers, and '\(path.text)' holds \(path.leafType)")
            }
            let type: PropertyType = aggregate == .average ? .double : path.leafType
            return (.aggregate(path, aggregate), type == .float ? .double : type)
        case .min, .max:
            // Of mixed values, the least or greatest in Realm's order of types.
            guard path.leafType.isNumeric || path.leafType == .date || path.leafType == .mixed else {
                throw error(at, "\(aggregate.rawValue) needs numbers or dates, and '\(path.text)' holds \(path.leafType)")
            }
            return (.aggregate(path, aggregate), path.leafType == .float ? .double : path.leafType)
        }
    }

    /// `SUBQUERY(collection, $variable, predicate).@count`.
    private func bindSubquery(_ collection: QueryKeyPath, _ variable: String, _ predicate: QueryPredicate, _ position: Int?) throws -> BoundOperand {
        let path = try bindPath(collection)
        guard path.isToMany, path.leafType == .object, let element = path.leafClass else {
            throw error(collection.position ?? position, "SUBQUERY needs a collection of objects, and '\(collection)' is not one")
        }
        let inner = PredicateBinder(rootClass: element, database: database, models: models, variable: variable)
        return .subqueryCount(path, try inner.bind(predicate))
    }

    private func bindRight(
        _ c: QueryComparison, op: QueryOperator, type: PropertyType, leafClass: String?, leafOptional: Bool, leftIsToMany: Bool
    ) throws -> BoundOperand {
        switch c.right {
        case .keyPath(let keyPath):
            let path = try bindPath(keyPath)
            // A to-many right side holds when some of its values does (Realm's ANY); two to-many
            // sides are refused, as Realm refuses them.
            guard !path.isToMany || !leftIsToMany else {
                throw error(keyPath.position ?? c.position, "both sides are to-many ('\(keyPath)' on the right); compare with ANY/ALL on one side and a value on the other")
            }
            guard compatible(type, path.leafType), type != .object || leafClass == path.leafClass else {
                throw error(keyPath.position ?? c.position, "\(describe(c.left)) (\(type)) cannot be compared with '\(keyPath)' (\(path.leafType))")
            }
            return .path(type == .mixed ? path.asMixedCounterpart() : path)
        case .value(let value):
            if op == .between || op == .betweenHalfOpen || op == .in {
                throw error(c.position, "\(op.rawValue) needs a list of values on its right, like {1, 2}")
            }
            return .constant(
                try comparand(value, type: type, leafClass: leafClass, options: c.options, c.left, c.position, literalText: c.literalText))
        case .list(let values):
            if (op == .between || op == .betweenHalfOpen) && values.count != 2 {
                throw error(c.position, "BETWEEN needs exactly two values, {low, high}, not \(values.count)")
            }
            // In a list compared for equality, a value of another type equals nothing (Realm's
            // mixed lists: `age IN {1, 'one'}`); elsewhere it is an error.
            let equality = op == .in || op == .equal
            let numeric = [.int, .float, .double, .decimal].contains(type)
            var comparands: [Comparand] = []
            comparands.reserveCapacity(values.count)
            for (i, value) in values.enumerated() {
                let literalText = c.listLiteralTexts?[i]
                // An integer against a number property is taken as it is (see `comparand`): the
                // elements of a long `IN` list of ids cost no call each.
                if numeric, literalText == nil || type != .decimal, case .int(let v) = value {
                    comparands.append(.int(v))
                } else if equality {
                    // `nil` (nothing appended) is the true answer here: a value of another type
                    // equals nothing.
                    if let converted = try? comparand(
                        value, type: type, leafClass: leafClass, options: c.options, c.left, c.position, literalText: literalText)
                    {
                        comparands.append(converted)
                    }
                } else {
                    comparands.append(
                        try comparand(value, type: type, leafClass: leafClass, options: c.options, c.left, c.position, literalText: literalText))
                }
            }
            return .list(comparands)
        case .aggregate(let keyPath, let aggregate, let property):
            if op == .between || op == .betweenHalfOpen || op == .in {
                throw error(c.position, "\(op.rawValue) needs a list of values on its right, like {1, 2}")
            }
            let (operand, aggregateType) = try bindAggregate(keyPath, aggregate, property, c.position)
            guard compatible(type, aggregateType) else {
                throw error(keyPath.position ?? c.position, "\(describe(c.left)) (\(type)) cannot be compared with \(describe(c.right)) (\(aggregateType))")
            }
            return operand
        case .subqueryCount(let collection, let variable, let predicate):
            guard type.isNumeric, op != .between, op != .betweenHalfOpen, op != .in else {
                throw error(c.position, "\(describe(c.left)) (\(type)) cannot be compared with a SUBQUERY count")
            }
            return try bindSubquery(collection, variable, predicate, c.position)
        case .arithmetic:
            guard type.isNumeric, op != .between, op != .betweenHalfOpen, op != .in else {
                throw error(c.position, "\(describe(c.left)) (\(type)) cannot be compared with arithmetic")
            }
            return try bindArithmetic(c.right, c.position)
        }
    }

    // MARK: Key paths

    /// Resolves a key path against the stored schema.
    func bindPath(_ keyPath: QueryKeyPath) throws -> BoundPath {
        if let variable, variable.isEmpty {
            // A subquery of the `where { }` DSL: its key paths start at the element.
            if let name = keyPath.variable { throw error(keyPath.position, "$\(name) is not defined here") }
        } else if let variable {
            guard keyPath.variable == variable else {
                throw error(keyPath.position, "inside SUBQUERY, key paths must start with $\(variable) (found '\(keyPath)')")
            }
        } else if let name = keyPath.variable {
            throw error(keyPath.position, "$\(name) is not defined here; variables exist only inside SUBQUERY")
        }
        guard !keyPath.components.isEmpty else {
            throw error(keyPath.position, "'\(keyPath)' names no property; compare $\(keyPath.variable ?? "x").property")
        }
        // One value property of a class of the file: bound before, or kept for next time.
        guard keyPath.variable == nil, keyPath.components.count == 1, let info = rootInfo ?? infoLookup(rootClass),
            let column = info.columnNames.firstIndex(of: keyPath.components[0])
        else { return try bindSteps(keyPath) }
        if let path = info.boundPath(column: column) { return path }
        let path = try bindSteps(keyPath)
        if path.steps.count == 1, path.steps[0].kind == .column(.value) { info.keep(path, column: column) }
        return path
    }

    /// ``bindPath(_:)`` for a key path that passed its checks, one step per component (three for
    /// `@links.Class.property`).
    private func bindSteps(_ keyPath: QueryKeyPath) throws -> BoundPath {
        var className = rootClass
        var steps: [BoundPath.Step] = []
        var toMany = false
        let components = keyPath.components
        var i = 0
        while i < components.count {
            let name = components[i]
            guard let stored = lookup(className) else {
                throw error(keyPath.position, "class '\(className)' is not part of the database")
            }
            if name == "@links" {
                if i == components.count - 1 {
                    // `@links.@count`: every link to the object, from any class.
                    steps.append(BoundPath.Step(className: className, column: -1, kind: .anyBacklinks, origins: linkOrigins(of: className)))
                    return BoundPath(steps: steps, leafType: .object, leafOptional: false, leafClass: nil, isToMany: true, keyPath: keyPath)
                }
                let (origin, property) = (components[i + 1], components[i + 2])
                guard let originClass = lookup(origin) else {
                    throw error(keyPath.position, "@links.\(origin).\(property): class '\(origin)' is not part of the database")
                }
                guard let originColumn = originClass.column(of: property), originClass.properties[originColumn].objectClass == className else {
                    throw error(keyPath.position, "@links.\(origin).\(property): '\(origin).\(property)' is not a link to '\(className)'")
                }
                steps.append(BoundPath.Step(
                    className: className, column: -1, kind: .backlinks(originClass: origin, originColumn: originColumn),
                    next: infoLookup(origin)))
                toMany = true
                i += 3
                if i == components.count {
                    return BoundPath(steps: steps, leafType: .object, leafOptional: false, leafClass: origin, isToMany: true, keyPath: keyPath)
                }
                className = origin
                continue
            }
            if let column = stored.column(of: name) {
                let property = stored.properties[column]
                let kind = ColumnKind(property)
                var step = BoundPath.Step(
                    className: className, column: column, kind: .column(kind), next: property.objectClass.flatMap(infoLookup))
                var valueType = property.type
                var optional = property.optional || kind == .link
                var stepIsToMany = kind != .value && kind != .link
                if kind == .map, i + 1 < components.count {
                    // `map.@keys`, `map.@values`, `map['key']`.
                    let part = components[i + 1]
                    if part == QueryKeyPath.mapKeys {
                        (step.mapPart, valueType, optional) = (.keys, .string, false)
                        i += 1
                    } else if part == QueryKeyPath.mapValues {
                        i += 1
                    } else if part.hasPrefix(QueryKeyPath.mapKeyPrefix) {
                        step.mapPart = .key(Array(part.dropFirst(QueryKeyPath.mapKeyPrefix.count).utf8))
                        (optional, stepIsToMany) = (true, false)
                        i += 1
                    }
                }
                if try bindSubscripts(&step, at: &i, components, valueType: valueType, stepIsToMany: stepIsToMany, keyPath) {
                    toMany = true
                }
                steps.append(step)
                if stepIsToMany { toMany = true }
                let last = i == components.count - 1
                let objectClass = valueType == .object ? property.objectClass : nil
                if last {
                    return BoundPath(
                        steps: steps, leafType: valueType, leafOptional: optional, leafClass: objectClass, isToMany: toMany, keyPath: keyPath)
                }
                if i == components.count - 2, components[i + 1] == QueryKeyPath.typeOf {
                    guard valueType == .mixed else {
                        throw error(keyPath.position, "@type applies to mixed values, and '\(className).\(name)' holds \(valueType)")
                    }
                    return BoundPath(
                        steps: steps, leafType: valueType, leafOptional: false, leafClass: nil, isToMany: toMany, keyPath: keyPath,
                        measuresType: true)
                }
                if i == components.count - 2, components[i + 1] == "length", [.string, .data, .mixed].contains(valueType) {
                    // Realm's `.length` of strings and data (strings have no properties of their
                    // own), also of those a mixed value holds (0 for its other values).
                    return BoundPath(
                        steps: steps, leafType: valueType, leafOptional: property.optional, leafClass: nil, isToMany: toMany,
                        keyPath: keyPath, measuresLength: true)
                }
                guard valueType == .object, let target = objectClass else {
                    throw error(keyPath.position, "'\(className).\(name)' is not a link, so '\(keyPath)' cannot go through it")
                }
                className = target
            } else if let computed = stored.computed?.first(where: { $0.name == name }), let origin = computed.objectClass,
                let originProperty = computed.origin, let originColumn = lookup(origin)?.column(of: originProperty)
            {
                let last = i == components.count - 1
                steps.append(BoundPath.Step(
                    className: className, column: -1, kind: .backlinks(originClass: origin, originColumn: originColumn),
                    next: infoLookup(origin)))
                toMany = true
                if last {
                    return BoundPath(steps: steps, leafType: .object, leafOptional: false, leafClass: origin, isToMany: true, keyPath: keyPath)
                }
                className = origin
            } else if name.hasPrefix("$") {
                throw error(
                    keyPath.position,
                    "class '\(className)' has no property '\(name)'; a variable such as \(name) is defined only inside "
                        + "SUBQUERY(collection, \(name), …)")
            } else {
                throw error(keyPath.position, "class '\(className)' has no property '\(name)'")
            }
            i += 1
        }
        throw error(keyPath.position, "'\(keyPath)' names no property")
    }

    /// Every link property of the file's classes that links to `className`, with its class.
    private func linkOrigins(of className: String) -> [(info: ClassInfo, column: Int)] {
        database.catalog.byName.values.sorted { $0.name < $1.name }.flatMap { info in
            info.linkColumns.filter { info.linkTargets[$0] == className }.map { (info: info, column: $0) }
        }
    }

    // MARK: Types

    /// Checks that `op` (with `options`) applies to values of `type`.
    private func check(_ op: QueryOperator, type: PropertyType, options: QueryStringOptions, _ position: Int?, _ left: QueryExpression) throws {
        func subject() -> String { describe(left) }
        if !options.isEmpty && type != .string && type != .data && type != .mixed {
            throw error(position, "[c] and [d] apply to strings and data, and \(subject()) is \(type)")
        }
        switch op {
        case .equal, .notEqual, .in:
            return
        case .less, .lessOrEqual, .greater, .greaterOrEqual, .between, .betweenHalfOpen:
            if type == .bool || type == .object || type == .data {
                throw error(position, "\(op.rawValue) does not apply to \(subject()) of type \(type)")
            }
        case .contains, .beginsWith, .endsWith:
            if type != .string && type != .data && type != .mixed {
                throw error(position, "\(op.rawValue) applies to strings and data, not to \(subject()) of type \(type)")
            }
        case .like:
            if type != .string && type != .data && type != .mixed { throw error(position, "LIKE applies to strings and data, not to \(subject()) of type \(type)") }
        case .text:
            // Bound by `bindText`, which checks more.
            if type != .string { throw error(position, "TEXT applies to full-text indexed strings, not to \(subject()) of type \(type)") }
        }
    }

    /// Whether values of the two types can be compared.
    private func compatible(_ a: PropertyType, _ b: PropertyType) -> Bool {
        if a == b { return true }
        // A mixed value compares with every value type, as in Realm.
        if a == .mixed || b == .mixed { return ![a, b].contains(where: { $0 == .object || $0 == .linkingObjects }) }
        if [a, b].allSatisfy({ $0 == .string || $0 == .data }) { return true }
        return a.isNumeric && b.isNumeric
    }

    /// `value` as a constant comparable with values of `type`.
    private func comparand(
        _ value: QueryValue, type: PropertyType, leafClass: String?, options: QueryStringOptions, _ subject: QueryExpression, _ position: Int?,
        literalText: String? = nil
    ) throws -> Comparand {
        func mismatch() -> ObjDBError {
            error(position, "\(describe(subject)) (\(type == .object ? leafClass ?? "object" : "\(type)")) cannot be compared with \(value)")
        }
        if case .null = value { return .null }
        if type == .decimal, let literalText, let exact = Self.exactDecimal(literalText) {
            // Every digit written counts against a Decimal, beyond what a Double holds.
            switch value {
            case .int, .double: return .decimal(exact)
            default: break
            }
        }
        switch type {
        case .int, .float, .double, .decimal:
            switch value {
            case .string(let text) where literalText != nil:
                // A quoted literal against a number is read as one, as Realm does (`age == '5'`).
                guard let number = Self.number(fromQuoted: text, for: type) else {
                    throw error(position, "\(describe(subject)) (\(type)) cannot be compared with '\(text)': it is not a number")
                }
                return try comparand(number, type: type, leafClass: leafClass, options: options, subject, position)
            case .int(let v): return .int(v)
            case .double(let v) where type == .int && !v.isFinite:
                throw mismatch()  // as Realm: an integer is never infinite or NaN
            case .double(let v) where type == .decimal && v.isFinite:
                // A Double against a Decimal property means the decimal it is written as: its
                // shortest round-trip text (`price == 19.99` matches a Decimal 19.99, which the
                // Double nearest to 19.99 does not equal exactly).
                return .decimal(Decimal(string: "\(v)", locale: Locale(identifier: "en_US_POSIX")) ?? Decimal(v))
            case .double(let v): return .double(v)
            case .decimal(let v): return .decimal(v)
            default: throw mismatch()
            }
        case .bool:
            // Realm reads 0 and 1 as false and true.
            switch value {
            case .bool(let v): return .bool(v)
            case .int(let v) where v == 0 || v == 1: return .bool(v == 1)
            default: throw mismatch()
            }
        case .string, .data:
            // Strings and data compare with each other by their bytes, as in Realm (a string as
            // UTF-8); `[c]`/`[d]` fold data as UTF-8 text.
            switch value {
            case .string(let v): return .bytes(Array((options.isEmpty ? v : QueryText.fold(v, options)).utf8))
            case .data(let v) where options.isEmpty: return .bytes(Array(v))
            case .data(let v): return .bytes(Array(QueryText.fold(String(decoding: v, as: UTF8.self), options).utf8))
            default: throw mismatch()
            }
        case .date:
            guard case .date(let v) = value else { throw mismatch() }
            return .date(v.timeIntervalSinceReferenceDate)
        case .uuid:
            switch value {
            case .uuid(let v): return .bytes(withUnsafeBytes(of: v.uuid) { Array($0) })
            case .string(let s):
                guard let v = UUID(uuidString: s) else { throw mismatch() }
                return .bytes(withUnsafeBytes(of: v.uuid) { Array($0) })
            default: throw mismatch()
            }
        case .objectId:
            switch value {
            case .objectId(let v): return .bytes(v.bytes)
            case .string(let s):
                guard let v = ObjectId(string: s) else { throw mismatch() }
                return .bytes(v.bytes)
            default: throw mismatch()
            }
        case .mixed:
            return try Self.mixedComparand(value, options: options, database: database) ?? { throw mismatch() }()
        case .object:
            guard case .object(let className, let key) = value, className == leafClass else { throw mismatch() }
            return .object(key)
        case .linkingObjects:
            throw mismatch()
        }
    }

    /// The number a quoted literal spells for a property of `type` (Int, Float, Double or
    /// Decimal), or `nil` when it spells none.
    static func number(fromQuoted text: String, for type: PropertyType) -> QueryValue? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .int:
            // `'5'`, and `'5.0'` (a whole number written with a fraction), as Realm reads them.
            if let exact = Int64(trimmed) { return .int(exact) }
            guard let number = Double(trimmed), number.isFinite, let whole = Int64(exactly: number) else { return nil }
            return .int(whole)
        case .decimal:
            if let exact = exactDecimal(trimmed) { return .decimal(exact) }
            return Double(trimmed).map { .double($0) }
        default:
            return Double(trimmed).map { .double($0) }
        }
    }

    /// A decimal number literal (`-3.14`, `25`, `1.5e3`) as the Decimal it spells, digit for
    /// digit; `nil` for anything else (hexadecimal, infinities, NaN).
    static func exactDecimal(_ literal: String) -> Decimal? {
        // `Decimal(string:)` reads the longest number at the start (`1-2` as 1): the whole text
        // must first be a number, which `Double` checks.
        guard literal.allSatisfy({ "0123456789.eE+-".contains($0) }), Double(literal) != nil else { return nil }
        return Decimal(string: literal, locale: Locale(identifier: "en_US_POSIX"))
    }

    func describe(_ expression: QueryExpression) -> String {
        switch expression {
        case .keyPath(let path): "'\(path)'"
        case .aggregate(let path, let aggregate, let property): "'\(path).\(aggregate.rawValue)\(property.map { ".\($0)" } ?? "")'"
        case .subqueryCount(let collection, _, _): "SUBQUERY(\(collection)).@count"
        case .arithmetic(let op, _, _): "an arithmetic expression (\(op.rawValue))"
        case .value(let value): "\(value)"
        case .list: "a list"
        }
    }

    /// An ``ObjDBError/Code/invalidQuery`` error.
    func error(_ position: Int?, _ problem: String) -> ObjDBError {
        let place = position.map { " at position \($0)" } ?? ""
        return ObjDBError(.invalidQuery, "Invalid query on '\(rootClass)'\(place): \(problem)", className: rootClass)
    }
}

extension QueryOperator {
    /// The operator with its operands swapped (`3 < age` is `age > 3`); `nil` where there is none.
    var mirrored: QueryOperator? {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        default: nil
        }
    }
}

extension PropertyType {
    /// Integers, floating point and decimals.
    var isNumeric: Bool { self == .int || self == .float || self == .double || self == .decimal }
}
