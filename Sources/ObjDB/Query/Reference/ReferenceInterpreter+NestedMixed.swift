/// Subscripts into the lists and dictionaries mixed values hold (`value[0]`, `value['key']`,
/// `value[*]`), followed one subscript at a time into arrays: each level's elements gathered in
/// full, a key looked up by comparing every key.
extension ReferenceInterpreter {
    /// The values `selectors` select in the mixed value `read`, in order: the value itself for
    /// none; nothing where a subscript does not fit (an index past the end, a key of a list, a
    /// subscript on a number or on a nil element).
    func nestedReads(_ read: ColumnRead, _ selectors: [MixedSelector]) -> [ColumnRead] {
        var current = [read]
        for selector in selectors {
            current = current.flatMap { children(of: $0, selector) }
        }
        return current
    }

    /// What one subscript selects in one mixed value; nothing for a list or dictionary that is
    /// not well-formed at its own level (its elements are checked where they are read).
    private func children(of read: ColumnRead, _ selector: MixedSelector) -> [ColumnRead] {
        guard case .value(let bytes) = read, let (tag, payload) = MixedFormat.split(bytes), MixedFormat.isWellFormedCollection(tag, payload) else {
            return []
        }
        switch tag {
        case .list:
            let view = SequenceView(payload)
            let elements = (0..<view.count).map { view.element($0) }
            switch selector {
            case .index(let index): return index < elements.count ? [elements[index]] : []
            case .last: return elements.last.map { [$0] } ?? []
            case .every: return elements
            case .key: return []
            }
        case .dictionary:
            let map = MapView(.value(payload))
            let entries = (0..<map.count).map { (key: map.keys.element($0), value: map.values.element($0)) }
            switch selector {
            case .key(let wanted):
                return entries.filter { entry in
                    guard case .value(let key) = entry.key else { return false }
                    return key.elementsEqual(wanted)
                }.map(\.value)
            case .every: return entries.map(\.value)
            case .index, .last: return []
            }
        default:
            return []
        }
    }
}
