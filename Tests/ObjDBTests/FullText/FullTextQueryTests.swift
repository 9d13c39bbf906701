import Foundation
import Testing
@testable import ObjDB

final class FTBook: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(fullTextIndexed: true) var name: String = ""
    @Persisted var price: Int = 0
    @Persisted var plain: String = ""
}

final class FTOptionalNote: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(fullTextIndexed: true) var body: String?
}

/// `TEXT` predicates with realm-core's semantics, answered from the full-text index, checked
/// against counts known by hand and against a plain reading of the texts.
@Suite(.serialized)
struct FullTextQueryTests {
    let directory = TemporaryDirectory()

    func open(_ books: [String]) throws -> Database {
        let db = try directory.open([FTBook.self, FTOptionalNote.self])
        try db.write {
            for (index, name) in books.enumerated() {
                let book = FTBook()
                (book.id, book.name, book.price, book.plain) = (index + 1, name, index, name)
                try db.add(book)
            }
        }
        return db
    }

    func ids(_ results: Results<FTBook>) -> [Int] { results.map(\.id).sorted() }

    // realm-js's docs test "FTS query" (Book: "The Hunger Games", "Black Swan", "Swan Lake").
    @Test func realmsBooks() throws {
        let db = try open(["The Hunger Games", "Black Swan", "Swan Lake"])
        let books = db.objects(FTBook.self)
        #expect(ids(try books.filter("name TEXT $0", "hunger")) == [1])
        #expect(ids(try books.filter("name TEXT $0", "swan -lake")) == [2])
        #expect(ids(try books.filter("name TEXT %@", "swan")) == [2, 3])
        #expect(ids(try books.filter("name TEXT 'sw*'")) == [2, 3])
        #expect(ids(try books.filter("name TEXT 'SWAN black'")) == [2])
        #expect(ids(try books.filter("name TEXT 'hun* -games'")) == [])
        #expect(ids(try books.filter("name TEXT '-swan'")) == [1])
        #expect(ids(try books.filter("name TEXT ''")) == [])
        #expect(ids(try books.filter("name TEXT 'the' AND price > 0")) == [])
        #expect(ids(try books.filter("name TEXT 'swan' OR price == 0")) == [1, 2, 3])
        #expect(ids(try books.filter("NOT name TEXT 'swan'")) == [1])
        #expect(ids(books.where { $0.name.fullTextMatches("lake swan") }) == [3])
        #expect(try books.filter("name TEXT 'swan'").count == 2)
    }

    @Test func theIndexAnswersAndExplainSaysSo() throws {
        let db = try open(["The Hunger Games", "Black Swan"])
        let results = try db.objects(FTBook.self).filter("name TEXT 'swan'")
        #expect(results.explain().hasPrefix("full-text index lookup on name for 'swan' of FTBook"))
    }

    @Test func diacriticsCaseAndCJKAreSearchable() throws {
        let db = try open(["Un café à Paris", "NAÏVE Art", "東京都に行く", "京都の寺", "Straße und Brücke"])
        let books = db.objects(FTBook.self)
        #expect(ids(try books.filter("name TEXT 'cafe'")) == [1])
        #expect(ids(try books.filter("name TEXT 'CAFÉ à'")) == [1])
        #expect(ids(try books.filter("name TEXT 'naive'")) == [2])
        #expect(ids(try books.filter("name TEXT '東京'")) == [3])
        #expect(ids(try books.filter("name TEXT '京都'")) == [3, 4])
        #expect(ids(try books.filter("name TEXT '東京都'")) == [3])
        #expect(ids(try books.filter("name TEXT 'brucke'")) == [5])
    }

