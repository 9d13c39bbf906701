import Foundation

/// The seeded documents and queries of `--full-text`, identical for ObjDB and SQLite FTS5.
///
/// - Vocabulary: ``vocabularySize`` distinct words made of 2 to 4 consonant-vowel syllables
///   (`kamito`, `zerupa`), so that words share prefixes: a four-letter prefix stands for about
///   ten words. One word in 30 carries a diacritic (`kéta`), which both systems fold away.
/// - Documents: 20 to 80 words each, drawn from the vocabulary by a Zipf law of exponent 1
///   (the word of rank r with probability ∝ 1/r), in sentences of 6 to 15 words that start with
///   a capital letter and end with a full stop.
/// - Queries: terms of chosen frequency ranks (rank 1 is the most frequent word).
struct FullTextCorpus {
    /// Words of the vocabulary.
    static let vocabularySize = 50_000
    /// The vocabulary, by rank: `words[0]` is the most frequent.
    let words: [String]
    /// The documents' texts; document i has the key i + 1.
    let documents: [String]
    /// The new texts of ``updatedIDs``, in the same order.
    let updates: [String]
    /// The keys of the documents whose text the update row replaces (10 %), in random order.
    let updatedIDs: [Int]

    /// `n` documents, their updates and the vocabulary, all from `seed`.
    init(n: Int, seed: UInt64 = 0xF0_11_7E_47) {
        var rng = SeededGenerator(seed: seed)
        words = Self.vocabulary(&rng)
        var sum = 0.0
        var cumulative: [Double] = []
        cumulative.reserveCapacity(words.count)
        for rank in 1...words.count {
            sum += 1 / Double(rank)
            cumulative.append(sum)
        }
        let normalized = cumulative.map { $0 / sum }
        var documents: [String] = []
        documents.reserveCapacity(n)
        for _ in 0..<n { documents.append(Self.document(&rng, words, normalized)) }
        self.documents = documents
        var ids = Array(1...n)
        ids.shuffle(using: &rng)
        let updatedIDs = Array(ids.prefix(max(1, n / 10)))
        var updates: [String] = []
        for _ in updatedIDs { updates.append(Self.document(&rng, words, normalized)) }
        self.updatedIDs = updatedIDs
        self.updates = updates
    }

    /// Distinct words of 2 to 4 syllables, in random order (which is their rank).
    private static func vocabulary(_ rng: inout SeededGenerator) -> [String] {
        let consonants = Array("bdfgklmnprstvz")
        let vowels = Array("aeiou")
        let accented: [Character: Character] = ["a": "à", "e": "é", "o": "ö", "u": "ü"]
        var seen = Set<String>()
        var result: [String] = []
        result.reserveCapacity(vocabularySize)
        while result.count < vocabularySize {
            let roll = rng.next() % 100
            let syllables = roll < 15 ? 2 : roll < 75 ? 3 : 4
            var word: [Character] = []
            for _ in 0..<syllables {
                word.append(consonants[Int(rng.next() % UInt64(consonants.count))])
                word.append(vowels[Int(rng.next() % UInt64(vowels.count))])
            }
            // Distinct once folded, so that each rank is one word for both systems.
            let plain = String(word)
            guard seen.insert(plain).inserted else { continue }
            if rng.next() % 30 == 0, let index = word.indices.last(where: { accented[word[$0]] != nil }), let mark = accented[word[index]] {
                word[index] = mark
            }
            result.append(String(word))
        }
        return result
    }

    /// One document's text.
    private static func document(_ rng: inout SeededGenerator, _ words: [String], _ cumulative: [Double]) -> String {
        let count = 20 + Int(rng.next() % 61)
        var text = ""
        text.reserveCapacity(count * 8)
        var sentenceLeft = 0
        for index in 0..<count {
            var word = words[rank(&rng, cumulative)]
            if sentenceLeft == 0 {
                if index > 0 { text += ". " }
                sentenceLeft = 6 + Int(rng.next() % 10)
                word = word.prefix(1).uppercased() + word.dropFirst()
            } else {
                text += " "
            }
            text += word
            sentenceLeft -= 1
        }
        return text + "."
    }

