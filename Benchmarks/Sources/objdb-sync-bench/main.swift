import Foundation
import JWTKit
import Logging
import ObjDB
import ObjDBSync
import ObjDBSyncProtocol
import ObjDBSyncServer
import ObjDBSyncTestSupport
import PostgresNIO

/// The command line of `objdb-sync-bench`.
struct Options {
    var n = 100_000
    var uploads = 10_000
    var clients = 10
    var samples = 200
    var postgres: String?
    var breakdown = false
    var load = false
    var connections = 1000
    var rate = 50
    var seconds = 30
    var rowsPerCommit = 1

    static let usage = """
        usage: objdb-sync-bench [--n N] [--uploads U] [--clients C] [--samples S] [--postgres URL]
          --n N          objects of the initial download (default 100000)
          --uploads U    offline single-object commits uploaded (default 10000)
          --clients C    clients of the latency rows (default 10)
          --samples S    commits per latency row (default 200; the psql row takes half)
          --postgres URL a server to make the benchmark's databases on (default: a temporary cluster)
          --breakdown    also time the download's pieces alone: JSON coding, the service's PostgreSQL read
          --load         the load benchmark instead: --connections N (1000), --rate R commits/s (50),
                         --seconds S (30), --rows-per-commit K (1: each commit inserts K items)
        """

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        func int(_ flag: String) throws -> Int {
            guard let text = rest.popFirst(), let value = Int(text.replacingOccurrences(of: "_", with: "")), value > 0 else {
                throw BenchFailure("\(flag) needs a positive number\n\(usage)")
            }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--n": options.n = try int(argument)
            case "--uploads": options.uploads = try int(argument)
            case "--clients": options.clients = max(2, try int(argument))
            case "--samples": options.samples = try int(argument)
            case "--postgres":
                guard let url = rest.popFirst() else { throw BenchFailure("--postgres needs a URL\n\(usage)") }
                options.postgres = url
            case "--breakdown": options.breakdown = true
            case "--load": options.load = true
            case "--connections": options.connections = try int(argument)
            case "--rate": options.rate = try int(argument)
            case "--seconds": options.seconds = try int(argument)
            case "--rows-per-commit": options.rowsPerCommit = try int(argument)
            case "--help", "-h":
                print(usage)
                exit(0)
            default: throw BenchFailure("unknown argument \(argument)\n\(usage)")
            }
        }
        return options
    }
}

do {
    let arguments = Array(CommandLine.arguments.dropFirst())
    // The load benchmark's child process: the clients.
    if arguments.first == "--load-clients", arguments.count == 4, let port = Int(arguments[1]), let count = Int(arguments[2]) {
        var config = Configuration()
        config.inMemoryIdentifier = "load-schema"
        config.objectTypes = [LoadItem.self]
        let schema = try Database(configuration: config).schema.objectSchema.map(SyncClassSchema.init)
        try await LoadClients.run(port: port, count: count, tokensFile: arguments[3], schema: schema)
        exit(0)
    }
    let options = try Options.parse(arguments)
    if let url = options.postgres { setenv("OBJDB_TEST_POSTGRES_URL", url, 1) }
    let report = options.load ? try await LoadBench(options: options).run() : try await SyncBench(options: options).run()
    print(report)
    exit(0)
} catch {
    progress("failed: \(String(reflecting: error))")
    exit(1)
}