    @Test func writesKeepTheIndexCurrent() throws {
        let db = try open(["red apple", "green apple", "red cherry"])
        let books = db.objects(FTBook.self)
        let red = try books.filter("name TEXT 'red'")
        #expect(ids(red) == [1, 3])
        try db.write {
            db.object(ofType: FTBook.self, forPrimaryKey: 1)?.name = "yellow banana"
            if let cherry = db.object(ofType: FTBook.self, forPrimaryKey: 3) { db.delete(cherry) }
            let book = FTBook()
            (book.id, book.name) = (4, "Red red wine")
            try db.add(book)
            // Changed again in the same transaction, after its postings were logged.
            db.object(ofType: FTBook.self, forPrimaryKey: 4)?.name = "red wine"
        }
        #expect(ids(red) == [4])
        #expect(ids(try books.filter("name TEXT 'apple'")) == [2])
        #expect(ids(try books.filter("name TEXT 'banana'")) == [1])
        #expect(ids(try books.filter("name TEXT 'cherry'")) == [])
        // Inside a write, queries see the transaction's own writes.
        try db.write {
            let book = FTBook()
            (book.id, book.name) = (5, "red balloon")
            try db.add(book)
            #expect(ids(red) == [4, 5])
            db.cancelWrite()
        }
        #expect(ids(red) == [4])
        #expect(try db.verify().isHealthy)
    }

    @Test func deleteAllEmptiesTheIndexEvenOfObjectsAddedInTheSameWrite() throws {
        let db = try open(["red apple"])
        try db.write {
            let book = FTBook()
            (book.id, book.name) = (2, "red cherry")
            try db.add(book)
            db.deleteAll()
            let kept = FTBook()
            (kept.id, kept.name) = (3, "green apple")
            try db.add(kept)
        }
        #expect(ids(try db.objects(FTBook.self).filter("name TEXT 'red'")) == [])
        #expect(ids(try db.objects(FTBook.self).filter("name TEXT 'apple'")) == [3])
        #expect(try db.verify().isHealthy)
    }

    /// A failed add of a sequence, caught inside the write, which then commits: the savepoint
    /// takes back the postings of the objects it had added.
    @Test func aFailedAddLeavesNoPostings() throws {
        let db = try open(["first book"])
        try db.write {
            let fresh = FTBook()
            (fresh.id, fresh.name) = (2, "second book")
            let taken = FTBook()
            (taken.id, taken.name) = (1, "taken book")
            #expect(throws: ObjDBError.self) { try db.add([fresh, taken]) }
            let kept = FTBook()
            (kept.id, kept.name) = (3, "third book")
            try db.add(kept)
        }
        #expect(ids(try db.objects(FTBook.self).filter("name TEXT 'book'")) == [1, 3])
        #expect(ids(try db.objects(FTBook.self).filter("name TEXT 'second'")) == [])
        #expect(ids(try db.objects(FTBook.self).filter("name TEXT 'taken'")) == [])
        #expect(try db.verify().isHealthy)
    }

    /// A TEXT comparison the index does not answer (inside an OR) on a large table: the
    /// compiled test of the whole filter (which stays on one thread: only row kernels split a
    /// scan) answers as the index does.
    @Test func rowTestsOfALargeTableAgreeWithTheIndex() throws {
        let words = ["alpha", "Béta", "gamma", "東京都", "delta", "epsilon"]
        var generator = SeededRandom(seed: 7)
        let texts = (0..<10_000).map { _ in
            (0..<4).map { _ in generator.pick(words) }.joined(separator: " ")
        }
        let db = try open(texts)
        let books = db.objects(FTBook.self)
        for query in ["beta", "京都 -alpha", "gam* delta", "-epsilon"] {
            let scanned = try books.filter("name TEXT %@ OR price < 0", query)
            #expect(scanned.explain() == "table scan of FTBook, compiled test of the whole filter", "\(query)")
            #expect(ids(scanned) == ids(try books.filter("name TEXT %@", query)), "\(query)")
        }
    }