    /// A rank (0-based) drawn by the Zipf law.
    private static func rank(_ rng: inout SeededGenerator, _ cumulative: [Double]) -> Int {
        let u = Double(rng.next() >> 11) / Double(1 << 53)
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] < u { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// A word folded as both systems fold it (lowercase, no diacritics).
    static func fold(_ word: some StringProtocol) -> String {
        word.lowercased().folding(options: .diacriticInsensitive, locale: nil)
    }

    /// One query in both syntaxes.
    struct Query {
        /// ObjDB's `TEXT` syntax (`a b`, `abcd*`, `a -b`).
        let objdb: String
        /// FTS5's `MATCH` syntax (`"a" "b"`, `"abcd"*`, `"a" NOT "b"`).
        let fts5: String
        /// Folded words that must all be in a matching text, and prefixes of which one word must be.
        let required: [String]
        /// A required prefix, folded, or `nil`.
        let prefix: String?
        /// A folded word a matching text must not hold, or `nil`.
        let excluded: String?
    }

    /// The kinds of query of the table.
    enum QueryKind: CaseIterable {
        /// One word of rank 100..<2,000 (a few hundred to a few thousand documents each).
        case single
        /// A word of rank 10..<200 and one of rank 100..<2,000.
        case two
        /// The first four letters of a word of rank 100..<2,000.
        case prefix
        /// A word of rank 10..<500 without one of rank 10..<500.
        case exclusion
    }

    /// `count` seeded queries of `kind`.
    func queries(_ kind: QueryKind, count: Int) -> [Query] {
        var rng = SeededGenerator(seed: 0x9E_E7 &+ UInt64(QueryKind.allCases.firstIndex(of: kind) ?? 0))
        func word(_ ranks: Range<Int>) -> String { words[ranks.lowerBound + Int(rng.next() % UInt64(ranks.count))] }
        return (0..<count).map { _ in
            switch kind {
            case .single:
                let a = word(100..<2_000)
                return Query(objdb: a, fts5: "\"\(a)\"", required: [Self.fold(a)], prefix: nil, excluded: nil)
            case .two:
                let a = word(10..<200)
                var b = word(100..<2_000)
                while Self.fold(b) == Self.fold(a) { b = word(100..<2_000) }
                return Query(objdb: "\(a) \(b)", fts5: "\"\(a)\" \"\(b)\"", required: [Self.fold(a), Self.fold(b)], prefix: nil, excluded: nil)
            case .prefix:
                let p = String(Self.fold(word(100..<2_000)).prefix(4))
                return Query(objdb: "\(p)*", fts5: "\"\(p)\"*", required: [], prefix: p, excluded: nil)
            case .exclusion:
                let a = word(10..<500)
                var b = word(10..<500)
                while Self.fold(b) == Self.fold(a) { b = word(10..<500) }
                return Query(objdb: "\(a) -\(b)", fts5: "\"\(a)\" NOT \"\(b)\"", required: [Self.fold(a)], prefix: nil, excluded: Self.fold(b))
            }
        }
    }
}

/// What a query returned: how many keys and their sum.
struct FullTextAnswer: Equatable, CustomStringConvertible {
    /// Keys returned.
    var count = 0
    /// Their sum.
    var sum = 0

    /// Adds a key.
    mutating func add(_ key: Int) {
        count += 1
        sum &+= key
    }

    /// `count keys (sum s)`.
    var description: String { "\(count) keys (sum \(sum))" }
}

/// An independent reading of the documents (split on non-letters, folded), which decides who
/// is right when the two systems disagree.
struct FullTextReference {
    /// The folded words of each document (document i has the key i + 1).
    let texts: [Set<String>]

    /// The current texts, after the update row when `updated`.
    init(_ corpus: FullTextCorpus, updated: Bool) {
        var documents = corpus.documents
        if updated { for (id, text) in zip(corpus.updatedIDs, corpus.updates) { documents[id - 1] = text } }
        texts = documents.map { Set($0.split { !$0.isLetter }.map { FullTextCorpus.fold($0) }) }
    }

    /// The answer of `query`.
    func answer(_ query: FullTextCorpus.Query) -> FullTextAnswer {
        var answer = FullTextAnswer()
        for (index, words) in texts.enumerated() {
            guard query.required.allSatisfy(words.contains) else { continue }
            if let prefix = query.prefix, !words.contains(where: { $0.hasPrefix(prefix) }) { continue }
            if let excluded = query.excluded, words.contains(excluded) { continue }
            answer.add(index + 1)
        }
        return answer
    }
}
