import Foundation
import Testing
@testable import ObjDB

/// Full-text postings written through the pending log: many texts in one transaction, texts
/// changed in random order (some twice, some deleted) in another, words longer than 16 bytes
/// beside short ones. Queries must equal a plain reading of the texts, and the file must verify;
/// with internal checks on, the log's grouping and its set of logged objects are compared with
/// their slow twins as they run.
@Suite(.serialized)
struct FullTextWriteTests {
    let directory = TemporaryDirectory()

    /// A text of `count` words of `vocabulary`, drawn with `generator`.
    func text(_ count: Int, _ vocabulary: [String], _ generator: inout SeededRandom) -> String {
        (0..<count).map { _ in vocabulary[Int(generator.next() % UInt64(vocabulary.count))] }.joined(separator: " ")
    }

    @Test func changesInRandomOrderKeepTheIndexEqualToTheTexts() throws {
        var generator = SeededRandom(seed: 41)
        let vocabulary = ["alpha", "beta", "gamma", "delta", "alphabet", "Ünïcode", "x", "supercalifragilistic", "supercalifragilisticexpialidocious", "12345678901234567", "1234567890123456"]
        let db = try directory.open([FTBook.self])
        var texts: [Int: String] = [:]
        try db.write {
            for id in 1...400 {
                let book = FTBook()
                (book.id, book.name) = (id, text(Int(generator.next() % 8), vocabulary, &generator))
                texts[id] = book.name
                try db.add(book)
            }
        }
        try db.write {
            for _ in 0..<300 {
                let id = Int(generator.next() % 400) + 1
                guard let book = db.object(ofType: FTBook.self, forPrimaryKey: id) else { continue }
                if generator.next() % 10 == 0 {
                    db.delete(book)
                    texts[id] = nil
                } else {
                    book.name = text(Int(generator.next() % 8), vocabulary, &generator)
                    texts[id] = book.name
                }
            }
        }
        let books = db.objects(FTBook.self)
        for query in ["alpha", "supercalifragilistic", "supercalifragilisticexpialidocious", "super*", "1234567890123456", "123456789012345*", "unicode -x", "beta gamma"] {
            let parsed = FullTextQuery(query)
            let expected = texts.filter { parsed.matches(words: Set(FullTextTokenizer.words($0.value))) }.keys.sorted()
            #expect(try books.filter("name TEXT %@", query).map(\.id).sorted() == expected, "\(query)")
        }
        #expect(try db.verify().isHealthy)
    }
}
