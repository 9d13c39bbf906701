import Foundation
import ObjDB

/// Damaged files: copies of a healthy base file with one damage each (truncations, bit and byte
/// flips, zeroed, random and stale pages, meta pages) and foreign files (random bytes, text, an
/// LMDB file ObjDB did not write, an empty file). For each, in child processes:
/// `Database.verify(fileAt:)`, then an open and a read of everything through the API (and for a
/// sample, the same open with `verifiesFileOnOpen`).
///
/// Violations: `verify` crashed or hung; `verify` called a file healthy whose reads differ from
/// the newest version's (unless they equal the previous version's: LMDB's designed fallback to
/// the older meta page, counted apart), crash, are refused or report read failures; an open with
/// `verifiesFileOnOpen` crashed. A plain open that crashes on a damaged file is counted, not a
/// violation: that is what `verifiesFileOnOpen` is for.
public enum DamagedFiles {
    /// What to run.
    public struct Options: Sendable {
        /// Damaged files to try.
        public var files: Int
        /// The seed of the base and of the damage.
        public var seed: UInt64
        /// About how many objects the base holds.
        public var baseObjects: Int
        /// One in this many trials also opens with `verifiesFileOnOpen` (trials whose plain open
        /// crashed always do).
        public var verifyingOpenEvery: Int
        /// The `objdb-reliability` executable.
        public var worker: URL
        /// A directory for the files and the children's output.
        public var directory: URL
        /// The key of encrypted bases (every file encrypted with it), `nil` for plain files.
        public var encryptionKey: Data?

        /// Options with the full run's base of about 3,000 objects.
        public init(
            files: Int, seed: UInt64 = 1, baseObjects: Int = 3_000, verifyingOpenEvery: Int = 4, worker: URL, directory: URL,
            encryptionKey: Data? = nil
        ) {
            self.encryptionKey = encryptionKey
            self.files = files
            self.seed = seed
            self.baseObjects = baseObjects
            self.verifyingOpenEvery = verifyingOpenEvery
            self.worker = worker
            self.directory = directory
        }
    }

    /// What `verify(fileAt:)` said.
    public enum VerifyOutcome: String, Sendable, CaseIterable {
        /// The report found no problem.
        case healthy
        /// The report listed problems.
        case problems
        /// `verify(fileAt:)` threw (the file could not be read at all).
        case threw
        /// The process crashed (a signal) or hung.
        case crashed
    }

    /// What opening and reading everything gave.
    public enum ReadOutcome: String, Sendable, CaseIterable {
        /// The same as the newest version.
        case same
        /// The same as the previous version (LMDB used the older meta page).
        case previous
        /// Something else.
        case differs
        /// The open threw.
        case refused
        /// The process crashed (a signal) or hung.
        case crashed
    }

    /// The outcomes of one kind of damage.
    public struct Counts: Sendable {
        /// Trials of this kind.
        public var trials = 0
        /// Per verify outcome, the number of trials.
        public var verify: [VerifyOutcome: Int] = [:]
        /// Per read outcome (plain open), the number of trials.
        public var read: [ReadOutcome: Int] = [:]
        /// Per read outcome of the open with `verifiesFileOnOpen`, the number of trials.
        public var verifyingRead: [ReadOutcome: Int] = [:]
    }

    /// The figures of a run.
    public struct Result: AttackResult {
        /// Parameters, for the title.
        public var options = ""
        /// Pages and objects of the base.
        public var basePages: [Int] = [], baseObjects = 0
        /// Outcomes per kind of damage.
        public var counts: [DamageKind: Counts] = [:]
        /// Files `verify()` called healthy and which read as the newest version (the damage
        /// changed nothing reads see: free space, unused bytes of a page).
        public var undetectedHarmless = 0
        /// Files `verify()` called healthy and which read as the previous version: LMDB's
        /// fallback to the older meta page.
        public var metaFallbacks = 0
        /// Files `verify()` found problems in that nevertheless read as the newest version.
        public var detectedWithoutVisibleChange = 0
        /// Files `verify()` found problems in and whose plain open crashed.
        public var plainOpenCrashesCaughtByVerify = 0
        /// Empty files that an open with `verifiesFileOnOpen` took for a new database although
        /// `verify(fileAt:)` reported their missing meta pages.
        public var emptyFilesOpened = 0
        /// Per crash of `verify` or of an open with `verifiesFileOnOpen` (violations): where, and
        /// how often.
        public var crashSites: [String: Int] = [:]
        /// Per crash of a plain open (counted, not violations): where, and how often.
        public var plainOpenCrashSites: [String: Int] = [:]
        /// Wall-clock time.
        public var time = ""
        /// Every violation found.
        public var violationList: [String] = []

