import Foundation

/// The header of every report: machine, build and settings.
func header(_ options: Options) -> String {
    #if DEBUG
    let build = "debug (use -c release for real numbers)"
    #else
    let build = "release"
    #endif
    let memory = fixed(Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824, 1)
    return """
        # ObjDB benchmark

        Machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(memory) GiB RAM, \
        \(ProcessInfo.processInfo.operatingSystemVersionString); build: \(build). \
        Medians of \(options.repetitions) repetitions, systems interleaved, each on a fresh database in a temporary directory. Before each timed region, `sync` writes back what earlier runs left dirty; read-only scenarios (read-all, lookups, counts, queries) are timed after one untimed run of themselves; cold start is not.

        \(systemSettings)
        """
}

do {
    let options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
    if options.help {
        print(Options.usage)
        exit(0)
    }
    if let child = options.notifyChild {
        guard child.count == 2, let commits = Int(child[1]) else { throw CheckFailure(description: "--notify-child DIR COMMITS") }
        try NotificationRun.child(directory: child[0], commits: commits)
        exit(0)
    }
    if let child = options.memoryChild {
        try MemoryRun.child(child)
        exit(0)
    }
    print(header(options))
    // First, while this process is small: children inherit its peak RSS as their ru_maxrss.
    let memoryTable = options.memory ? try MemoryRun.run(n: options.memoryN) : nil
    if options.table {
        progress("generating \(options.n) objects")
        let work = Workload(n: options.n)
        let samples = try Runner.run(
            options.scenarios, systems: options.systems, work: work, repetitions: options.repetitions)
        print("\n## N = \(formatCount(options.n)), median ms\n")
        print(Report.mainTable(samples, options.scenarios, work))
        if let targets = Report.targetTable(samples) {
            print("\n### Targets\n")
            print(targets)
        }
    }
    if options.scale {
        print("\n## Scaling: median ns per object\n")
        print(try ScaleRun.run(sizes: options.sizes, systems: options.systems, repetitions: options.repetitions))
    }
    if options.relationships {
        let systems = options.relationshipSystems
        let tables = try RelationshipRun.run(
            listN: options.n, sizes: options.linkSizes, systems: systems, repetitions: options.repetitions)
        print("\n## Relationships: median ms, and µs per LinkingObjects lookup\n")
        print(relationshipSettings + "\n")
        print(tables)
    }
    if options.queries {
        let tables = try QueryRun.run(
            options.queryScenarios, n: options.n, lookupSizes: options.lookupSizes, countN: options.countN,
            systems: options.querySystems, repetitions: options.repetitions)
        print("\n## Queries: median ms, and µs per lookup\n")
        print(querySettings + "\n")
        print(tables)
    }
    if options.durability {
        let table = try DurabilityRun.run(commits: options.commits, repetitions: options.repetitions)
        print("\n## Durability: \(formatCount(options.commits)) transactions of one object each, median\n")
        print(table)
    }
    if options.encryption {
        let table = try EncryptionBench.run(n: options.n, lookups: 10_000, repetitions: options.repetitions)
        print("\n## Encryption at rest: \(formatCount(options.n)) people, median\n")
        print(table)
    }
    if options.notifications {
        let tables = try NotificationRun.run(
            n: options.n, commits: options.notifyCommits, repetitions: options.repetitions, idleSeconds: Double(options.idleSeconds))
        print("\n## Notifications: \(formatCount(options.n)) people, observing those with age > 50\n")
        print(tables)
    }
    if options.freeze {
        let tables = try FreezeRun.run(n: options.n, repetitions: options.repetitions)
        print("\n## Frozen results: \(formatCount(options.n)) people\n")
        print(tables)
    }
    if options.migration {
        let table = try MigrationBench.run(n: options.n, repetitions: options.repetitions)
        print("\n## Migration: \(formatCount(options.n)) objects\n")
        print(table)
    }
    if options.store {
        let table = try StoreBench.run(n: options.n, repetitions: options.repetitions)
        print("\n## Store: \(formatCount(options.n)) dispatches\n")
        print(table)
    }
    if options.cliExport {
        let table = try CLIExportBench.run(n: options.n, repetitions: options.repetitions, objdb: options.objdbPath)
        print("\n## objdb export: \(formatCount(options.n)) people\n")
        print(table)
    }
    if options.fullText {
        let table = try FullTextBench.run(n: options.n, queryCount: options.fullTextQueries, repetitions: options.repetitions)
        print("\n## Full-text search: \(formatCount(options.n)) documents, ObjDB against SQLite FTS5, median ms\n")
        print(table)
    }
    if let memoryTable {
        print("\n## Memory: ObjDB read-all at \(formatCount(options.memoryN))\n")
        print(memoryTable)
    }
} catch {
    progress("objdb-bench: \(error)")
    exit(1)
}
