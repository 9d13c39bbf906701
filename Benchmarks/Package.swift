// swift-tools-version:6.0
// Benchmarks comparing ObjDB with raw LMDB and GRDB; a separate package so that the root
// package's `swift build` and `swift test` never build GRDB.
import PackageDescription

let package = Package(
    name: "ObjDBBenchmarks",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "objdb-bench", targets: ["objdb-bench"]),
        .executable(name: "objdb-sync-bench", targets: ["objdb-sync-bench"]),
    ],
    dependencies: [
        .package(name: "ObjDB", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // The sync benchmark's floors (postgres-nio) and tokens (jwt-kit), as the root resolves them.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The load benchmark's protocol-level connections.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        // Raw LMDB for the baseline; the root package keeps its own CLMDB module internal.
        .systemLibrary(
            name: "CLMDBBench",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        // Lets `valgrind --tool=callgrind --collect-atstart=no` count only the timed regions.
        .target(name: "CallgrindToggle"),
        // A ReSwift-style store for the `--store` comparison, in a module of its own as ReSwift is.
        .target(name: "ReferenceStore", dependencies: [.product(name: "ObjDBStore", package: "ObjDB")]),
        .executableTarget(
            name: "objdb-bench",
            dependencies: [
                "CLMDBBench",
                "ReferenceStore",
                "CallgrindToggle",
                .product(name: "ObjDB", package: "ObjDB"),
                .product(name: "ObjDBStore", package: "ObjDB"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Sync (Docs/Sync.md) against its floors, in an executable of its own so that
        // `objdb-bench` does not build the NIO, Hummingbird and Postgres stack.
        .executableTarget(
            name: "objdb-sync-bench",
            dependencies: [
                .product(name: "ObjDB", package: "ObjDB"),
                .product(name: "ObjDBSync", package: "ObjDB"),
                .product(name: "ObjDBSyncServer", package: "ObjDB"),
                .product(name: "ObjDBSyncProtocol", package: "ObjDB"),
                .product(name: "ObjDBSyncTestSupport", package: "ObjDB"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
