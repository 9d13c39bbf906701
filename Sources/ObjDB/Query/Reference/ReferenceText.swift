import Foundation

/// The reference interpreter's string operations, on UTF-8 bytes (strings, and data read as
/// text): `[c]`/`[d]` folding, `CONTAINS`, `BEGINSWITH`, `ENDSWITH` and `LIKE`.
enum ReferenceText {
    /// `text` with case (`[c]`) and diacritics (`[d]`) folded away by Foundation, as the options
    /// ask; unchanged without either.
    static func fold(_ text: [UInt8], _ options: QueryStringOptions) -> [UInt8] {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        if folding.isEmpty { return text }
        return Array(String(decoding: text, as: UTF8.self).folding(options: folding, locale: nil).utf8)
    }

    /// Whether `part` occurs in `text`, byte for byte, at any position.
    static func contains(_ text: [UInt8], _ part: [UInt8]) -> Bool {
        if part.isEmpty { return true }
        if part.count > text.count { return false }
        for start in 0...(text.count - part.count) where text[start..<(start + part.count)].elementsEqual(part) {
            return true
        }
        return false
    }

    /// Whether `text` starts with `part`.
    static func begins(_ text: [UInt8], with part: [UInt8]) -> Bool {
        text.starts(with: part)
    }

    /// Whether `text` ends with `part`.
    static func ends(_ text: [UInt8], with part: [UInt8]) -> Bool {
        part.count <= text.count && text.suffix(part.count).elementsEqual(part)
    }

    /// Whether `text` is `LIKE` `pattern`: on Unicode scalars, `?` matches one and `*` any run.
    /// A table of which beginnings of the text match which beginnings of the pattern.
    static func like(_ text: [UInt8], _ pattern: [UInt8]) -> Bool {
        let text = Array(String(decoding: text, as: UTF8.self).unicodeScalars)
        let pattern = Array(String(decoding: pattern, as: UTF8.self).unicodeScalars)
        // matches[i][j]: whether the first i scalars of the text match the first j of the pattern.
        var matches = Array(repeating: Array(repeating: false, count: pattern.count + 1), count: text.count + 1)
        matches[0][0] = true
        for j in pattern.indices where pattern[j] == "*" { matches[0][j + 1] = matches[0][j] }
        for i in text.indices {
            for j in pattern.indices {
                switch pattern[j] {
                case "*": matches[i + 1][j + 1] = matches[i + 1][j] || matches[i][j + 1]
                case "?": matches[i + 1][j + 1] = matches[i][j]
                default: matches[i + 1][j + 1] = matches[i][j] && pattern[j] == text[i]
                }
            }
        }
        return matches[text.count][pattern.count]
    }

    /// Whether `text` matches the search text `search` of a `TEXT` predicate, by the rules of
    /// ``FullTextQuery`` applied to the list of the text's words, one search word at a time.
    static func fullTextHolds(_ text: [UInt8], _ search: String) -> Bool {
        let query = FullTextQuery(search)
        if query.required.isEmpty && query.excluded.isEmpty { return false }
        let words = text.withUnsafeBytes { FullTextTokenizer.words($0) }
        func found(_ term: FullTextQuery.Term) -> Bool {
            for word in words {
                if term.isPrefix ? word.starts(with: term.word) : word == term.word { return true }
            }
            return false
        }
        for term in query.required where !found(term) { return false }
        for group in query.excluded {
            var all = true
            for term in group where !found(term) { all = false }
            if all { return false }
        }
        return true
    }
}
