import Foundation
import GRDB
import ObjDB

/// The document of `--full-text` in ObjDB: an integer key and a full-text indexed body.
final class FullTextNote: Object {
    /// Primary key, 1...N.
    @Persisted(primaryKey: true) var id: Int = 0
    /// The text; full-text indexed.
    @Persisted(fullTextIndexed: true) var body: String = ""
}

/// The `--full-text` run: the same documents and queries in ObjDB and in SQLite FTS5 (through
/// GRDB, `fts5(body, tokenize = 'unicode61 remove_diacritics 2')`, rowid = key), each row timed
/// in both systems in one run, with the ratio ObjDB / FTS5 and the targets: queries no
/// slower than FTS5, the build at most 1.5× FTS5's.
///
/// Every query's answer (number of keys and their sum) must be the same in both systems; on a
/// disagreement an independent reading of the texts (``FullTextReference``) names the system
/// that is wrong and the run stops.
enum FullTextBench {
    /// One row of the table.
    enum Row: String, CaseIterable {
        case build = "index build (N documents, one transaction)"
        case single = "single-term queries, each match's identity (FTS5: its rowid)"
        case two = "two-term (AND) queries, identities"
        case prefix = "prefix queries (`abcd*`), identities"
        case exclusion = "exclusion queries (`a -b`), identities"
        case singleProperty = "single-term queries, each match's `id` property read"
        case singleText = "single-term queries, each match's text read"
        case singleCount = "single-term counts (index only)"
        case prefixCount = "prefix counts (index only)"
        case exclusionCount = "exclusion counts (index only)"
        case ranked = "ranked top-10 (BM25)"
        case update = "re-index 10 % (one transaction)"

        /// The target for the ratio ObjDB / FTS5.
        var target: Double {
            switch self {
            case .build: 1.5
            case .update, .singleProperty: .infinity
            default: 1.0
            }
        }
    }

    /// The database files of one repetition, both systems.
    private struct Systems {
        let objdb: ObjDB.Database
        let pool: DatabasePool
        let objdbPath: String
        let sqlitePath: String
    }

    /// Opens both databases in `directory`, empty.
    private static func open(_ directory: TempDirectory) throws -> Systems {
        let objdbPath = URL(fileURLWithPath: directory.path).appendingPathComponent("notes.objdb").path
        var config = ObjDB.Configuration(fileURL: URL(fileURLWithPath: objdbPath))
        config.objectTypes = [FullTextNote.self]
        config.maximumSize = mapSizeOverride
        let db = try ObjDB.Database(configuration: config)
        let sqlitePath = URL(fileURLWithPath: directory.path).appendingPathComponent("notes.sqlite").path
        let pool = try GRDBSystem.openPool(path: sqlitePath)
        try pool.write { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE note USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')")
        }
        return Systems(objdb: db, pool: pool, objdbPath: objdbPath, sqlitePath: sqlitePath)
    }

    /// ObjDB's matches as identities (`Results.identities`, FTS5's rowids): `TEXT` through the
    /// query DSL, every match's identity copied into an array; no object is read.
    private static func objdbIdentities(_ db: ObjDB.Database, _ queries: [FullTextCorpus.Query]) -> [[ObjectIdentity]] {
        let notes = db.objects(FullTextNote.self)
        return queries.map { query in Array(notes.where({ $0.body.fullTextMatches(query.objdb) }).identities) }
    }

    /// The answers the identities stand for (untimed): each identity looked up again for its
    /// note's `id`.
    private static func answers(_ db: ObjDB.Database, _ identities: [[ObjectIdentity]]) throws -> [FullTextAnswer] {
        try identities.map { matches in
            var answer = FullTextAnswer()
            for identity in matches {
                guard let note = db.object(ofType: FullTextNote.self, identifiedBy: identity) else {
                    throw CheckFailure(description: "full-text: an identity of a match names no note")
                }
                answer.add(note.id)
            }
            return answer
        }
    }

    /// ObjDB's answers: `TEXT` through the query DSL, the keys read from each result.
    private static func objdbAnswers(_ db: ObjDB.Database, _ queries: [FullTextCorpus.Query]) -> [FullTextAnswer] {
        let notes = db.objects(FullTextNote.self)
        return queries.map { query in
            var answer = FullTextAnswer()
            for note in notes.where({ $0.body.fullTextMatches(query.objdb) }) { answer.add(note.id) }
            return answer
        }
    }

