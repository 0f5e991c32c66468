// swift-tools-version:6.1
import PackageDescription

/// netvigil: reachability and TLS-trust monitoring agent for Linux.
/// Module map (data flows top to bottom) is in DEVELOPERS.md and docs/architecture.md.
/// Linux only (netlink through libmnl, Glibc): no `platforms:` are declared because no Apple platform builds it.
let package = Package(
    name: "NetVigil",
    products: [
        .executable(name: "netvigil", targets: ["netvigil"]),
        .library(name: "NetVigilStore", targets: ["NetVigilStore"]),
        .library(name: "NetVigilAgent", targets: ["NetVigilAgent"]),
        .library(name: "NetVigilFeed", targets: ["NetVigilFeed"]),
        .library(name: "NetVigilDaemon", targets: ["NetVigilDaemon"]),
        .library(name: "NetVigilTrust", targets: ["NetVigilTrust"]),
        .library(name: "NetVigilReachability", targets: ["NetVigilReachability"]),
        .library(name: "NetVigilProber", targets: ["NetVigilProber"]),
        .library(name: "NetVigilProbeModel", targets: ["NetVigilProbeModel"]),
        .library(name: "NetVigilFleet", targets: ["NetVigilFleet"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        // MARK: Concurrency (the wake-up primitive, the semaphore, blocking work, the stop handler)
        .target(
            name: "NetVigilConcurrency",
            dependencies: [.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        // MARK: System (below every module but Concurrency: the POSIX helpers, the shared cache, the process's heap)
        .target(name: "NetVigilSystem", dependencies: ["CMalloc", "NetVigilConcurrency"]),
        // MARK: Probe model (what a probe result is made of: timings, error kinds, verdicts; no dependencies)
        .target(name: "NetVigilProbeModel"),
        // MARK: Store
        .target(
            name: "NetVigilStore",
            dependencies: [
                "CMalloc",
                "CSQLiteConfig",
                "NetVigilConcurrency",
                "NetVigilSystem",
                "NetVigilProbeModel",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // MARK: Agent
        .target(
            name: "NetVigilAgent",
            dependencies: [
                "NetVigilConcurrency",
                "NetVigilProbeModel",
                "NetVigilStore",
                "NetVigilProber",
                "NetVigilReachability",
                "NetVigilTrust",
                "NetVigilSystem",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // MARK: Feed
        .target(
            name: "NetVigilFeed",
            dependencies: [
                "CMalloc",
                "NetVigilAgent",
                "NetVigilConcurrency",
                "NetVigilProber",
                "NetVigilProbeModel",
                "NetVigilReachability",
                "NetVigilStore",
                "NetVigilSystem",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The status pages' HTML, CSS and JavaScript: compiled in as `PageAssets` by the plugin, never read at run time.
            exclude: ["Pages"],
            plugins: ["EmbedPageAssetsPlugin"]
        ),
        // The build-tool plugin and its tool that turn a target's Pages folder into a Swift source.
        .executableTarget(name: "EmbedPageAssets"),
        .plugin(name: "EmbedPageAssetsPlugin", capability: .buildTool(), dependencies: ["EmbedPageAssets"]),
        // MARK: Fleet (PostgreSQL: the central schema, its migrations and roles, the agent's shipper; issue #53)
        .target(
            name: "NetVigilFleet",
            dependencies: [
                "NetVigilAgent",
                "NetVigilConcurrency",
                "NetVigilProber",
                "NetVigilStore",
                "NetVigilTrust",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // MARK: Fleet view (the hub's feed: `netvigil fleet serve`; issue #54)
        .target(
            name: "NetVigilFleetFeed",
            dependencies: [
                "NetVigilAgent",
                "NetVigilFeed",
                "NetVigilFleet",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            exclude: ["Pages"],
            plugins: ["EmbedPageAssetsPlugin"]
        ),
        // MARK: Daemon (the services of `netvigil run` in one ServiceGroup, built from a configuration)
        .target(
            name: "NetVigilDaemon",
            dependencies: [
                "NetVigilAgent",
                "NetVigilFleet",
                "NetVigilFleetFeed",
                "NetVigilFeed",
                "NetVigilProber",
                "NetVigilReachability",
                "NetVigilStore",
                "NetVigilSystem",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // MARK: Trust
        .target(
            name: "COpenSSL",
            path: "Sources/COpenSSL",
            linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]
        ),
        .target(
            name: "NetVigilTrust",
            dependencies: ["COpenSSL", "NetVigilProbeModel", "NetVigilSystem"]
        ),
        .executableTarget(
            name: "TrustBenchmarks",
            dependencies: ["NetVigilTrust"],
            path: "Benchmarks/TrustBenchmarks"
        ),
        // MARK: HTTP
        .target(
            name: "NetVigilProber",
            dependencies: [
                "COpenSSL",
                "NetVigilConcurrency",
                "NetVigilProbeModel",
                "NetVigilSystem",
                "NetVigilTrust",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ]
        ),
        // MARK: Reachability
        .systemLibrary(
            name: "CLibMNL",
            path: "Sources/CLibMNL",
            pkgConfig: "libmnl",
            providers: [.apt(["libmnl-dev"])]
        ),
        .systemLibrary(
            name: "CMalloc",
            path: "Sources/CMalloc"
        ),
        .systemLibrary(
            name: "CSQLiteConfig",
            path: "Sources/CSQLiteConfig",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "CNetlink",
            dependencies: ["CLibMNL"],
            path: "Sources/CNetlink"
        ),
        .target(
            name: "NetVigilReachability",
            dependencies: [
                "NetVigilConcurrency",
                "CNetlink",
                "CLibMNL",
                "NetVigilSystem",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "ReachabilityBenchmarks",
            dependencies: ["NetVigilReachability", "CNetlink"],
            path: "Benchmarks/ReachabilityBenchmarks"
        ),
        // MARK: CLI
        .executableTarget(
            name: "netvigil",
            dependencies: [
                "NetVigilConcurrency",
                "NetVigilAgent",
                "NetVigilDaemon",
                "NetVigilFleet",
                "NetVigilStore",
                "NetVigilFeed",
                "NetVigilTrust",
                "NetVigilProber",
                "NetVigilReachability",
                "NetVigilSystem",
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // Release: `-z now` binds every library function at start (full RELRO), as Debian's hardening asks.
            linkerSettings: [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "now"], .when(configuration: .release))]
        ),
        // MARK: Benchmarks (release builds; see Benchmarks/run.sh)
        .executableTarget(name: "StoreBenchmarks", dependencies: ["NetVigilProbeModel", "NetVigilStore"], path: "Benchmarks/StoreBenchmarks"),
        .executableTarget(
            name: "OverviewBenchmarks",
            dependencies: ["NetVigilAgent", "NetVigilFeed", "NetVigilStore", .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/OverviewBenchmarks"
        ),
        .executableTarget(
            name: "SchedulerBenchmarks",
            dependencies: ["NetVigilAgent", "NetVigilProber", "NetVigilStore", .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/SchedulerBenchmarks"
        ),
        .executableTarget(
            name: "FleetBenchmarks",
            dependencies: ["NetVigilAgent", "NetVigilFleet", "NetVigilProbeModel", "NetVigilStore",
                           .product(name: "Logging", package: "swift-log"), .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Benchmarks/FleetBenchmarks"
        ),
        .executableTarget(
            name: "ProbeBenchmarks",
            dependencies: ["NetVigilProber", "NetVigilTrust"],
            path: "Benchmarks/ProbeBenchmarks"
        ),
        // MARK: Tests
        // Two tiers (DEVELOPERS.md): the module-named test targets run in process (`make check`: no fork or exec of
        // netvigil, servers or tools, no root, no namespace); IntegrationTests holds every test that forks or execs
        // (the real binary, nginx, Postfix, openssl, python3, namespaces, ...), one folder per module. Helpers both
        // tiers use live in NetVigilTestSupport.
        .target(
            name: "NetVigilTestSupport",
            dependencies: [
                "COpenSSL", "NetVigilAgent", "NetVigilFeed", "NetVigilProber", "NetVigilProbeModel", "NetVigilReachability",
                "NetVigilStore", "NetVigilTrust", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/NetVigilTestSupport"
        ),
        .testTarget(
            name: "NetVigilConcurrencyTests",
            dependencies: ["NetVigilConcurrency", .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle")]
        ),
        .testTarget(name: "NetVigilSystemTests", dependencies: ["NetVigilSystem"]),
        .testTarget(name: "NetVigilFleetTests", dependencies: ["NetVigilFleet", "NetVigilAgent", "NetVigilStore", "NetVigilTestSupport"]),
        .testTarget(
            name: "NetVigilFleetFeedTests",
            dependencies: ["NetVigilFleetFeed", "NetVigilFleet", "NetVigilFeed", "NetVigilAgent", "NetVigilStore",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdTesting", package: "hummingbird")]
        ),
        .testTarget(name: "NetVigilStoreTests", dependencies: ["NetVigilProbeModel", "NetVigilStore", "NetVigilTestSupport"]),
        .testTarget(name: "NetVigilTrustTests", dependencies: ["NetVigilTrust", "NetVigilProbeModel", "NetVigilTestSupport"]),
        .testTarget(
            name: "NetVigilAgentTests",
            dependencies: ["NetVigilAgent", "NetVigilProbeModel", "NetVigilStore", "NetVigilTestSupport",
                           .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle")]
        ),
        .testTarget(
            name: "NetVigilFeedTests",
            dependencies: [
                "NetVigilFeed",
                "NetVigilAgent",
                "NetVigilProbeModel",
                "NetVigilStore",
                "NetVigilTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .testTarget(
            name: "NetVigilDaemonTests",
            dependencies: ["NetVigilDaemon", "NetVigilAgent", "NetVigilStore", "NetVigilTestSupport",
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        .testTarget(
            name: "NetVigilProberTests",
            dependencies: [
                "COpenSSL", "NetVigilProber", "NetVigilTrust", "NetVigilAgent", "NetVigilProbeModel", "NetVigilStore",
                "NetVigilTestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ]
        ),
        .testTarget(name: "NetVigilReachabilityTests", dependencies: ["NetVigilReachability", "CNetlink", "NetVigilTestSupport"]),
        // The system tier: the real binary, servers and tools, network namespaces (root); not in `make check`.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "COpenSSL", "CNetlink", "NetVigilAgent", "NetVigilFeed", "NetVigilFleet", "NetVigilProber", "NetVigilProbeModel", "NetVigilReachability",
                "NetVigilStore", "NetVigilSystem", "NetVigilTestSupport", "NetVigilTrust",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ]
)
