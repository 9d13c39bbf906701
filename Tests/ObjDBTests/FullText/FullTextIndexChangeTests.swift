import Foundation
import Testing
@testable import ObjDB

final class FTArticleV0: Object {
    override class var className: String { "FTArticle" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var body: String = ""
}

final class FTArticleV1: Object {
    override class var className: String { "FTArticle" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(fullTextIndexed: true) var body: String = ""
}

final class FTArticleV2: Object {
    override class var className: String { "FTArticle" }
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted(fullTextIndexed: true) var text: String = ""
    @Persisted var words: Int = 0
}

final class FTWrongType: Object {
    @Persisted(primaryKey: true) var id: Int = 0
    @Persisted var count: Int = 0
}

/// Full-text indexes added, removed and rebuilt at open and in migrations, in plain and
/// encrypted files; schemas that cannot have one.
@Suite(.serialized)
struct FullTextIndexChangeTests {
    let directory = TemporaryDirectory()

    func configuration(_ type: ObjectBase.Type, version: UInt64 = 0, key: Data? = nil, block: MigrationBlock? = nil) -> Configuration {
        var configuration = directory.configuration([type])
        configuration.schemaVersion = version
        configuration.migrationBlock = block
        configuration.encryptionKey = key
        return configuration
    }

    func write(_ texts: [String], key: Data? = nil) throws {
        let db = try Database(configuration: configuration(FTArticleV0.self, key: key))
        try db.write {
            for (index, text) in texts.enumerated() {
                let article = FTArticleV0()
                (article.id, article.body) = (index + 1, text)
                try db.add(article)
            }
        }
    }

    func ids(_ db: Database, _ predicate: String) throws -> [Int] {
        try db.dynamicObjects("FTArticle").filter(predicate).compactMap { $0["id"] as? Int }.sorted()
    }

    /// Makes the index of `FTArticle.body` look filled by another process: `change` alters its
    /// stored property (the tokenizer's version or folding), and a posting for the word `zeta`,
    /// which no row gives, is added.
    func markIndexFilledElsewhere(_ change: (inout StoredProperty) -> Void) throws {
        let db = try Database(configuration: configuration(FTArticleV1.self))
        try db.write {
            let txn = try #require(db.writeContext?.transaction.txn)
            let header = try FileMeta.read(txn, meta: db.metaTable, path: db.path)
            var schema = header.schema
            change(&schema.classes[0].properties[1])
            try FileMeta.writeSchema(txn, db.metaTable, schema, stamp: header.stamp + 1)
            let table = try #require(db.classInfo(named: "FTArticle")?.tables.fullText[1])
            let posting = FullTextPostings.bytes(.init(objectKey: 1, occurrences: 1, textLength: 2))
            _ = try Array("zeta".utf8).withUnsafeBytes { k in try posting.withUnsafeBytes { try txn.put(table, key: k, value: $0) } }
            try FileMeta.seal(txn, db.metaTable)
        }
    }

