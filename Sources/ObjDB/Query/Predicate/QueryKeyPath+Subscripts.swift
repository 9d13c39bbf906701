/// The subscripts a key path takes after a mixed value that holds a list or a dictionary
/// (`value[0]`, `value[FIRST]`, `value[LAST]`, `value['key']`, `value[*]`), as key path
/// components. A dictionary key reuses ``QueryKeyPath/mapKeyPrefix``.
extension QueryKeyPath {
    /// The component for `[n]` (`[FIRST]` is `[0]`): this prefix, then the index.
    static let indexPrefix = "@index:"
    /// The component for `[LAST]`: the last element of a list.
    static let lastElement = "@last"
    /// The component for `[*]`: every element of a list, every value of a dictionary.
    static let everyElement = "@all"

    /// Whether `component` is one of the list subscripts (`[n]`, `[LAST]`, `[*]`).
    static func isListSubscript(_ component: String) -> Bool {
        component.hasPrefix(indexPrefix) || component == lastElement || component == everyElement
    }

    /// The component for the list subscript written `[inner]`: an index of 0 or more, `FIRST`,
    /// `LAST` (in any case) or `*`; `nil` when `inner` is none of these (a dictionary key, say).
    /// Throws for a negative index.
    static func listSubscript(_ inner: String, at position: Int) throws -> String? {
        let text = inner.trimmingCharacters(in: .whitespaces)
        switch text.uppercased() {
        case "*": return everyElement
        case "FIRST": return indexPrefix + "0"
        case "LAST": return lastElement
        default: break
        }
        guard let index = Int(text) else { return nil }
        guard index >= 0 else {
            throw PredicateSyntaxError(
                position: position, message: "the list index [\(text)] is negative; write an index of 0 or more, [FIRST] or [LAST]")
        }
        return indexPrefix + String(index)
    }

    /// `components` as a predicate writes them: names joined by dots, subscripts in brackets
    /// (`value[2]['foo']`, `value[*].@type`).
    static func written(_ components: [String]) -> String {
        var text = ""
        for component in components {
            if component.hasPrefix(mapKeyPrefix) {
                text += "['\(component.dropFirst(mapKeyPrefix.count))']"
            } else if component.hasPrefix(indexPrefix) {
                text += "[\(component.dropFirst(indexPrefix.count))]"
            } else if component == lastElement {
                text += "[LAST]"
            } else if component == everyElement {
                text += "[*]"
            } else {
                text += text.isEmpty ? component : "." + component
            }
        }
        return text
    }
}
