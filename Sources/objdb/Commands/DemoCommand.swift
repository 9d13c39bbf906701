import ArgumentParser
import Foundation
import ObjDB

/// `objdb demo`: creates a sample database, writes, reads back, reopens, and says what it did.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Create a sample database and show ObjDB at work.")

    @Argument(help: "Where to create the database (default: a new temporary directory).")
    var file: String?

    @Flag(help: "Replace the file if it exists.")
    var overwrite = false

    func run() throws {
        let url = try targetURL()
        var config = Configuration(fileURL: url)
        config.objectTypes = [Author.self, Book.self]
        print("Creating \(url.path)")
        try writeSample(config)
        try readBack(config)
        try observe(config)
        try migrate(url)
        print("")
        print("Inspect it with:  objdb info \(url.path)")
    }

    private func targetURL() throws -> URL {
        guard let file else {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("objdb-demo-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return directory.appendingPathComponent("demo.objdb")
        }
        let url = URL(fileURLWithPath: file)
        if FileManager.default.fileExists(atPath: url.path) {
            guard overwrite else {
                throw ValidationError("\(file) exists; pass --overwrite to replace it")
            }
            try Database.deleteFiles(for: Configuration(fileURL: url))
        }
        return url
    }

    private func writeSample(_ config: Configuration) throws {
        let db = try Database(configuration: config)
        let calendar = Calendar(identifier: .gregorian)
        func date(_ year: Int) -> Date { calendar.date(from: DateComponents(year: year, month: 1, day: 1)) ?? .distantPast }
        let authors: [(Int, String, Int, String?)] = [
            (1, "Mary Shelley", 1797, "England"), (2, "Jorge Luis Borges", 1899, "Argentina"),
            (3, "Wisława Szymborska", 1923, "Poland"),
        ]
        let books: [(String, String, Int, Int16, Double, Genre)] = [
            ("978-0141439471", "Frankenstein", 1, 1818, 4.1, .novel),
            ("978-0142437889", "The Last Man", 1, 1826, 3.7, .novel),
            ("978-0811216999", "Labyrinths", 2, 1962, 4.5, .essay),
            ("978-0141183800", "Ficciones", 2, 1944, 4.4, .novel),
            ("978-0156005807", "View with a Grain of Sand", 3, 1995, 4.6, .poetry),
            ("978-0151011469", "Here", 3, 2009, 4.2, .poetry),
        ]
        try db.write {
            for (id, name, born, country) in authors {
                try db.create(Author.self, value: ["id": id, "name": name, "born": date(born), "country": country as Any])
            }
            for (isbn, title, author, year, rating, genre) in books {
                let book = Book()
                book.isbn = isbn
                book.title = title
                book.author = db.object(ofType: Author.self, forPrimaryKey: author)
                book.year = year
                book.rating = rating
                book.genre = genre
                book.tags.append(genre == .poetry ? "verse" : "prose")
                try db.add(book)
            }
        }
        print("Wrote \(db.objects(Author.self).count) authors and \(db.objects(Book.self).count) books in one transaction, each book linked to its author")

        try db.write {
            db.object(ofType: Book.self, forPrimaryKey: "978-0142437889")?.available = false
            let update = Author()
            update.id = 2
            update.name = "Jorge Luis Borges"
            update.born = date(1899)
            update.country = "Argentina (Buenos Aires)"
            try db.add(update, update: .modified)
        }
        print("Updated a book in place and upserted an author (only the changed property was written)")

        try db.write {
            if let here = db.object(ofType: Book.self, forPrimaryKey: "978-0151011469") { db.delete(here) }
        }
        print("Deleted one book; \(db.objects(Book.self).count) books remain")
    }

    /// Live results: an observer is told, with exact indices, what another instance committed.
    private func observe(_ config: Configuration) throws {
        let db = try Database(configuration: config)
        let poetry = try db.objects(Book.self).filter("genre == 'poetry'").sorted(by: \.year)
        let token = poetry.observe { change in
            switch change {
            case .initial(let books):
                print("Observing the poetry, by year: \(books.map(\.title).joined(separator: ", "))")
            case .update(let books, let deletions, let insertions, let modifications):
                print("  told: deletions \(deletions), insertions \(insertions), modifications \(modifications) → \(books.map(\.title).joined(separator: ", "))")
            case .error(let error):
                print("  observation ended: \(error)")
            }
        }
        db.refresh()  // delivers the initial state
        // Another instance, as another screen or another process would write.
        let writer = try Database(configuration: config)
        try writer.write {
            let book = Book()
            book.isbn = "978-0156011518"
            book.title = "Poems New and Collected"
            book.author = writer.object(ofType: Author.self, forPrimaryKey: 3)
            book.year = 1998
            book.rating = 4.5
            book.genre = .poetry
            try writer.add(book)
        }
        print("Another instance added a 1998 poetry book")
        db.refresh()  // delivers what changed since
        try writer.write { writer.object(ofType: Book.self, forPrimaryKey: "978-0156005807")?.rating = 4.7 }
        print("Another instance changed the rating of 'View with a Grain of Sand'")
        db.refresh()
        token.invalidate()
    }

    /// A migration at launch: the next version of the app renames a property and adds one that
    /// the migration block computes, in one write transaction.
    private func migrate(_ url: URL) throws {
        var config = Configuration(fileURL: url)
        config.objectTypes = [AuthorV1.self, BookV1.self]
        config.schemaVersion = 1
        config.migrationBlock = { migration, oldSchemaVersion in
            guard oldSchemaVersion < 1 else { return }
            migration.renameProperty(onType: "Author", from: "country", to: "homeland")
            try migration.enumerateObjects(ofType: "Author") { old, new in
                let words = (old?["name"] as? String ?? "").split(separator: " ")
                new?["initials"] = String(words.compactMap(\.first))
            }
        }
        let db = try Database(configuration: config)
        print("Reopened at schema version 1: Author.country renamed homeland, Author.initials computed by the migration block")
        for author in db.objects(AuthorV1.self) {
            print("  \(author.initials): \(author.name), \(author.homeland ?? "?"), \(author.books.count) books")
        }
    }

    private func readBack(_ config: Configuration) throws {
        let db = try Database(configuration: config)
        print("Reopened the file:")
        for author in db.objects(Author.self) {
            // Linking objects: the books whose `author` link points here.
            let titles = author.books.map { "\($0.title) (\($0.year))" }
            print("  \(author.name), \(author.country ?? "?"): \(titles.joined(separator: ", "))")
        }
        if let book = db.object(ofType: Book.self, forPrimaryKey: "978-0142437889") {
            print("  '\(book.title)' is \(book.available ? "available" : "checked out"), genre \(book.genre.rawValue)")
        }
    }
}
