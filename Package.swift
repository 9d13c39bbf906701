// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ObjDB",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "ObjDB", targets: ["ObjDB"]),
        .library(name: "ObjDBStore", targets: ["ObjDBStore"]),
        .executable(name: "objdb", targets: ["objdb"]),
        .executable(name: "todo", targets: ["todo"]),
        .library(name: "ObjDBSync", targets: ["ObjDBSync"]),
        .library(name: "ObjDBSyncProtocol", targets: ["ObjDBSyncProtocol"]),
        .library(name: "ObjDBSyncServer", targets: ["ObjDBSyncServer"]),
        .executable(name: "objdb-sync", targets: ["objdb-sync"]),
        // A temporary PostgreSQL cluster for the tests and the sync benchmark (Benchmarks/).
        .library(name: "ObjDBSyncTestSupport", targets: ["ObjDBSyncTestSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Encryption at rest (Docs/Encryption.md): AES-GCM, HKDF, HMAC. jwt-kit needs 4.1 or later.
        // Up to the next minor only: DirectCipher calls BoringSSL functions of this release line.
        .package(url: "https://github.com/apple/swift-crypto", .upToNextMinor(from: "4.5.0")),
        // The sync stack: only the ObjDBSync* targets, objdb-sync and todo use these; `objdb`
        // and `ObjDB` build none of them (`swift run objdb demo` stays light).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        // CRC-32C with the CPU's CRC instructions, for row and meta checksums: a header of
        // inline functions, compiled by the Swift module that imports it.
        .systemLibrary(name: "CObjDBChecksum"),
        // The Swift runtime's swift_tryRetain, declared for the registry of live databases, and
        // relaxed atomic words (Swift's own need macOS 15).
        .systemLibrary(name: "CObjDBRuntime"),
        .target(
            name: "ObjDB",
            dependencies: [
                "CLMDB", "CObjDBChecksum", "CObjDBRuntime", .product(name: "Crypto", package: "swift-crypto"),
            ],
            // Fast paths checked against their slow twins (see FastPaths); `swift test` builds debug.
            swiftSettings: [.define("OBJDB_INTERNAL_CHECKS", .when(configuration: .debug))]
        ),
        // A ReSwift-style Store whose state persists into ObjDB, on ObjDB's public API only.
        .target(name: "ObjDBStore", dependencies: ["ObjDB"]),
        // Sync's wire protocol, shared by the client and the service (Docs/SyncProtocol.md).
        .target(name: "ObjDBSyncProtocol", dependencies: ["ObjDB"]),
        // The sync client: a file kept in sync with PostgreSQL through the service (Docs/Sync.md).
        .target(
            name: "ObjDBSync",
            dependencies: [
                "ObjDB", "ObjDBSyncProtocol",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Model classes of the sync tests, shared with their client process.
        .target(name: "ObjDBSyncTestModels", dependencies: ["ObjDB"], path: "Tests/ObjDBSyncTestModels"),
        // A sync client the tests run as a second process and kill at chosen moments.
        .executableTarget(
            name: "ObjDBSyncTestClient", dependencies: ["ObjDB", "ObjDBSync", "ObjDBSyncTestModels"],
            path: "Tests/ObjDBSyncTestClient"),
        // The example app of the Store guide: `swift run todo add "milk"`; synced with `--sync`.
        .executableTarget(
            name: "todo", dependencies: ["ObjDB", "ObjDBStore", "ObjDBSync"], path: "Examples/Todo", exclude: ["sync-rules.json"]),
        .executableTarget(
            name: "objdb",
            dependencies: ["ObjDB", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The sync service: WebSocket endpoint, JWT auth, PostgreSQL tables and change feed.
        .target(
            name: "ObjDBSyncServer",
            dependencies: [
                "ObjDB", "ObjDBSyncProtocol",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The fan-out's lookup checked against its slow twin; `swift test` builds debug.
            swiftSettings: [.define("OBJDB_INTERNAL_CHECKS", .when(configuration: .debug))]
        ),
        .executableTarget(
            name: "objdb-sync",
            dependencies: [
                "ObjDBSyncServer", "ObjDBSyncProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A temporary PostgreSQL cluster (or OBJDB_TEST_POSTGRES_URL) for the sync tests.
        .target(
            name: "ObjDBSyncTestSupport",
            dependencies: [.product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log")],
            path: "Tests/ObjDBSyncTestSupport"
        ),
        .testTarget(
            name: "ObjDBSyncTests",
            dependencies: [
                "ObjDB", "ObjDBSync", "ObjDBSyncProtocol", "ObjDBSyncServer", "ObjDBSyncTestSupport", "ObjDBSyncTestModels",
                "ObjDBSyncTestClient", "objdb-sync", "todo", "ObjDBTestProcesses",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Running the built executables from the tests (objdb, todo, the helper).
        .target(name: "ObjDBTestProcesses", path: "Tests/ObjDBTestProcesses"),
        // Model classes shared by the tests and the helper process, in their own module as in an app.
        .target(name: "ObjDBTestModels", dependencies: ["ObjDB"], path: "Tests/ObjDBTestModels"),
        // A small program the tests run as a second process against the same file.
        .executableTarget(
            name: "ObjDBTestHelper", dependencies: ["ObjDB", "ObjDBTestModels", "ObjDBStore"],
            path: "Tests/ObjDBTestHelper"),
        .testTarget(name: "ObjDBTests", dependencies: ["ObjDB", "ObjDBTestModels", "ObjDBTestHelper", "ObjDBTestProcesses"]),
        .testTarget(name: "objdbTests", dependencies: ["objdb", "ObjDB", "ObjDBTestModels", "ObjDBStore", "ObjDBTestProcesses"]),
        .testTarget(name: "ObjDBStoreTests", dependencies: ["ObjDBStore", "ObjDB", "ObjDBTestHelper", "todo", "ObjDBTestProcesses"]),
        // The reliability harness (Docs/Reliability.md): each attack as a function with figures,
        // a command per attack, and short versions of them as tests.
        .target(
            name: "ObjDBReliability", dependencies: ["ObjDB", "ObjDBTestModels", "CLMDB"],
            path: "Reliability/Sources/ObjDBReliability"),
        .executableTarget(
            name: "objdb-reliability", dependencies: ["ObjDBReliability"],
            path: "Reliability/Sources/objdb-reliability"),
        .testTarget(
            name: "ReliabilityTests", dependencies: ["ObjDBReliability", "objdb-reliability"],
            path: "Reliability/Tests/ReliabilityTests"),
    ],
    swiftLanguageModes: [.v6]
)
