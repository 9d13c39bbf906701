import Foundation
import Testing
@testable import ObjDB

/// `search(_:in:)`: the matches ordered by BM25, whose scores are computed here again from the
/// formula; and live `TEXT` results notified like any other.
@Suite(.serialized)
struct FullTextSearchTests {
    let directory = TemporaryDirectory()

    func open(_ texts: [String]) throws -> Database {
        let db = try directory.open([FTBook.self, FTOptionalNote.self])
        try db.write {
            for (index, text) in texts.enumerated() {
                let book = FTBook()
                (book.id, book.name) = (index + 1, text)
                try db.add(book)
            }
        }
        return db
    }

    /// Okapi BM25 with k1 = 1.2, b = 0.75 and Lucene's idf, from the texts' words as the
    /// tokenizer gives them.
    func bm25(_ texts: [String], _ words: [String]) -> [Double] {
        let documents = texts.map { FullTextTokenizer.words($0).map { String(decoding: $0, as: UTF8.self) } }
        let nonEmpty = documents.filter { !$0.isEmpty }
        let average = Double(nonEmpty.map(\.count).reduce(0, +)) / Double(nonEmpty.count)
        return documents.map { document in
            words.reduce(0.0) { score, word in
                let containing = Double(documents.filter { $0.contains(word) }.count)
                let idf = log(1 + (Double(nonEmpty.count) - containing + 0.5) / (containing + 0.5))
                let frequency = Double(document.filter { $0 == word }.count)
                guard frequency > 0 else { return score }
                return score + idf * frequency * 2.2 / (frequency + 1.2 * (0.25 + 0.75 * Double(document.count) / average))
            }
        }
    }

    @Test func resultsComeMostRelevantFirstWithBM25Scores() throws {
        let texts = [
            "swift is a language and swift is fast",
            "a long text that mentions swift once among many other words of little interest here",
            "data and swift data",
            "nothing to see",
            "swift",
            "data data data",
        ]
        let db = try open(texts)
        let expected = bm25(texts, ["swift", "data"])
        let matching = texts.indices.filter { expected[$0] > 0 && texts[$0].contains("swift") && texts[$0].contains("data") }
        let results = db.objects(FTBook.self).search("swift data", in: \.name)
        #expect(results.map(\.id) == matching.map { $0 + 1 })
        let single = db.objects(FTBook.self).search("Swift", in: \.name)
        let order = texts.indices.filter { texts[$0].contains("swift") }.sorted { expected2($0, $1, bm25(texts, ["swift"])) }
        #expect(single.map(\.id) == order.map { $0 + 1 })
        // The scores themselves, to the last bits.
        let info = try #require(db.classInfo(named: "FTBook"))
        let reader = FullTextIndexReader(table: try #require(info.tables.fullText[1]), txn: try #require(db.readableTxn()))
        let scores = try reader.scores([1, 2, 3, 4, 5, 6], FullTextQuery("swift data"))
        for (score, want) in zip(scores, expected) { #expect(abs(score - want) < 1e-12) }
        #expect(single.prefix(2).map(\.id) == Array(order.prefix(2).map { $0 + 1 }))
        #expect(try single.filter("id != 5").map(\.id) == order.filter { $0 != 4 }.map { $0 + 1 })
        // A sort after the search replaces its order.
        #expect(single.sorted(by: \.id).map(\.id) == order.map { $0 + 1 }.sorted())
    }

    /// Descending score, ties by key.
    func expected2(_ a: Int, _ b: Int, _ scores: [Double]) -> Bool {
        scores[a] != scores[b] ? scores[a] > scores[b] : a < b
    }

    @Test func textResultsAreLiveAndNotify() throws {
        let db = try open(["red apple", "green apple"])
        let red = try db.objects(FTBook.self).filter("name TEXT 'red'")
        var changes: [String] = []
        let token = red.observe { change in
            switch change {
            case .initial(let results): changes.append("initial \(results.count)")
            case .update(let results, let deletions, let insertions, let modifications):
                changes.append("update \(results.count) -\(deletions) +\(insertions) ~\(modifications)")
            case .error(let error): changes.append("error \(error)")
            }
        }
        defer { token.invalidate() }
        try db.write {
            let book = FTBook()
            (book.id, book.name) = (3, "Red cherry")
            try db.add(book)
        }
        try db.write { db.object(ofType: FTBook.self, forPrimaryKey: 1)?.name = "yellow apple" }
        try db.write { db.object(ofType: FTBook.self, forPrimaryKey: 3)?.price = 7 }
        #expect(changes == ["initial 1", "update 2 -[] +[1] ~[]", "update 1 -[0] +[] ~[]", "update 1 -[] +[] ~[0]"])
    }

    @Test func frozenResultsSearchTheirVersion() throws {
        let db = try open(["one fish", "two fish"])
        let frozen = try db.objects(FTBook.self).filter("name TEXT 'fish'").freeze()
        try db.write { db.object(ofType: FTBook.self, forPrimaryKey: 1)?.name = "one bird" }
        #expect(frozen.map(\.id).sorted() == [1, 2])
        #expect(try db.objects(FTBook.self).filter("name TEXT 'fish'").map(\.id) == [2])
        #expect(db.objects(FTBook.self).search("fish", in: \.name).freeze().map(\.id) == [2])
    }
}
