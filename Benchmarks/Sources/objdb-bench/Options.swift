/// The command line of `objdb-bench`.
struct Options {
    /// Objects per scenario in the default table (and with `--only`).
    var n = 100_000
    /// Repetitions per scenario and system.
    var repetitions = 5
    /// Run the default table.
    var table = true
    /// Run the `--scale` table.
    var scale = false
    /// Run the `--memory` table.
    var memory = false
    /// Run the `--relationships` tables.
    var relationships = false
    /// Run the `--queries` tables.
    var queries = false
    /// Run the `--durability` table.
    var durability = false
    /// Single-object commits per mode in `--durability` (`--commits`).
    var commits = 1_000
    /// Scenarios of the default table (`--only`).
    var scenarios = Scenario.allCases
    /// Systems that run (`--system`).
    var systemNames = ["objdb", "lmdb", "grdb"]
    /// Sizes of the `--scale` run.
    var sizes = [10_000, 100_000, 1_000_000]
    /// Objects read by the `--memory` run.
    var memoryN = 1_000_000
    /// Owner counts of the linking-objects scenario of `--relationships` (`--link-sizes`).
    var linkSizes = [10_000, 100_000, 1_000_000]
    /// Scenarios of `--queries` (`--query-only`).
    var queryScenarios = QueryScenario.allCases
    /// Object counts of the indexed-lookup scenario of `--queries` (`--lookup-sizes`), besides N.
    var lookupSizes = [10_000, 100_000, 1_000_000]
    /// Objects of the count scenarios of `--queries` (`--count-n`).
    var countN = 1_000_000
    /// Run the `--notifications` tables.
    var notifications = false
    /// Run the `--encryption` table.
    var encryption = false
    /// Run the `--freeze` tables.
    var freeze = false
    /// Run the `--migration` table.
    var migration = false
    /// Run the `--store` table.
    var store = false
    /// Run the `--cli-export` table.
    var cliExport = false
    /// Run the `--full-text` table.
    var fullText = false
    /// Queries per query row of `--full-text` (`--fts-queries`).
    var fullTextQueries = 1_000
    /// The `objdb` binary of `--cli-export` (`--objdb`).
    var objdbPath: String?
    /// Commits per latency measurement of `--notifications` (`--notify-commits`).
    var notifyCommits = 500
    /// Seconds of the idle-observer measurement of `--notifications` (`--idle-seconds`).
    var idleSeconds = 10
    /// The hidden `--notify-child DIR COMMITS` of the writing process of `--notifications`.
    var notifyChild: [String]?
    /// The hidden `--memory-child MODE DIR [N]` of a child process (the rest of the arguments).
    var memoryChild: [String]?
    /// `--help` was given.
    var help = false

    /// The systems to run, in interleaving order.
    var systems: [any BenchSystem.Type] {
        allSystems.filter { systemNames.contains($0.name.lowercased()) }
    }

    /// The systems to run in `--relationships`, in interleaving order.
    var relationshipSystems: [any RelationshipSystem.Type] {
        allRelationshipSystems.filter { systemNames.contains($0.name.lowercased()) }
    }

    /// The systems to run in `--queries`, in interleaving order.
    var querySystems: [any QuerySystem.Type] {
        allQuerySystems.filter { systemNames.contains($0.name.lowercased()) }
    }

    /// The usage text.
    static let usage = """
        usage: objdb-bench [N] [--repetitions R] [--scale] [--memory] [--relationships] [--queries] [--durability]
                           [--notifications] [--freeze] [--migration] [--store] [--cli-export] [--full-text] [--all]
                           [--only SCENARIO[,…]] [--system objdb|lmdb|grdb[,…]] [--n N]
                           [--sizes N,N,…] [--memory-n N] [--link-sizes N,N,…]
                           [--query-only SCENARIO[,…]] [--lookup-sizes N,N,…] [--count-n N] [--commits N]
                           [--notify-commits N] [--idle-seconds S] [--fts-queries K]
          N / --n N        objects per scenario (default 100000); also the length of the --relationships list
                           and the objects of the --queries lookups, IN and sort
          --repetitions R  runs per scenario and system, interleaved (default 5)
          --scale          insert and read-all in ns/object at --sizes (default 10k,100k,1M)
          --memory         peak RSS of ObjDB reading --memory-n objects (default 1M) in a child process
          --relationships  append N elements to one List; LinkingObjects lookups among --link-sizes owners
                           (default 10k,100k,1M; multiples of 10, at least 10k)
          --queries        equality lookups on an indexed and an unindexed String (indexed also at --lookup-sizes,
                           default 10k,100k,1M), IN, counts over --count-n objects (default 1M) with and
                           without an index, sort
          --durability     ObjDB alone: --commits (default 1000) transactions of one object each with durability
                           .full, .normal and .noSync, in ms per commit
          --encryption     ObjDB alone: N people without and with Configuration.encryptionKey (insert, read all,
                           10,000 pk lookups, 10,000 indexed equality firsts, update all), and the ratio
          --notifications  commit-to-callback latency (--notify-commits per run, default 500; GRDB's
                           ValueObservation a tenth of them) in this process and from another one; the
                           change log's cost with and without an observer; an idle observer's CPU time
                           over --idle-seconds (default 10)
          --freeze         ObjDB alone: freeze() on N and N/10 people (O(1)), and reading N frozen people
                           on 1 thread and on 4 at once
          --migration      ObjDB alone: migrating N objects at open (a rename, a property computed from two
                           removed ones) against inserting them fresh in their new form
          --store          ObjDBStore: N dispatches against a minimal ReSwift-style store, a persisted burst of
                           10,000 dispatches against the same without persistence, 3,000 subscribers
          --cli-export     `objdb export --format jsonl` of N people against `sqlite3 -json` on the same data
                           (a release objdb: --objdb PATH, else ../.build/release/objdb)
          --full-text      N generated documents (Zipf vocabulary) in ObjDB's full-text index and in SQLite FTS5:
                           build, --fts-queries (default 1000) single-term, two-term, prefix, exclusion and
                           ranked top-10 queries, re-indexing 10 % on update; the ratio and the targets
          --query-only     --queries scenarios: \(QueryScenario.allCases.map(\.rawValue).joined(separator: ", "))
          --all            the default table, --scale, --memory, --relationships, --queries, --durability, --notifications, --freeze, --migration and --store
          --only           scenarios: \(Scenario.allCases.map(\.rawValue).joined(separator: ", "))
          --system         systems to run (default all three)
        """

