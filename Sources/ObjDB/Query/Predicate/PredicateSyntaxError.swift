/// A problem found while reading a predicate string: where it is and what it is.
///
/// The lexer and the parser throw it; ``PredicateParser/parse(_:arguments:)`` turns it into an
/// ``ObjDBError`` with code ``ObjDBError/Code/invalidQuery`` whose message also quotes the
/// predicate:
///
/// ```
/// Invalid predicate at position 4: unknown operator '>>' in "age >> 3"
/// ```
struct PredicateSyntaxError: Error, Equatable {
    /// Offset of the problem in the predicate (0-based, in characters), or `nil` when it
    /// concerns the whole predicate (too many arguments).
    let position: Int?
    /// What is wrong, as a phrase: `expected an operator after 'age', found '3'`.
    let message: String

    /// Predicates up to this many characters are quoted whole in messages.
    static let maximumQuotedLength = 80
    /// Longer predicates are quoted as a window of this many characters around the position.
    static let excerptLength = 70

    /// The error ObjDB throws: `Invalid predicate at position <n>: <message> in "<predicate>"`.
    func objdbError(in text: String) -> ObjDBError {
        let place = position.map { " at position \($0)" } ?? ""
        return ObjDBError(.invalidQuery, "Invalid predicate\(place): \(message) in \"\(Self.excerpt(of: text, around: position))\"")
    }

    /// `text` whole if it is short, otherwise the part around `position` with `…` marking what
    /// was left out.
    static func excerpt(of text: String, around position: Int?) -> String {
        let characters = PredicateParser.characters(of: text)
        guard characters.count > maximumQuotedLength else { return text }
        let wanted = (position ?? 0) - excerptLength / 3
        let start = max(0, min(wanted, characters.count - excerptLength))
        let end = start + excerptLength
        let prefix = start > 0 ? "…" : ""
        let suffix = end < characters.count ? "…" : ""
        return prefix + String(characters[start..<end]) + suffix
    }

    /// Source text quoted for a message, `'like this'`, shortened to 30 characters.
    static func quote(_ text: String) -> String {
        let limit = 30
        guard text.count > limit else { return "'\(text)'" }
        return "'\(text.prefix(limit - 1))…'"
    }
}
