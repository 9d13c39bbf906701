/// One subscript into the list or dictionary a mixed value holds (`value[0]`, `value[LAST]`,
/// `value['key']`, `value.key`, `value[*]`), bound from a key path component. A subscript that
/// does not fit what the value holds (an index past the end, a key on a list, anything on a
/// number) selects nothing, as in realm-core.
enum MixedSelector: Equatable {
    /// The element at an index of a list (`[FIRST]` is index 0).
    case index(Int)
    /// The last element of a list.
    case last
    /// The value of a key of a dictionary, as UTF-8.
    case key([UInt8])
    /// Every element of a list, every value of a dictionary.
    case every

    /// The subscript a key path component stands for: a list subscript, a `['key']`, or a
    /// plain name (a key); `nil` for the `@type` and `length` that may end the path.
    init?(component: String) {
        if component.hasPrefix(QueryKeyPath.indexPrefix) {
            guard let index = Int(component.dropFirst(QueryKeyPath.indexPrefix.count)), index >= 0 else { return nil }
            self = .index(index)
        } else if component == QueryKeyPath.lastElement {
            self = .last
        } else if component == QueryKeyPath.everyElement {
            self = .every
        } else if component.hasPrefix(QueryKeyPath.mapKeyPrefix) {
            self = .key(Array(component.dropFirst(QueryKeyPath.mapKeyPrefix.count).utf8))
        } else if component.hasPrefix("@") || component == "length" {
            return nil
        } else {
            self = .key(Array(component.utf8))
        }
    }

    /// Calls `body` with each value `selectors` (from `start` on) select in the mixed value
    /// `read`; `body` returns `false` to stop. Returns `false` if it was stopped. A `none`
    /// element that a subscript selects is a null value; one that a further subscript looks
    /// into selects nothing.
    static func select(_ selectors: [MixedSelector], from start: Int, in read: ColumnRead, _ body: (ColumnRead) -> Bool) -> Bool {
        guard start < selectors.count else { return body(read) }
        guard case .value(let bytes) = read, let (tag, payload) = MixedFormat.split(bytes),
            MixedFormat.isWellFormedCollection(tag, payload)
        else { return true }
        switch (selectors[start], tag) {
        case (.index(let index), .list):
            let list = SequenceView(payload)
            guard index < list.count else { return true }
            return select(selectors, from: start + 1, in: list.element(index), body)
        case (.last, .list):
            let list = SequenceView(payload)
            guard list.count > 0 else { return true }
            return select(selectors, from: start + 1, in: list.element(list.count - 1), body)
        case (.key(let key), .dictionary):
            let map = MapView(.value(payload))
            guard let index = key.withUnsafeBytes({ map.index(of: $0) }) else { return true }
            return select(selectors, from: start + 1, in: map.values.element(index), body)
        case (.every, .list):
            let list = SequenceView(payload)
            for i in 0..<list.count where !select(selectors, from: start + 1, in: list.element(i), body) { return false }
            return true
        case (.every, .dictionary):
            let values = MapView(.value(payload)).values
            for i in 0..<values.count where !select(selectors, from: start + 1, in: values.element(i), body) { return false }
            return true
        default:
            return true
        }
    }
}
