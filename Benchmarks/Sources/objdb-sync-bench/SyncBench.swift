import Foundation
import JWTKit
import Logging
import ObjDB
import ObjDBSync
import ObjDBSyncServer
import ObjDBSyncTestSupport
import PostgresNIO

/// The claims of the benchmark's tokens.
struct BenchClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
}

/// The sync benchmark (issue item 7): each row against its floor, in one process, one run.
///
/// 1. Initial download of N objects: a fresh client's `start()` → `waitForDownload()` on an
///    empty file; floor: postgres-nio reading the same rows, decoded, plus ObjDB inserting
///    them in one write transaction.
/// 2. Upload of U offline single-object commits: `start()` → `waitForUpload()`; floor: one
///    `INSERT … SELECT FROM UNNEST(arrays) ON CONFLICT (id) DO UPDATE` of the same rows.
/// 3. A commit on client A's file → the observer of client B's app instance, C clients
///    subscribed, p50/p99.
/// 4. An `UPDATE` through postgres-nio → the observer of a client's app instance, p50/p99.
struct SyncBench {
    let options: Options
    let secret: [UInt8] = Array("objdb-sync-bench-secret-0123456789".utf8)
    let directory: URL
    let logger: Logger

    init(options: Options) throws {
        self.options = options
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("objdb-sync-bench-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var logger = Logger(label: "objdb.sync.bench")
        logger.logLevel = .warning
        self.logger = logger
    }

    /// Results of the run, in seconds and milliseconds.
    struct Figures {
        var download = 0.0, downloadFloor = 0.0, queryDownload = 0.0
        var upload = 0.0, uploadFloor = 0.0
        var seed = 0.0
        var aToB: [Double] = []
        var sqlToClient: [Double] = []
        var breakdown: [(String, Double)] = []
    }

    func run() async throws -> String {
        defer { try? FileManager.default.removeItem(at: directory) }
        var figures = Figures()
        progress("starting PostgreSQL")
        let bulk = try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_sync_bench")
        let server = try await makeServer(bulk)
        do {
            try await throughput(bulk, server, &figures)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
        let small = try await TemporaryPostgres.shared.makeDatabase(prefix: "objdb_sync_bench")
        let latencyServer = try await makeServer(small)
        do {
            try await latency(small, latencyServer, &figures)
        } catch {
            try? await latencyServer.stop()
            throw error
        }
        try await latencyServer.stop()
        return report(figures)
    }

    // MARK: Setup

    func makeServer(_ db: TemporaryPostgres.Database) async throws -> SyncServer {
        let server = try await SyncServer(
            configuration: .init(
                postgresURL: db.url, host: "127.0.0.1", port: 0, authentication: .hs256(secret: secret), rules: .allowAll,
                createsTablesFromClientSchemas: true, logger: logger))
        try await server.start()
        return server
    }

    func token(user: String) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return try await keys.sign(BenchClaims(sub: .init(value: user), exp: .init(value: Date().addingTimeInterval(24 * 3600))))
    }

    func configuration(_ name: String) -> Configuration {
        var config = Configuration(fileURL: directory.appendingPathComponent(name))
        config.objectTypes = [BenchItem.self]
        return config
    }

    /// A client of file `name`, subscribed to every `BenchItem` unless `subscribed` is false.
    func client(_ name: String, _ server: SyncServer, subscribed: Bool = true) async throws -> SyncClient {
        let token = try await token(user: "bench")
        let client = try SyncClient(
            configuration: configuration(name),
            sync: SyncConfiguration(serverURL: URL(string: "ws://127.0.0.1:\(server.port)/sync")!, token: { token }))
        if subscribed { try await client.subscriptions.update { $0.append(QuerySubscription<BenchItem>()) } }
        return client
    }

    static let columns = #""id", "name", "count", "score", "created", "flag""#

    /// Inserts or updates `rows` in `table` with one statement of arrays.
    func upsert(_ rows: [ItemRow], into table: String, on connection: PostgresConnection) async throws {
        let ids = rows.map(\.id), names = rows.map(\.name), counts = rows.map(\.count)
        let scores = rows.map(\.score), dates = rows.map(\.created), flags = rows.map(\.flag)
        var query = PostgresQuery(
            unsafeSQL: """
                INSERT INTO \(table) (\(Self.columns))
                SELECT * FROM UNNEST($1::text[], $2::text[], $3::int8[], $4::float8[], $5::float8[], $6::bool[])
                ON CONFLICT ("id") DO UPDATE SET "name" = EXCLUDED."name", "count" = EXCLUDED."count",
                "score" = EXCLUDED."score", "created" = EXCLUDED."created", "flag" = EXCLUDED."flag"
                """)
        query.binds.append(ids)
        query.binds.append(names)
        query.binds.append(counts)
        query.binds.append(scores)
        query.binds.append(dates)
        query.binds.append(flags)
        try await connection.query(query, logger: logger)
    }

    func count(_ sql: String, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        for try await n in rows.decode(Int.self) { return n }
        return 0
    }

    // MARK: Rows 1 and 2

    func throughput(_ pg: TemporaryPostgres.Database, _ server: SyncServer, _ figures: inout Figures) async throws {
        let n = options.n
        let connection = try await pg.connect(logger: logger)
        defer { Task { [connection] in try? await connection.close() } }

        // The table, made by the service from a first client's schema; then N rows by SQL.
        let seeder = try await client("seed.objdb", server)
        await seeder.start()
        try await seeder.waitForDownload()
        await seeder.stop()
        progress("seeding \(n) rows")
        let rows = ItemRow.make(n, prefix: "item")
        var start = monotonicNanoseconds()
        for chunk in stride(from: 0, to: n, by: 50_000) {
            try await upsert(Array(rows[chunk..<min(n, chunk + 50_000)]), into: #""BenchItem""#, on: connection)
        }
        figures.seed = seconds(since: start)

        // Row 1: a fresh client on an empty file.
        progress("row 1: initial download of \(n) objects")
        let fresh = try await client("download.objdb", server)
        start = settledStart()
        await fresh.start()
        try await fresh.waitForDownload()
        figures.download = seconds(since: start)
        await fresh.stop()
        let downloaded = try Database(configuration: configuration("download.objdb"), isolation: nil)
        guard downloaded.objects(BenchItem.self).count == n else {
            throw BenchFailure("the fresh client holds \(downloaded.objects(BenchItem.self).count) objects, not \(n)")
        }
        guard let sample = downloaded.object(ofType: BenchItem.self, forPrimaryKey: rows[n / 2].id),
            sample.name == rows[n / 2].name, sample.created == Date(timeIntervalSince1970: rows[n / 2].created)
        else { throw BenchFailure("a downloaded object differs from its row") }

        // Row 1b: the same download by a query subscription that selects every object (its
        // condition evaluated by PostgreSQL for each row).
        progress("row 1b: initial download of \(n) objects by a query subscription")
        let queried = try await client("download-query.objdb", server, subscribed: false)
        try await queried.subscriptions.update { $0.append(QuerySubscription<BenchItem>(name: "all", where: "count >= 0 AND name BEGINSWITH 'Item'")) }
        start = settledStart()
        await queried.start()
        try await queried.waitForDownload()
        figures.queryDownload = seconds(since: start)
        await queried.stop()
        let queriedCount = try Database(configuration: configuration("download-query.objdb"), isolation: nil).objects(BenchItem.self).count
        guard queriedCount == n else { throw BenchFailure("the query subscription downloaded \(queriedCount) objects, not \(n)") }

        // Its floor: read and decode the rows, insert them in one transaction.
        var floorConfig = configuration("download-floor.objdb")
        floorConfig.objectTypes = [BenchItem.self]
        let floorDB = try Database(configuration: floorConfig, isolation: nil)
        start = settledStart()
        // Dates are `numeric` (exact seconds); the floor reads them as float8.
        let select = #"SELECT "id", "name", "count", "score", "created"::float8, "flag" FROM "BenchItem""#
        let result = try await connection.query(PostgresQuery(unsafeSQL: select), logger: logger)
        var read: [ItemRow] = []
        read.reserveCapacity(n)
        for try await (id, name, count, score, created, flag) in result.decode((String, String, Int, Double, Double, Bool).self) {
            read.append(ItemRow(id: id, name: name, count: count, score: score, created: created, flag: flag))
        }
        try floorDB.write {
            for row in read { try floorDB.add(row.object()) }
        }
        figures.downloadFloor = seconds(since: start)
        guard floorDB.objects(BenchItem.self).count == n else { throw BenchFailure("the download floor wrote the wrong count") }
        if options.breakdown {
            progress("breakdown of row 1")
            figures.breakdown = try Breakdown.coding(rows)
            // The service's read of a whole table: the key as text, scalars in binary, the date
            // (numeric seconds since 1970) as float8 seconds since 2001.
            start = monotonicNanoseconds()
            let read = try await connection.query(
                #"SELECT "id"::text, "id", "name", "count", "score", ("created" - 978307200)::float8, "flag" FROM "BenchItem""#,
                logger: logger)
            var cells = 0
            for try await (_, _, _, _, _, created, _) in read.decode((String, String, String, Int, Double, Double, Bool).self) {
                if created.isFinite { cells += 1 }
            }
            figures.breakdown.append(("the service's SELECT, decoded (scalars in binary)", seconds(since: start)))
            guard cells == n else { throw BenchFailure("the read got \(cells) rows") }
        }

        // Row 2: U single-object commits on a file whose client is stopped, then uploaded.
        let u = options.uploads
        progress("row 2: \(u) offline commits (untimed), then their upload")
        let uploads = ItemRow.make(u, prefix: "up")
        let uploader = try await client("upload.objdb", server, subscribed: false)
        let app = try Database(configuration: configuration("upload.objdb"), isolation: nil)
        for row in uploads { try app.write { try app.add(row.object()) } }
        start = settledStart()
        await uploader.start()
        try await uploader.waitForUpload()
        figures.upload = seconds(since: start)
        await uploader.stop()
        let uploaded = try await count(#"SELECT count(*)::int8 FROM "BenchItem" WHERE id LIKE 'up-%'"#, on: connection)
        guard uploaded == u else { throw BenchFailure("\(uploaded) uploaded rows in PostgreSQL, not \(u)") }

        // Its floor: the same rows in one statement, into a table of the same columns.
        try await connection.query(#"CREATE TABLE bench_upload_floor (LIKE "BenchItem" INCLUDING ALL)"#, logger: logger)
        start = settledStart()
        try await upsert(uploads, into: "bench_upload_floor", on: connection)
        figures.uploadFloor = seconds(since: start)
        let floorRows = try await count("SELECT count(*)::int8 FROM bench_upload_floor", on: connection)
        guard floorRows == u else { throw BenchFailure("the upload floor wrote \(floorRows) rows") }
        if options.breakdown {
            figures.breakdown.append(try Breakdown.uploadDecoding(uploads, batch: 2_500))
            // The same statement into the synced table: what its change-feed triggers add.
            let again = ItemRow.make(u, prefix: "trig")
            start = monotonicNanoseconds()
            try await upsert(again, into: #""BenchItem""#, on: connection)
            figures.breakdown.append(("row 2's floor statement into the synced table (its triggers)", seconds(since: start)))
            start = monotonicNanoseconds()
            for chunk in stride(from: 0, to: u, by: 1000) {
                try await upsert(Array(again[chunk..<min(u, chunk + 1000)]), into: #""BenchItem""#, on: connection)
            }
            figures.breakdown.append(("the same rows again (updates), by 1,000", seconds(since: start)))
        }
        try await connection.close()
    }

    // MARK: Rows 3 and 4

    func latency(_ pg: TemporaryPostgres.Database, _ server: SyncServer, _ figures: inout Figures) async throws {
        let c = options.clients
        progress("rows 3 and 4: \(c) clients")
        let rows = ItemRow.make(100, prefix: "ping")
        var clients: [SyncClient] = []
        var apps: [Database] = []
        var observers: [AppObserver] = []
        let arrivals = Arrivals()
        for i in 0..<c {
            let client = try await client("latency-\(i).objdb", server)
            clients.append(client)
            apps.append(try Database(configuration: configuration("latency-\(i).objdb"), isolation: nil))
        }
        defer {
            let all = clients
            let obs = observers
            Task {
                for o in obs { await o.stop() }
                for client in all { await client.stop() }
            }
        }
        try apps[0].write { for row in rows { try apps[0].add(row.object()) } }
        for client in clients { await client.start() }
        try await clients[0].waitForUpload()
        for client in clients { try await client.waitForDownload() }
        for (i, app) in apps.enumerated() {
            app.refresh()
            guard app.objects(BenchItem.self).count == rows.count else { throw BenchFailure("client \(i) did not download the objects") }
            let observer = AppObserver(client: i, arrivals: arrivals)
            try await observer.start(configuration("latency-\(i).objdb"))
            observers.append(observer)
        }

        // Row 3: A commits, B's app instance observes; A and B move around the clients.
        let samples = options.samples
        for k in 0..<samples {
            let a = k % c
            let b = (k + 1) % c
            let row = rows[k % rows.count]
            let name = "a\(k)"
            arrivals.expect(Expected(sample: k, client: b, id: row.id, name: name))
            let start = monotonicNanoseconds()
            let app = apps[a]
            try app.write { app.object(ofType: BenchItem.self, forPrimaryKey: row.id)?.name = name }
            guard let end = await arrivals.wait(k) else { throw BenchFailure("row 3: client \(b) saw no change for commit \(k)") }
            figures.aToB.append(Double(end - start) / 1e6)
            try await Task.sleep(for: .milliseconds(5))
        }

        // Row 4: an UPDATE by SQL, client 0's app instance observes.
        let connection = try await pg.connect(logger: logger)
        let sqlSamples = max(1, samples / 2)
        for k in 0..<sqlSamples {
            let row = rows[k % rows.count]
            let name = "sql\(k)"
            arrivals.expect(Expected(sample: samples + k, client: 0, id: row.id, name: name))
            let start = monotonicNanoseconds()
            try await connection.query(#"UPDATE "BenchItem" SET "name" = \#(name) WHERE "id" = \#(row.id)"#, logger: logger)
            guard let end = await arrivals.wait(samples + k) else { throw BenchFailure("row 4: no change seen for update \(k)") }
            figures.sqlToClient.append(Double(end - start) / 1e6)
            try await Task.sleep(for: .milliseconds(5))
        }
        try await connection.close()
        for o in observers { await o.stop() }
        for client in clients { await client.stop() }
        observers = []
        clients = []
    }

    // MARK: Report

    func report(_ f: Figures) -> String {
        func ms(_ s: Double) -> String { String(format: "%.0f ms", s * 1000) }
        func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f×", a / b) }
        func met(_ ok: Bool) -> String { ok ? "met" : "**not met**" }
        let p50 = percentile(f.aToB, 0.5), p99 = percentile(f.aToB, 0.99)
        let s50 = percentile(f.sqlToClient, 0.5), s99 = percentile(f.sqlToClient, 0.99)
        let memory = String(format: "%.1f", Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824)
        #if DEBUG
        let build = "debug (use -c release for real numbers)"
        #else
        let build = "release"
        #endif
        let n = grouped(options.n), u = grouped(options.uploads)
        var breakdown = ""
        if !f.breakdown.isEmpty {
            breakdown = "\n\n| Rows 1 and 2, piece by piece (one thread) | ms |\n|:--|--:|\n"
            breakdown += f.breakdown.map { "| \($0.0) | \(String(format: "%.1f", $0.1 * 1000)) |" }.joined(separator: "\n")
        }
        return """
            # ObjDB sync benchmark

            Machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(memory) GiB RAM, \
            \(ProcessInfo.processInfo.operatingSystemVersionString); build: \(build); one run. \
            PostgreSQL: \(options.postgres == nil ? "a temporary cluster (fsync=off, synchronous_commit=off)" : "--postgres"); \
            the service and the clients in this process, over 127.0.0.1; ObjDB files with the default durability (.full).

            | Row | ObjDB Sync | Floor | Ratio | Target | |
            |:--|--:|--:|--:|:--|:--|
            | initial download, \(n) objects | \(ms(f.download)) | \(ms(f.downloadFloor)) | \(ratio(f.download, f.downloadFloor)) | ≤ 2× | \(met(f.download <= 2 * f.downloadFloor)) |
            | initial download, \(n) objects, by a query subscription | \(ms(f.queryDownload)) | \(ms(f.downloadFloor)) | \(ratio(f.queryDownload, f.downloadFloor)) | ≤ 2× | \(met(f.queryDownload <= 2 * f.downloadFloor)) |
            | upload, \(u) offline commits | \(ms(f.upload)) | \(ms(f.uploadFloor)) | \(ratio(f.upload, f.uploadFloor)) | ≤ 2× | \(met(f.upload <= 2 * f.uploadFloor)) |

            | Latency (\(options.clients) clients subscribed) | Samples | p50 | p99 | Target | |
            |:--|--:|--:|--:|:--|:--|
            | commit on A → B's observer | \(f.aToB.count) | \(String(format: "%.1f ms", p50)) | \(String(format: "%.1f ms", p99)) | p50 ≤ 10 ms, p99 ≤ 50 ms | \(met(p50 <= 10 && p99 <= 50)) |
            | SQL `UPDATE` → a client's observer | \(f.sqlToClient.count) | \(String(format: "%.1f ms", s50)) | \(String(format: "%.1f ms", s99)) | — | |

            Floors: download = postgres-nio `SELECT` of the \(n) rows, decoded, + one ObjDB `write` adding them; \
            upload = one `INSERT … SELECT FROM UNNEST($1…$6) ON CONFLICT (id) DO UPDATE` of the \(u) rows into a table \
            of the same columns without the sync triggers. Seeding the \(n) rows by the same statement (untimed in the rows): \(ms(f.seed)).\(breakdown)
            """
    }
}