        /// All trials.
        public var files: Int { counts.values.reduce(0) { $0 + $1.trials } }

        /// The total of one verify outcome.
        public func total(_ outcome: VerifyOutcome) -> Int { counts.values.reduce(0) { $0 + ($1.verify[outcome] ?? 0) } }
        /// The total of one read outcome.
        public func total(_ outcome: ReadOutcome, verifying: Bool = false) -> Int {
            counts.values.reduce(0) { $0 + ((verifying ? $1.verifyingRead : $1.read)[outcome] ?? 0) }
        }

        /// The figures.
        public var table: FigureTable {
            var table = FigureTable(title: "damage: damaged and foreign files (\(options))")
            table.add("damaged files", files)
            table.add("base pages (grown, compact) / objects", "\(basePages.map(String.init).joined(separator: ", ")) / \(baseObjects)")
            table.add(
                "verify(): healthy/problems/threw/crashed",
                VerifyOutcome.allCases.map { String(total($0)) }.joined(separator: " / "))
            table.add(
                "plain open: same/previous/differs/refused/crashed",
                ReadOutcome.allCases.map { String(total($0)) }.joined(separator: " / "))
            table.add(
                "verifying open: same/previous/differs/refused/crashed",
                ReadOutcome.allCases.map { String(total($0, verifying: true)) }.joined(separator: " / "))
            table.add("verify crashes", total(.crashed))
            table.add("healthy but reads differ (false healthy)", violationList.filter { $0.contains("false healthy") }.count)
            table.add("healthy, reads the previous version (meta fallback)", metaFallbacks)
            table.add("healthy, reads unchanged (harmless damage)", undetectedHarmless)
            table.add("problems found, reads unchanged", detectedWithoutVisibleChange)
            table.add("plain open crashed, verify found problems", plainOpenCrashesCaughtByVerify)
            table.add("empty files opened as new databases", emptyFilesOpened)
            table.add("wall-clock time", time)
            for kind in DamageKind.allCases {
                guard let c = counts[kind] else { continue }
                let v = VerifyOutcome.allCases.map { String(c.verify[$0] ?? 0) }.joined(separator: "/")
                let r = ReadOutcome.allCases.map { String(c.read[$0] ?? 0) }.joined(separator: "/")
                table.add("  \(kind.rawValue)", "\(c.trials) files; verify \(v); read \(r)")
            }
            for (site, count) in plainOpenCrashSites.sorted(by: { $0.value > $1.value }) {
                table.notes.append("plain open crashed \(count)× (allowed): \(site)")
            }
            for (site, count) in crashSites.sorted(by: { $0.value > $1.value }) {
                table.notes.append("CRASH \(count)×: \(site)")
            }
            table.violations = violationList
            return table
        }
    }