    @Test func anIndexAddedAtOpenIsFilledAndOneRemovedIsEmptied() throws {
        try write(["alpha beta", "beta gamma", "gamma"])
        do { #expect(try Database(configuration: configuration(FTArticleV0.self)).formatVersion == 3) }
        do {
            let db = try Database(configuration: configuration(FTArticleV1.self))
            // Only a file with a full-text index needs format 4.
            #expect(db.formatVersion == 4)
            #expect(try ids(db, "body TEXT 'beta'") == [1, 2])
            #expect(try db.objects(FTArticleV1.self).filter("body TEXT 'gamma -beta'").map(\.id) == [3])
            #expect(try db.verify().isHealthy)
        }
        do {
            let db = try Database(configuration: configuration(FTArticleV0.self))
            #expect(throws: ObjDBError.self) { try db.objects(FTArticleV0.self).filter("body TEXT 'beta'") }
            try db.write { db.object(ofType: FTArticleV0.self, forPrimaryKey: 1)?.body = "delta" }
            #expect(try db.verify().isHealthy)
        }
        // Added again: filled from the rows as they are now.
        let db = try Database(configuration: configuration(FTArticleV1.self))
        #expect(try ids(db, "body TEXT 'beta'") == [2])
        #expect(try ids(db, "body TEXT 'delta'") == [1])
        #expect(try db.verify().isHealthy)
    }

    @Test func anIndexFilledByAnotherTokenizerVersionIsRebuilt() throws {
        try write(["alpha beta"])
        do { _ = try Database(configuration: configuration(FTArticleV1.self)) }
        // A file whose index says it was filled by a version that is not this one, and whose
        // postings are wrong: opening rebuilds it.
        try markIndexFilledElsewhere { $0.fullText = FullTextTokenizer.version + 1 }
        let db = try Database(configuration: configuration(FTArticleV1.self))
        #expect(try ids(db, "body TEXT 'alpha'") == [1])
        #expect(try db.verify().isHealthy)
    }

    @Test func anIndexFilledWithAnotherFoldingIsReadThroughTheRowsThenRebuilt() throws {
        try write(["alpha beta"])
        try markIndexFilledElsewhere { $0.fullTextFolding = FullTextTokenizer.foldingDigest &+ 1 }
        do {
            var readOnly = configuration(FTArticleV1.self)
            readOnly.readOnly = true
            let db = try Database(configuration: readOnly)
            let results = try db.objects(FTArticleV1.self).filter("body TEXT 'zeta'")
            #expect(results.explain().hasPrefix("table scan"))
            #expect(results.isEmpty)
            #expect(try ids(db, "body TEXT 'alpha'") == [1])
        }
        let db = try Database(configuration: configuration(FTArticleV1.self))
        #expect(try db.objects(FTArticleV1.self).filter("body TEXT 'zeta'").explain().hasPrefix("full-text index lookup"))
        #expect(try ids(db, "body TEXT 'zeta'") == [])
        #expect(try db.verify().isHealthy)
    }

    @Test func aMigrationThatAddsOrDropsTheIndexOfAKeptPropertyAppliesIt() throws {
        try write(["alpha beta", "beta gamma"])
        do {
            let db = try Database(configuration: configuration(FTArticleV1.self, version: 1) { migration, _ in
                // The block's new schema has the index already.
                #expect(migration.newSchema["FTArticle"]?["body"]?.isFullTextIndexed == true)
            })
            #expect(try ids(db, "body TEXT 'beta'") == [1, 2])
            #expect(try db.verify().isHealthy)
        }
        let db = try Database(configuration: configuration(FTArticleV0.self, version: 2))
        #expect(throws: ObjDBError.self) { try db.objects(FTArticleV0.self).filter("body TEXT 'beta'") }
        #expect(try db.verify().isHealthy)
    }

    @Test func aMigrationRenamingAndAddingKeepsTheIndexRight() throws {
        try write(["alpha beta", "beta gamma"])
        let db = try Database(configuration: configuration(FTArticleV2.self, version: 1) { migration, _ in
            migration.renameProperty(onType: "FTArticle", from: "body", to: "text")
            try migration.enumerateObjects(ofType: "FTArticle") { _, new in
                if let new, (new["id"] as? Int) == 2 { new["text"] = "epsilon" }
            }
        })
        #expect(try ids(db, "text TEXT 'beta'") == [1])
        #expect(try ids(db, "text TEXT 'epsilon'") == [2])
        #expect(try db.verify().isHealthy)
    }

    @Test func encryptedFilesSearchExactWordsInTheIndexAndPrefixesInTheRows() throws {
        let key = Data((0..<64).map { UInt8($0) })
        try write(["secret alpha", "secret beta", "public gamma"], key: key)
        let db = try Database(configuration: configuration(FTArticleV1.self, key: key))
        #expect(try ids(db, "body TEXT 'secret'") == [1, 2])
        #expect(try ids(db, "body TEXT 'secret -alpha'") == [2])
        #expect(try ids(db, "body TEXT 'sec* -bet*'") == [1])
        #expect(try db.objects(FTArticleV1.self).filter("body TEXT 'secret'").explain().contains("full-text index lookup"))
        #expect(try db.objects(FTArticleV1.self).filter("body TEXT 'sec*'").explain().contains("table scan"))
        #expect(db.objects(FTArticleV1.self).search("secret beta", in: \.body).map(\.id) == [2])
        #expect(try db.verify().isHealthy)
    }

    @Test func copiesThatAddChangeOrRemoveTheKeyRebuildTheIndex() throws {
        let key = Data((0..<64).map { UInt8($0) })
        let other = Data((0..<64).map { UInt8(255 - $0) })
        try write(["secret alpha", "secret beta", "public gamma"])
        let steps: [(Data?, Data?)] = [(nil, key), (key, other), (other, nil)]
        for (index, (from, to)) in steps.enumerated() {
            let source = index == 0 ? directory.file() : directory.file("copy\(index - 1).objdb")
            do {
                var configuration = configuration(FTArticleV1.self, key: from)
                configuration.fileURL = source
                let db = try Database(configuration: configuration)
                try db.writeCopy(toFile: directory.file("copy\(index).objdb"), encryptionKey: to)
            }
            var configuration = configuration(FTArticleV1.self, key: to)
            configuration.fileURL = directory.file("copy\(index).objdb")
            let copy = try Database(configuration: configuration)
            #expect(try ids(copy, "body TEXT 'secret -beta'") == [1], "copy \(index)")
            #expect(copy.objects(FTArticleV1.self).search("gamma", in: \.body).map(\.id) == [3])
            #expect(try copy.verify().isHealthy, "copy \(index)")
        }
    }

    @Test func anEncryptedFilesIndexHoldsNoWord() throws {
        let key = Data((0..<64).map { UInt8($0) })
        try write(["secret alpha", "secret beta", "public gamma"], key: key)
        do { _ = try Database(configuration: configuration(FTArticleV1.self, key: key)) }
        let bytes = try Data(contentsOf: directory.file())
        for word in ["secret", "alpha", "gamma", "public"] { #expect(bytes.range(of: Data(word.utf8)) == nil, "\(word)") }
    }

    @Test func onlyStringsCanHaveAFullTextIndex() throws {
        let schema = ObjectSchema(
            className: "FTWrongType",
            properties: [
                Property(name: "id", type: .int, isPrimaryKey: true),
                Property(name: "count", type: .int, isFullTextIndexed: true),
            ])
        #expect(throws: ObjDBError.self) { try SchemaValidation.validate(schema) }
        let both = ObjectSchema(
            className: "FTBoth",
            properties: [Property(name: "body", type: .string, isIndexed: true, isFullTextIndexed: true)])
        #expect(throws: ObjDBError.self) { try SchemaValidation.validate(both) }
        #expect(Property(name: "body", type: .string, isFullTextIndexed: true).description == "body: String (full-text indexed)")
    }
}
