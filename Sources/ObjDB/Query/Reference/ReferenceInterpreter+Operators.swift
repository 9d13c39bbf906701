/// One operator applied to two values, as Docs/Queries.md ("Semantics") states it.
extension ReferenceInterpreter {
    /// Whether `left op right` holds for values of a comparison on `type` with string `options`.
    static func holds(
        _ op: QueryOperator, _ left: ReferenceValue, _ right: ReferenceValue, _ options: QueryStringOptions, _ type: PropertyType
    ) -> Bool {
        let textual = type == .string || type == .data || type == .mixed
        if op == .contains, type == .data, options.contains(.caseInsensitive), right.isNull {
            // Realm's one exception, kept for ported queries: data CONTAINS[c] nil holds for
            // data that is not nil.
            return !left.isNull
        }
        if op == .text {
            guard case .bytes(let words) = right else { return false }
            // nil holds no word, as the empty text.
            var text: [UInt8] = []
            if case .bytes(let bytes) = left { text = bytes }
            return ReferenceText.fullTextHolds(text, String(decoding: words, as: UTF8.self))
        }
        var (left, right) = (left, right)
        if textual, let (leftIsData, l) = left.textual, let (rightIsData, r) = right.textual {
            // A string never equals or matches data (a mixed value's).
            guard leftIsData == rightIsData else { return op == .notEqual }
            (left, right) = (.bytes(ReferenceText.fold(l, options)), .bytes(ReferenceText.fold(r, options)))
        }
        switch op {
        case .equal, .in:
            return ReferenceValue.equal(left, right)
        case .notEqual:
            return !ReferenceValue.equal(left, right)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            // nil is unordered with values and equal to nil: `<= nil` and `>= nil` hold for nil.
            if left.isNull || right.isNull { return left.isNull && right.isNull && (op == .lessOrEqual || op == .greaterOrEqual) }
            guard let order = ReferenceValue.order(left, right) else { return false }
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case .between, .betweenHalfOpen:
            return false  // only ever with a list of two values (``holds(_:left:_:)``)
        case .contains, .beginsWith, .endsWith, .like:
            // Every string, nil too, contains, begins and ends with nil; only nil is LIKE nil.
            if right.isNull { return op == .like ? left.isNull : true }
            guard let (textIsData, text) = left.textual, let (partIsData, part) = right.textual, textIsData == partIsData else {
                return false
            }
            switch op {
            case .contains: return ReferenceText.contains(text, part)
            case .beginsWith: return ReferenceText.begins(text, with: part)
            case .endsWith: return ReferenceText.ends(text, with: part)
            default: return ReferenceText.like(text, part)
            }
        case .text:
            return false  // answered above
        }
    }

    /// Whether `test` holds for some (`ANY`), every (`ALL`) or no (`NONE`) element of
    /// `elements`, by counting those it holds for.
    static func holds<Element>(_ quantifier: QueryQuantifier, over elements: [Element], _ test: (Element) -> Bool) -> Bool {
        let holding = elements.filter(test).count
        switch quantifier {
        case .any: return holding > 0
        case .all: return holding == elements.count
        case .none: return holding == 0
        }
    }
}