    /// Runs the trials.
    public static func run(_ options: Options, progress: (String) -> Void = { _ in }) throws -> Result {
        let clock = Stopwatch()
        var result = Result()
        result.options = "seed \(options.seed), base of ~\(options.baseObjects) objects\(options.encryptionKey == nil ? "" : ", encrypted")"
        progress("building the base databases")
        let trial = options.directory.appendingPathComponent("trial.objdb")

        // The reference reads, from copies (an open must not add a version to a base).
        func reference(_ bytes: [UInt8], _ name: String) throws -> (digest: String, objects: Int) {
            try write(bytes, to: trial)
            let verify = try ChildProcess.run(
                options.worker, ["_verify-file", trial.path], directory: options.directory, timeout: 600,
                environment: HarnessKey.environment(options.encryptionKey))
            guard OutputFields.first("verify", in: verify.output)?["outcome"] == "healthy" else {
                throw HarnessError("the \(name) base file is not healthy: \(verify.output) \(verify.error)")
            }
            try write(bytes, to: trial)
            let dump = try ChildProcess.run(
                options.worker, ["_dump-file", trial.path, "plain"], directory: options.directory, timeout: 600,
                environment: HarnessKey.environment(options.encryptionKey))
            guard let fields = OutputFields.first("dump", in: dump.output.replacingOccurrences(of: "dump opened\n", with: "")),
                fields["outcome"] == "read", fields.int("failures") == 0, let digest = fields["digest"]
            else { throw HarnessError("the \(name) base file does not read: \(dump.output) \(dump.error)") }
            return (digest, fields.int("objects") ?? 0)
        }
        // Two bases: one with the free pages its commits left, one compacted (nearly every page
        // in use). Trials alternate between them.
        var bases: [(damager: Damager, newest: String, previous: String, name: String)] = []
        for compact in [false, true] {
            let base = try DamageBase.build(
                in: options.directory, objects: options.baseObjects, seed: options.seed, compact: compact, encryptionKey: options.encryptionKey)
            let newest = [UInt8](try Data(contentsOf: base.newest))
            let previous = [UInt8](try Data(contentsOf: base.previous))
            let name = compact ? "compact" : "grown"
            let newestRead = try reference(newest, name + " newest")
            let previousRead = try reference(previous, name + " previous")
            guard newestRead.digest != previousRead.digest else { throw HarnessError("the base's two versions read the same") }
            result.baseObjects = newestRead.objects
            result.basePages.append(newest.count / base.pageSize)
            bases.append((Damager(newest: newest, previous: previous, pageSize: base.pageSize), newestRead.digest, previousRead.digest, name))
        }

        for index in 0..<options.files {
            var rng = SeededRandom(seed: options.seed ^ 0xDA3A6E, index: UInt64(index))
            let base = bases[index % bases.count]
            let kind = DamageKind.draw(&rng)
            var damaged = base.damager.damage(kind, &rng)
            var detail = damaged.detail
            // An LMDB file is written by LMDB; its bytes are then reused for each child.
            if kind == .foreignLMDB {
                detail = try ForeignLMDB.write(to: trial, &rng)
                damaged = DamagedFile(kind: kind, detail: detail, bytes: [UInt8](try Data(contentsOf: trial)))
            }
            let name = "trial \(index) \(kind.rawValue) (\(detail), \(base.name) base)"
            var counts = result.counts[kind] ?? Counts()
            counts.trials += 1

            // verify(fileAt:)
            try write(damaged.bytes, to: trial)
            let verify = try ChildProcess.run(
                options.worker, ["_verify-file", trial.path], directory: options.directory, timeout: 600,
                environment: HarnessKey.environment(options.encryptionKey))
            let verifyOutcome: VerifyOutcome
            let verifyFields = OutputFields.first("verify", in: verify.output)
            if let outcome = verifyFields?["outcome"].flatMap(VerifyOutcome.init(rawValue:)), verify.termination.succeeded {
                verifyOutcome = outcome
            } else {
                verifyOutcome = .crashed
                let site = "verify(fileAt:): \(verify.termination) at \(Backtrace.site(verify.error))"
                result.crashSites[site, default: 0] += 1
                result.violationList.append("\(name): \(site)")
                try keepFinding(damaged.bytes, name: "damage-\(index)-verify-crash", detail: name + "\n" + verify.error)
            }
            counts.verify[verifyOutcome, default: 0] += 1

            // Open and read everything.
            func read(verifying: Bool) throws -> (ReadOutcome, ChildResult) {
                try write(damaged.bytes, to: trial)
                let child = try ChildProcess.run(
                    options.worker, ["_dump-file", trial.path, verifying ? "verifying" : "plain"], directory: options.directory,
                    timeout: 600, environment: HarnessKey.environment(options.encryptionKey))
                let fields = child.output.split(separator: "\n").compactMap { OutputFields($0) }.last { $0.tag == "dump" && $0["outcome"] != nil }
                guard child.termination.succeeded, let fields else { return (.crashed, child) }
                switch fields["outcome"] {
                case "refused": return (.refused, child)
                case "read" where fields.int("failures") == 0 && fields["digest"] == base.newest: return (.same, child)
                case "read" where fields.int("failures") == 0 && fields["digest"] == base.previous: return (.previous, child)
                default: return (.differs, child)
                }
            }
            let (readOutcome, readChild) = try read(verifying: false)
            counts.read[readOutcome, default: 0] += 1
            if readOutcome == .crashed {
                result.plainOpenCrashSites["\(readChild.termination) at \(Backtrace.site(readChild.error))", default: 0] += 1
            }
            switch (verifyOutcome, readOutcome) {
            case (.healthy, .same):
                result.undetectedHarmless += 1
            case (.healthy, .previous):
                result.metaFallbacks += 1
            case (.healthy, _):
                let what =
                    readOutcome == .crashed
                    ? "reading it ended with \(readChild.termination) at \(Backtrace.site(readChild.error))"
                    : "reads \(readOutcome.rawValue): \(readChild.output.suffix(300))"
                result.violationList.append("false healthy: \(name): verify() calls it healthy but \(what)")
                try keepFinding(damaged.bytes, name: "damage-\(index)-false-healthy", detail: name + "\n" + readChild.output + readChild.error)
            case (.problems, .same):
                result.detectedWithoutVisibleChange += 1
            case (.problems, .crashed):
                result.plainOpenCrashesCaughtByVerify += 1
            default:
                break
            }

            // Open with verifiesFileOnOpen: for a sample, and whenever the plain open crashed.
            if readOutcome == .crashed || index % max(options.verifyingOpenEvery, 1) == 0 {
                let (outcome, child) = try read(verifying: true)
                counts.verifyingRead[outcome, default: 0] += 1
                if outcome == .crashed {
                    let site = "open with verifiesFileOnOpen: \(child.termination) at \(Backtrace.site(child.error))"
                    result.crashSites[site, default: 0] += 1
                    result.violationList.append("\(name): \(site)")
                    try keepFinding(damaged.bytes, name: "damage-\(index)-verifying-open-crash", detail: name + "\n" + child.error)
                } else if damaged.bytes.isEmpty {
                    // An empty file is a new database to LMDB and to an open; verify(fileAt:)
                    // reports its missing meta pages. Counted, not a violation.
                    result.emptyFilesOpened += outcome == .refused ? 0 : 1
                } else if verifyOutcome == .problems, outcome != .refused {
                    result.violationList.append("\(name): verify() found problems but the open with verifiesFileOnOpen \(outcome.rawValue)")
                }
            }
            result.counts[kind] = counts
            progress("damaged file \(index + 1)/\(options.files): \(kind.rawValue) → verify \(verifyOutcome.rawValue), read \(readOutcome.rawValue)")
        }
        result.time = clock.elapsed
        return result
    }

    /// Writes `bytes` as the file at `url` and removes its lock file.
    static func write(_ bytes: [UInt8], to url: URL) throws {
        try? FileManager.default.removeItem(atPath: url.path + "-lock")
        try Data(bytes).write(to: url)
    }

    /// Keeps a damaged file and what was done to it in ``findingsDirectory``.
    static func keepFinding(_ bytes: [UInt8], name: String, detail: String) throws {
        try FileManager.default.createDirectory(at: findingsDirectory, withIntermediateDirectories: true)
        try Data(bytes).write(to: findingsDirectory.appendingPathComponent(name + ".objdb"))
        try Data(detail.utf8).write(to: findingsDirectory.appendingPathComponent(name + ".txt"))
    }
}
