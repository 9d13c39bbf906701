/// The words a `TEXT` predicate looks for, read from its search text with realm-core's rules:
///
/// - every word must be in the text (`swift data`: both);
/// - a word after `-` must not be (`swift -objc`);
/// - a word ending in `*` is a prefix (`data*` matches `data`, `database`, `datastore`).
///
/// Search words are split and folded by ``FullTextTokenizer``, as the indexed text was: `Café`
/// finds `cafe`, and `e-mail` looks for `e` and `mail`. A text with no word to look for (empty,
/// or punctuation only) matches no object; one with only excluded words matches every object
/// without them.
struct FullTextQuery: Equatable, Sendable, CustomStringConvertible {
    /// One word looked for.
    struct Term: Equatable, Sendable, Hashable {
        /// The folded word.
        var word: [UInt8]
        /// Whether any word starting with ``word`` matches.
        var isPrefix: Bool
    }

    /// Words that must all be in a matching text.
    var required: [Term] = []
    /// Groups of words a matching text must not hold: a text is excluded when it holds every
    /// word of some group (`-e-mail` is the group `e`, `mail`).
    var excluded: [[Term]] = []
    /// The search text as written.
    let text: String

    /// Reads `text`.
    init(_ text: String) {
        self.text = text
        for part in text.split(whereSeparator: { $0.isWhitespace }) {
            var body = Substring(part)
            var negated = false
            if body.first == "-" {
                negated = true
                body = body.dropFirst()
            }
            var prefix = false
            if body.last == "*" {
                prefix = true
                while body.last == "*" { body = body.dropLast() }
            }
            let words = FullTextTokenizer.words(String(body))
            guard !words.isEmpty else { continue }
            // Only the last word of `data-base*` is a prefix.
            let terms = words.enumerated().map { Term(word: $1, isPrefix: prefix && $0 == words.count - 1) }
            if negated { excluded.append(terms) } else { required.append(contentsOf: terms) }
        }
    }

    /// Whether the query looks for nothing, and so matches no object.
    var isEmpty: Bool { required.isEmpty && excluded.isEmpty }

    /// Whether some word is a prefix (an encrypted file's index answers exact words only).
    var hasPrefixes: Bool { required.contains(where: \.isPrefix) || excluded.contains { $0.contains(where: \.isPrefix) } }

    /// Whether a text whose words are `words` matches (the row test: the slow twin of the index
    /// lookup).
    func matches(words: Set<[UInt8]>) -> Bool {
        if isEmpty { return false }
        func holds(_ term: Term) -> Bool {
            term.isPrefix ? words.contains { $0.starts(with: term.word) } : words.contains(term.word)
        }
        return required.allSatisfy(holds) && !excluded.contains { $0.allSatisfy(holds) }
    }

    /// Whether the UTF-8 text `text` matches.
    func matches(_ text: UnsafeRawBufferPointer) -> Bool {
        if isEmpty { return false }
        var words = Set<[UInt8]>()
        FullTextTokenizer.forEachWord(text) { words.insert(Array($0)) }
        return matches(words: words)
    }

    /// The search text, quoted.
    var description: String { "'\(text)'" }

    /// Equal when written the same: the words follow from the text.
    static func == (a: FullTextQuery, b: FullTextQuery) -> Bool { a.text == b.text }
}