    /// Parses the arguments (without the program name).
    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw CheckFailure(description: "\(flag) needs a value\n\(usage)") }
            return next
        }
        func number(_ flag: String, _ text: String) throws -> Int {
            guard let n = Int(text.replacingOccurrences(of: "_", with: "")), n > 0 else {
                throw CheckFailure(description: "\(flag): not a positive number: \(text)")
            }
            return n
        }
        var explicitTable = false
        while let argument = rest.popFirst() {
            switch argument {
            case "--repetitions", "-r": options.repetitions = try number(argument, value(argument))
            case "--n": options.n = try number(argument, value(argument))
            case "--scale": options.scale = true
            case "--memory": options.memory = true
            case "--relationships": options.relationships = true
            case "--queries": options.queries = true
            case "--durability": options.durability = true
            case "--encryption": options.encryption = true
            case "--notifications": options.notifications = true
            case "--freeze": options.freeze = true
            case "--migration": options.migration = true
            case "--store": options.store = true
            case "--cli-export": options.cliExport = true
            case "--full-text": options.fullText = true
            case "--fts-queries": options.fullTextQueries = try number(argument, value(argument))
            case "--objdb": options.objdbPath = try value(argument)
            case "--notify-commits": options.notifyCommits = try number(argument, value(argument))
            case "--idle-seconds": options.idleSeconds = try number(argument, value(argument))
            case "--notify-child":
                options.notifyChild = Array(rest)
                rest = []
            case "--commits": options.commits = try number(argument, value(argument))
            case "--all":
                (options.scale, options.memory, options.relationships, options.queries, explicitTable) = (true, true, true, true, true)
                options.durability = true
                options.notifications = true
                options.freeze = true
                options.migration = true
                options.store = true
            case "--sizes": options.sizes = try value(argument).split(separator: ",").map { try number(argument, String($0)) }
            case "--memory-n": options.memoryN = try number(argument, value(argument))
            case "--link-sizes":
                options.linkSizes = try value(argument).split(separator: ",").map { try number(argument, String($0)) }
                for size in options.linkSizes { try LinkWorkload.validate(owners: size) }
            case "--lookup-sizes": options.lookupSizes = try value(argument).split(separator: ",").map { try number(argument, String($0)) }
            case "--count-n": options.countN = try number(argument, value(argument))
            case "--query-only":
                options.queryScenarios = try value(argument).split(separator: ",").map { name in
                    guard let scenario = QueryScenario(rawValue: String(name)) else {
                        throw CheckFailure(description: "unknown query scenario \(name)\n\(usage)")
                    }
                    return scenario
                }
                options.queries = true
            case "--only":
                options.scenarios = try value(argument).split(separator: ",").map { name in
                    guard let scenario = Scenario(rawValue: String(name)) else {
                        throw CheckFailure(description: "unknown scenario \(name)\n\(usage)")
                    }
                    return scenario
                }
                explicitTable = true
            case "--system":
                options.systemNames = try value(argument).lowercased().split(separator: ",").map(String.init)
                guard !options.systems.isEmpty else { throw CheckFailure(description: "no known system in --system\n\(usage)") }
            case "--memory-child":
                options.memoryChild = Array(rest)
                rest = []
            case "--help", "-h": options.help = true
            default: options.n = try number("N", argument)
            }
        }
        options.table = explicitTable
            || !(options.scale || options.memory || options.relationships || options.queries || options.durability || options.encryption || options.notifications || options.freeze || options.migration || options.store || options.cliExport
                || options.fullText)
        return options
    }
}
