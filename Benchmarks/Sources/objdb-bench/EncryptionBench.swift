import Foundation
@_spi(Benchmarks) import ObjDB

/// The `--encryption` run: the same work on a file without and with
/// `Configuration.encryptionKey`, and the ratio (target: each within 2×).
enum EncryptionBench {
    /// The rows of the table, in order.
    static let scenarios = [
        "insert", "read all", "pk lookups", "indexed equality (first)", "update all", "update all (cold)", "pk lookups (cold)",
    ]
    static let key = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 7) })

    /// Runs every scenario on a fresh file with `key` (or none); returns nanoseconds per scenario.
    private static func measure(key: Data?, _ people: [PersonData], _ ids: [Int], _ ages: [Int]) throws -> [String: UInt64] {
        let directory = try TempDirectory()
        defer { directory.remove() }
        var config = ObjDBSystem.configuration(directory: directory.path)
        config.encryptionKey = key
        var times: [String: UInt64] = [:]
        do {
            let db = try Database(configuration: config)
            settleDisk()
            times["insert"] = try timedRegion {
                try db.write { for person in people { try db.add(ObjDBSystem.makeObject(person)) } }
            }
        }
        // Each scenario on an instance of its own, the earlier ones kept. Read all is the first
        // to read the version the insert made. In an encrypted file the snapshots of one version
        // share what they decrypted, so the lookups and the update after it find its buckets
        // open; the "(cold)" rows repeat the update and the lookups on a version no snapshot has
        // read, so that they decrypt every bucket they use themselves.
        func fresh() throws -> Database { try Database(configuration: config) }
        var checks: [String: Int] = [:]
        let readAll = try fresh()
        times["read all"] = timedRegion {
            var sum = 0
            for person in readAll.objects(ObjDBPerson.self) { sum &+= person.age &+ person.name.utf8.count &+ Int(person.score) }
            checks["read all"] = sum
        }
        let pk = try fresh()
        times["pk lookups"] = timedRegion {
            var sum = 0
            for id in ids { sum &+= pk.object(ofType: ObjDBPerson.self, forPrimaryKey: id)?.age ?? -1_000_000 }
            checks["pk lookups"] = sum
        }
        let indexed = try fresh()
        times["indexed equality (first)"] = timedRegion {
            var sum = 0
            for age in ages { sum &+= indexed.objects(ObjDBPerson.self).where { $0.age == age }.first?.age ?? -1_000_000 }
            checks["indexed equality (first)"] = sum
        }
        let update = try fresh()
        times["update all"] = try timedRegion {
            try update.write { for person in update.objects(ObjDBPerson.self) { person.score += 1 } }
        }
        let coldUpdate = try fresh()
        times["update all (cold)"] = try timedRegion {
            try coldUpdate.write { for person in coldUpdate.objects(ObjDBPerson.self) { person.score += 1 } }
        }
        let coldPK = try fresh()
        times["pk lookups (cold)"] = timedRegion {
            var sum = 0
            for id in ids { sum &+= coldPK.object(ofType: ObjDBPerson.self, forPrimaryKey: id)?.age ?? -1_000_000 }
            checks["pk lookups (cold)"] = sum
        }
        // The warm rows rely on the earlier instances' snapshots living to here.
        withExtendedLifetime((readAll, pk, indexed, update, coldUpdate, coldPK)) {}
        let expected = [
            "read all": people.reduce(0) { $0 &+ $1.age &+ $1.name.utf8.count &+ Int($1.score) },
            "pk lookups": ids.reduce(0) { $0 &+ people[$1 - 1].age },
            "pk lookups (cold)": ids.reduce(0) { $0 &+ people[$1 - 1].age },
            "indexed equality (first)": ages.reduce(0, &+),
        ]
        for (name, value) in expected where checks[name] != value {
            throw CheckFailure(description: "encryption \(key == nil ? "off" : "on"): \(name) gave \(checks[name] ?? 0), expected \(value)")
        }
        if key != nil {
            for (name, ns) in try floor(try fresh()) { times[name] = ns }
        }
        let scores = try fresh().objects(ObjDBPerson.self).reduce(0.0) { $0 + $1.score }
        let expectedScores = people.reduce(0.0) { $0 + $1.score + 2 }
        guard abs(scores - expectedScores) < 1e-3 * Double(people.count) else {
            throw CheckFailure(description: "encryption \(key == nil ? "off" : "on"): update all left scores summing to \(scores), expected \(expectedScores)")
        }
        return times
    }

    /// The floor rows: the cipher alone on the same rows' plaintexts, with no database
    /// (``CipherFloor``), keyed by name; each measured once untimed, then timed. Nanoseconds for
    /// all rows.
    static let floorRows: [(name: String, label: String)] = [
        ("floor open aes", "open, AES-256-GCM, prepared context"),
        ("floor open chacha", "open, ChaCha20-Poly1305, prepared context"),
        ("floor seal aes", "seal, AES-256-GCM, prepared context"),
        ("floor seal chacha", "seal, ChaCha20-Poly1305, prepared context"),
        ("floor open objdb", "open as a read calls it (StoreCipher: associated data built)"),
        ("floor seal objdb", "seal as a write calls it (StoreCipher: nonce, associated data)"),
        ("floor index key", "index key as ObjDB makes it (HMAC-SHA256, prepared, 16 bytes kept)"),
        ("floor open aes x8", "open, AES-256-GCM, 8 consecutive rows per message"),
        ("floor open aes x16", "open, AES-256-GCM, 16 consecutive rows per message (the format's row buckets)"),
    ]

    /// Measures ``floorRows`` on the rows `db` reads; throws if a row does not seal or open.
    private static func floor(_ db: Database) throws -> [String: UInt64] {
        #if canImport(Darwin)
        return [:]
        #else
        guard let floor = try db.cipherFloor(ofClassNamed: "Person") else {
            throw CheckFailure(description: "encryption floor: BoringSSL refused a key")
        }
        rowsMeasured = (floor.rowCount, floor.plaintextByteCount)
        let rows = floor.rowCount
        let work: [(String, () -> Int, Int)] = [
            ("floor open aes", { floor.openAll(.aes256GCM) }, rows),
            ("floor open chacha", { floor.openAll(.chaCha20Poly1305) }, rows),
            ("floor seal aes", { floor.sealAll(.aes256GCM) }, rows),
            ("floor seal chacha", { floor.sealAll(.chaCha20Poly1305) }, rows),
            ("floor open objdb", { floor.openAllAsObjDB() }, rows),
            ("floor seal objdb", { floor.sealAllAsObjDB() }, rows),
            ("floor index key", { floor.indexKeyAll() }, -1),
            ("floor open aes x8", { floor.openGrouped(rowsPerMessage: 8) }, rows),
            ("floor open aes x16", { floor.openGrouped(rowsPerMessage: 16) }, rows),
        ]
        var times: [String: UInt64] = [:]
        for (name, body, expected) in work {
            let first = body()
            var again = 0
            times[name] = timedRegion { again = body() }
            guard again == first, expected < 0 || first == expected else {
                throw CheckFailure(description: "encryption floor: \(name) gave \(first) then \(again), expected \(expected) rows")
            }
        }
        return times
        #endif
    }

    /// The lookups per lookup scenario of the run.
    nonisolated(unsafe) private static var lookupCount = 0
    /// The rows and plaintext bytes the last floor measured.
    nonisolated(unsafe) private static var rowsMeasured = (count: 0, bytes: 0)

    /// Runs the scenarios `repetitions` times, plain and encrypted interleaved, and returns the
    /// table of medians with the ratio encrypted / plain.
    static func run(n: Int, lookups: Int, repetitions: Int) throws -> String {
        lookupCount = lookups
        let people = Dataset.people(count: n)
        let ids = Dataset.lookupIDs(count: lookups, in: n)
        // Ages present in the data (0..<100), one per lookup.
        let ages = ids.map { people[$0 - 1].age }
        var plain: [String: [UInt64]] = [:]
        var encrypted: [String: [UInt64]] = [:]
        for repetition in 0..<repetitions {
            for (name, ns) in try measure(key: nil, people, ids, ages) { plain[name, default: []].append(ns) }
            for (name, ns) in try measure(key: key, people, ids, ages) { encrypted[name, default: []].append(ns) }
            progress("encryption repetition \(repetition + 1)/\(repetitions)")
        }
        var table = MarkdownTable(headers: ["Scenario", "Unencrypted ms", "Encrypted ms", "Ratio"])
        for name in scenarios {
            let off = median(plain[name] ?? []) / 1_000_000
            let on = median(encrypted[name] ?? []) / 1_000_000
            table.append([name, fixed(off, 2), fixed(on, 2), fixed(on / max(off, 1e-9), 2) + "×"])
        }
        guard rowsMeasured.count > 0 else { return table.render() }
        let rows = Double(rowsMeasured.count)
        /// Nanoseconds per row of a floor row.
        func perRow(_ name: String) -> Double { median(encrypted[name] ?? []) / rows }
        var floors = MarkdownTable(headers: [
            "Cipher alone, per row (\(rowsMeasured.count) rows, \(fixed(Double(rowsMeasured.bytes) / rows, 1)) bytes each on average)", "ns",
        ])
        for (name, label) in floorRows { floors.append([label, fixed(perRow(name), 1)]) }
        // What each scenario cannot avoid with this cipher, at the prepared contexts' cost. Rows
        // lie in buckets of 16, so a row read or written costs a sixteenth of a bucket's open or
        // seal: the open of 16 rows to a message, per row (a seal does the same work; the
        // single-row floors of the two measure alike). Each key written or looked up costs an
        // index key (insert: the primary key per row and the age index's key once per age, its
        // entries written grouped by value; lookups: one each). Read all opens every bucket; the
        // lookups and the update after it find them open (snapshots of a version share what
        // they decrypted), so the update only seals. The cold update opens and seals every
        // bucket; the cold lookups open each bucket they touch once (object keys follow the
        // ids: one insert in id order).
        let distinctAges = Double(Set(ages).count)
        let lookups = Double(lookupCount)
        let bucketRow = perRow("floor open aes x16"), mac = perRow("floor index key")
        let keysPerBucket = 16  // the file format's row buckets
        let bucketsLookedUp = Double(Set(ids.map { $0 / keysPerBucket }).count)
        let floorNS: [String: Double] = [
            "insert": rows * (bucketRow + mac) + distinctAges * mac,
            "read all": rows * bucketRow,
            "pk lookups": lookups * mac,
            "indexed equality (first)": lookups * mac,
            "update all": rows * bucketRow,
            "update all (cold)": rows * 2 * bucketRow,
            "pk lookups (cold)": lookups * mac + bucketsLookedUp * Double(keysPerBucket) * bucketRow,
        ]
        var against = MarkdownTable(headers: [
            "Scenario", "Unencrypted ms", "Cipher floor ms", "Best ratio", "Encrypted ms", "Beyond the floor ms", "Beyond, ns per row",
        ])
        for name in scenarios {
            let off = median(plain[name] ?? []) / 1_000_000
            let on = median(encrypted[name] ?? []) / 1_000_000
            let cipher = (floorNS[name] ?? 0) / 1_000_000
            let beyond = on - off - cipher
            let units = name.contains("lookups") || name.contains("indexed") ? lookups : rows
            against.append([
                name, fixed(off, 2), fixed(cipher, 2), fixed((off + cipher) / max(off, 1e-9), 2) + "×", fixed(on, 2), fixed(beyond, 2),
                fixed(beyond * 1_000_000 / units, 0),
            ])
        }
        return [table.render(), floors.render(), against.render()].joined(separator: "\n\n")
    }
}
