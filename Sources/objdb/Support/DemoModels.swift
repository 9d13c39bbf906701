import Foundation
import ObjDB

/// The genres of the demo's books.
enum Genre: String, PersistableEnum {
    case novel, poetry, essay
}

/// An author in the demo database.
final class Author: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(indexed: true) var name: String = ""
    @Persisted var born: Date = .distantPast
    @Persisted var country: String? = nil
    /// The books whose `author` is this author, from the backlink table.
    @Persisted(originProperty: "author") var books: LinkingObjects<Book>
}

/// A book in the demo database.
final class Book: Object {
    @Persisted(primaryKey: true) var isbn: String = ""
    @Persisted var title: String = ""
    @Persisted var author: Author?
    @Persisted var year: Int16 = 0
    @Persisted var rating: Double = 0
    @Persisted var genre: Genre = .novel
    @Persisted var available: Bool = true
    @Persisted var uuid: UUID = UUID()
    @Persisted var tags: List<String>
}

/// The author as version 1 of the demo's schema declares it: `country` renamed `homeland`, and
/// `initials`, which the migration block computes from the name.
final class AuthorV1: Object {
    override class var className: String { "Author" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(indexed: true) var name: String = ""
    @Persisted var born: Date = .distantPast
    @Persisted var homeland: String? = nil
    @Persisted var initials: String = ""
    /// The books whose `author` is this author.
    @Persisted(originProperty: "author") var books: LinkingObjects<BookV1>
}

/// The book as version 1 of the demo's schema declares it (unchanged, linking ``AuthorV1``).
final class BookV1: Object {
    override class var className: String { "Book" }
    @Persisted(primaryKey: true) var isbn: String = ""
    @Persisted var title: String = ""
    @Persisted var author: AuthorV1?
    @Persisted var year: Int16 = 0
    @Persisted var rating: Double = 0
    @Persisted var genre: Genre = .novel
    @Persisted var available: Bool = true
    @Persisted var uuid: UUID = UUID()
    @Persisted var tags: List<String>
}