    @Test func optionalTextsAndNil() throws {
        let db = try open([])
        try db.write {
            for (id, body) in [(1, "some words"), (2, nil), (3, "")] as [(Int, String?)] {
                let note = FTOptionalNote()
                (note.id, note.body) = (id, body)
                try db.add(note)
            }
        }
        let notes = db.objects(FTOptionalNote.self)
        #expect(try notes.filter("body TEXT 'words'").map(\.id) == [1])
        #expect(try notes.filter("body TEXT '-words'").map(\.id).sorted() == [2, 3])
        try db.write { db.object(ofType: FTOptionalNote.self, forPrimaryKey: 1)?.body = nil }
        #expect(try notes.filter("body TEXT 'words'").isEmpty)
        #expect(try db.verify().isHealthy)
    }

    @Test func badTextPredicatesAreErrorsNamingTheProblem() throws {
        let db = try open(["a book"])
        let books = db.objects(FTBook.self)
        func message(_ predicate: String, _ arguments: Any?...) -> String {
            do {
                _ = try books.filter(predicate, argumentArray: arguments)
                return "no error"
            } catch let error as ObjDBError {
                #expect(error.code == .invalidQuery)
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(message("plain TEXT 'book'").contains("'FTBook.plain' has no full-text index"))
        #expect(message("price TEXT 'book'").contains("TEXT applies to a full-text indexed String property"))
        #expect(message("name TEXT[c] 'book'").contains("can't be used with 'TEXT'"))
        #expect(message("name TEXT nil").contains("TEXT needs a string of words"))
        #expect(message("name TEXT 3").contains("TEXT needs a string of words"))
        #expect(message("name TEXT %@", 3).contains("TEXT needs a string of words"))
        #expect(message("'book' TEXT name").contains("TEXT needs a full-text indexed property on its left, found 'book'"))
        #expect(message("missing TEXT 'x'").contains("has no property 'missing'"))
    }

    /// Random texts over a small vocabulary: every query form answered by the index equals a
    /// reading of each text's words written here, and the same query on a property without an
    /// index-free path (the row test, through OR) agrees.
    @Test func indexAnswersEqualPlainReadingsOfTheTexts() throws {
        var generator = SystemRandomNumberGenerator()
        let vocabulary = ["alpha", "beta", "gamma", "delta", "alphabet", "betamax", "gam", "Delta", "ÉPSILON", "epsilon"]
        var texts: [String] = []
        for _ in 0..<300 {
            let count = Int.random(in: 0...6, using: &generator)
            texts.append((0..<count).map { _ in vocabulary.randomElement(using: &generator) ?? "" }.joined(separator: Bool.random() ? " " : ", "))
        }
        let db = try open(texts)
        let books = db.objects(FTBook.self)
        func plainWords(_ text: String) -> Set<String> {
            Set(text.lowercased().replacingOccurrences(of: "é", with: "e").split { !$0.isLetter }.map(String.init))
        }
        let queries = ["alpha", "alpha beta", "alph*", "-alpha", "beta -gamma", "gam*", "delta -alpha*", "epsilon", "zeta", "-zeta", "alpha* -beta*"]
        for query in queries {
            let parts = query.split(separator: " ").map(String.init)
            let expected = texts.indices.filter { index in
                let words = plainWords(texts[index])
                var required = false
                for part in parts {
                    let negated = part.hasPrefix("-")
                    let body = negated ? String(part.dropFirst()) : part
                    let prefix = body.hasSuffix("*")
                    let word = prefix ? String(body.dropLast()) : body
                    let found = prefix ? words.contains { $0.hasPrefix(word) } : words.contains(word)
                    if negated ? found : !found { return false }
                    if !negated { required = true }
                }
                return required || parts.allSatisfy { $0.hasPrefix("-") }
            }.map { $0 + 1 }
            #expect(ids(try books.filter("name TEXT %@", query)) == expected, "\(query)")
            #expect(ids(try books.filter("name TEXT %@ OR price < 0", query)) == expected, "\(query) through the row test")
        }
    }
}