    /// ObjDB's matches with their texts: each match's key plus its text's length in bytes.
    private static func objdbTexts(_ db: ObjDB.Database, _ queries: [FullTextCorpus.Query]) -> [FullTextAnswer] {
        let notes = db.objects(FullTextNote.self)
        return queries.map { query in
            var answer = FullTextAnswer()
            for note in notes.where({ $0.body.fullTextMatches(query.objdb) }) { answer.add(note.id &+ note.body.utf8.count) }
            return answer
        }
    }

    /// FTS5's matches with their texts: `SELECT rowid, body … MATCH`.
    private static func fts5Texts(_ pool: DatabasePool, _ queries: [FullTextCorpus.Query]) throws -> [FullTextAnswer] {
        try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT rowid, body FROM note WHERE note MATCH ?")
            return try queries.map { query in
                var answer = FullTextAnswer()
                let rows = try GRDB.Row.fetchCursor(statement, arguments: [query.fts5])
                while let row = try rows.next() {
                    let key: Int = row[0]
                    let body: String = row[1]
                    answer.add(key &+ body.utf8.count)
                }
                return answer
            }
        }
    }

    /// ObjDB's numbers of matches: `count`, which a full-text plan answers from the index
    /// without reading the objects.
    private static func objdbCounts(_ db: ObjDB.Database, _ queries: [FullTextCorpus.Query]) -> [Int] {
        let notes = db.objects(FullTextNote.self)
        return queries.map { query in notes.where({ $0.body.fullTextMatches(query.objdb) }).count }
    }

    /// FTS5's numbers of matches: `SELECT count(*) … MATCH`.
    private static func fts5Counts(_ pool: DatabasePool, _ queries: [FullTextCorpus.Query]) throws -> [Int] {
        try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT count(*) FROM note WHERE note MATCH ?")
            return try queries.map { try Int.fetchOne(statement, arguments: [$0.fts5]) ?? -1 }
        }
    }

    /// FTS5's answers: the rowids of `MATCH`, one cached statement.
    private static func fts5Answers(_ pool: DatabasePool, _ queries: [FullTextCorpus.Query]) throws -> [FullTextAnswer] {
        try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT rowid FROM note WHERE note MATCH ?")
            return try queries.map { query in
                var answer = FullTextAnswer()
                let keys = try Int.fetchCursor(statement, arguments: [query.fts5])
                while let key = try keys.next() { answer.add(key) }
                return answer
            }
        }
    }

    /// ObjDB's ten most relevant keys per query (`search(_:in:).prefix(10)`).
    private static func objdbRanked(_ db: ObjDB.Database, _ queries: [FullTextCorpus.Query]) -> [[Int]] {
        let notes = db.objects(FullTextNote.self)
        return queries.map { query in notes.search(query.objdb, in: \FullTextNote.body).prefix(10).map { $0.id } }
    }

    /// FTS5's ten most relevant keys per query (`ORDER BY rank LIMIT 10`, rank = bm25()).
    private static func fts5Ranked(_ pool: DatabasePool, _ queries: [FullTextCorpus.Query]) throws -> [[Int]] {
        try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT rowid FROM note WHERE note MATCH ? ORDER BY rank LIMIT 10")
            return try queries.map { try Int.fetchAll(statement, arguments: [$0.fts5]) }
        }
    }

    /// Stops the run unless both systems gave the same answers; the independent reading says
    /// which one is wrong.
    private static func check(
        _ what: String, _ queries: [FullTextCorpus.Query], _ objdb: [FullTextAnswer], _ fts5: [FullTextAnswer],
        _ reference: () -> FullTextReference
    ) throws {
        guard let index = queries.indices.first(where: { objdb[$0] != fts5[$0] }) else { return }
        let expected = reference().answer(queries[index])
        throw CheckFailure(description: """
            full-text \(what): query \(index) '\(queries[index].objdb)' gave \(objdb[index]) in ObjDB and \(fts5[index]) \
            in FTS5; a reading of the texts gives \(expected)
            """)
    }

    /// The size of the file at `path` in MiB (with SQLite's `-wal`, if any).
    private static func mebibytes(_ path: String) -> Double {
        let files = [path, path + "-wal"]
        let bytes = files.compactMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }.reduce(0, +)
        return Double(bytes) / 1_048_576
    }

    /// One repetition: times per row for (ObjDB, FTS5) in nanoseconds, the file sizes, and
    /// the overlap of the ranked top-10 lists.
    private static func measure(_ corpus: FullTextCorpus, queryCount: Int) throws -> (times: [Row: (UInt64, UInt64)], sizes: (Double, Double), overlap: Double) {
        let directory = try TempDirectory()
        defer { directory.remove() }
        let systems = try open(directory)
        let (db, pool) = (systems.objdb, systems.pool)
        var times: [Row: (UInt64, UInt64)] = [:]
        var cachedReference: FullTextReference?
        var updated = false
        func reference() -> FullTextReference {
            if let cachedReference { return cachedReference }
            let made = FullTextReference(corpus, updated: updated)
            cachedReference = made
            return made
        }

        settleDisk()
        let objdbBuild = try timedRegion {
            try db.write {
                for (index, text) in corpus.documents.enumerated() {
                    let note = FullTextNote()
                    (note.id, note.body) = (index + 1, text)
                    try db.add(note)
                }
            }
        }
        settleDisk()
        let fts5Build = try timedRegion {
            try pool.write { db in
                let statement = try db.cachedStatement(sql: "INSERT INTO note (rowid, body) VALUES (?, ?)")
                for (index, text) in corpus.documents.enumerated() { try statement.execute(arguments: [index + 1, text]) }
            }
        }
        times[.build] = (objdbBuild, fts5Build)
        let sizes = (mebibytes(systems.objdbPath), mebibytes(systems.sqlitePath))
        progress("full-text: built, ObjDB \(fixed(Double(objdbBuild) / 1e6, 1)) ms, FTS5 \(fixed(Double(fts5Build) / 1e6, 1)) ms")

        let kinds: [(Row, FullTextCorpus.QueryKind)] = [(.single, .single), (.two, .two), (.prefix, .prefix), (.exclusion, .exclusion)]
        for (row, kind) in kinds {
            let queries = corpus.queries(kind, count: queryCount)
            var identities: [[ObjectIdentity]] = []
            var fts5: [FullTextAnswer] = []
            let objdbTime = timedAfterWarmUp { identities = objdbIdentities(db, queries) }
            let fts5Time = try timedAfterWarmUp { fts5 = try fts5Answers(pool, queries) }
            let objdb = try answers(db, identities)
            try check(row.rawValue, queries, objdb, fts5, reference)
            times[row] = (objdbTime, fts5Time)
            let hits = objdb.reduce(0) { $0 + $1.count }
            progress("full-text: \(row.rawValue): \(hits) keys in all, ObjDB \(fixed(Double(objdbTime) / 1e6, 1)) ms, FTS5 \(fixed(Double(fts5Time) / 1e6, 1)) ms")
        }

        do {
            let queries = corpus.queries(.single, count: queryCount)
            var objdb: [FullTextAnswer] = []
            var fts5: [FullTextAnswer] = []
            let objdbTime = timedAfterWarmUp { objdb = objdbAnswers(db, queries) }
            let fts5Time = try timedAfterWarmUp { fts5 = try fts5Answers(pool, queries) }
            try check(Row.singleProperty.rawValue, queries, objdb, fts5, reference)
            times[.singleProperty] = (objdbTime, fts5Time)
        }

        do {
            let queries = corpus.queries(.single, count: queryCount)
            var objdb: [FullTextAnswer] = []
            var fts5: [FullTextAnswer] = []
            let objdbTime = timedAfterWarmUp { objdb = objdbTexts(db, queries) }
            let fts5Time = try timedAfterWarmUp { fts5 = try fts5Texts(pool, queries) }
            try check(Row.singleText.rawValue, queries, objdb, fts5, reference)
            times[.singleText] = (objdbTime, fts5Time)
        }

        let countKinds: [(Row, FullTextCorpus.QueryKind)] = [(.singleCount, .single), (.prefixCount, .prefix), (.exclusionCount, .exclusion)]
        for (row, kind) in countKinds {
            let queries = corpus.queries(kind, count: queryCount)
            var objdb: [Int] = []
            var fts5: [Int] = []
            let objdbTime = timedAfterWarmUp { objdb = objdbCounts(db, queries) }
            let fts5Time = try timedAfterWarmUp { fts5 = try fts5Counts(pool, queries) }
            try check(
                row.rawValue, queries, objdb.map { FullTextAnswer(count: $0, sum: 0) }, fts5.map { FullTextAnswer(count: $0, sum: 0) }, reference)
            times[row] = (objdbTime, fts5Time)
        }

        let rankedQueries = corpus.queries(.single, count: queryCount)
        var objdbTop: [[Int]] = []
        var fts5Top: [[Int]] = []
        let objdbRankedTime = timedAfterWarmUp { objdbTop = objdbRanked(db, rankedQueries) }
        let fts5RankedTime = try timedAfterWarmUp { fts5Top = try fts5Ranked(pool, rankedQueries) }
        for index in rankedQueries.indices where objdbTop[index].count != fts5Top[index].count {
            throw CheckFailure(description: "full-text ranked: query '\(rankedQueries[index].objdb)' gave \(objdbTop[index].count) keys in ObjDB, \(fts5Top[index].count) in FTS5")
        }
        times[.ranked] = (objdbRankedTime, fts5RankedTime)
        let shared = zip(objdbTop, fts5Top).reduce(0) { $0 + Set($1.0).intersection($1.1).count }
        let overlap = Double(shared) / Double(max(1, fts5Top.reduce(0) { $0 + $1.count }))

        settleDisk()
        let objdbUpdate = try timedRegion {
            try db.write {
                for (id, text) in zip(corpus.updatedIDs, corpus.updates) {
                    guard let note = db.object(ofType: FullTextNote.self, forPrimaryKey: id) else {
                        throw CheckFailure(description: "full-text update: no note \(id) in ObjDB")
                    }
                    note.body = text
                }
            }
        }
        settleDisk()
        let fts5Update = try timedRegion {
            try pool.write { db in
                let statement = try db.cachedStatement(sql: "UPDATE note SET body = ? WHERE rowid = ?")
                for (id, text) in zip(corpus.updatedIDs, corpus.updates) {
                    try statement.execute(arguments: [text, id])
                    guard db.changesCount == 1 else { throw CheckFailure(description: "full-text update: no note \(id) in FTS5") }
                }
            }
        }
        times[.update] = (objdbUpdate, fts5Update)
        // The indexes after the update: every kind of query again, untimed.
        updated = true
        cachedReference = nil
        for kind in FullTextCorpus.QueryKind.allCases {
            let queries = corpus.queries(kind, count: queryCount)
            try check("after the update, \(kind)", queries, objdbAnswers(db, queries), try fts5Answers(pool, queries), reference)
        }
        try pool.close()
        return (times, sizes, overlap)
    }

    /// Runs `repetitions` times on `n` generated documents with `queryCount` queries per row;
    /// returns the table of medians.
    static func run(n: Int, queryCount: Int, repetitions: Int) throws -> String {
        progress("full-text: generating \(n) documents")
        let corpus = FullTextCorpus(n: n)
        var objdbTimes: [Row: [UInt64]] = [:]
        var fts5Times: [Row: [UInt64]] = [:]
        var sizes: (Double, Double) = (0, 0)
        var overlap = 0.0
        for repetition in 0..<repetitions {
            let result = try measure(corpus, queryCount: queryCount)
            for (row, (objdb, fts5)) in result.times {
                objdbTimes[row, default: []].append(objdb)
                fts5Times[row, default: []].append(fts5)
            }
            (sizes, overlap) = (result.sizes, result.overlap)
            progress("full-text repetition \(repetition + 1)/\(repetitions)")
        }
        var table = MarkdownTable(headers: ["Row", "ObjDB ms", "FTS5 ms", "ObjDB / FTS5", "Target", "Met"])
        for row in Row.allCases {
            let objdb = median(objdbTimes[row] ?? []) / 1_000_000
            let fts5 = median(fts5Times[row] ?? []) / 1_000_000
            let ratio = objdb / max(fts5, 1e-9)
            let target = row.target.isFinite ? "≤ " + fixed(row.target, 1) + "×" : "—"
            let met = row.target.isFinite ? (ratio <= row.target ? "yes" : "no") : "—"
            table.append([row.rawValue, fixed(objdb, 1), fixed(fts5, 1), fixed(ratio, 2) + "×", target, met])
        }
        let words = corpus.documents.reduce(0) { $0 + $1.split(separator: " ").count }
        return table.render() + """


            \(formatCount(n)) documents, \(formatCount(words)) words over a vocabulary of \(formatCount(FullTextCorpus.vocabularySize)); \
            \(formatCount(queryCount)) queries per query row, every answer (keys and their sum) equal in both systems, \
            before and after the update. Files after the build: ObjDB \(fixed(sizes.0, 1)) MiB, FTS5 \(fixed(sizes.1, 1)) MiB \
            (with its WAL). Ranked top-10: \(fixed(overlap * 100, 1)) % of FTS5's keys also in ObjDB's.
            """
    }
}
