// swift-tools-version:6.1
//
// Lariat macro-benchmarks: one small executable per HTTP client ("peer"), all with the
// same command-line contract (see README.md), driven by run.sh / run.py.
//
// This is a separate package on purpose: the library's own Package.swift gains no
// dependency on async-http-client or anything else measured here.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "LariatBenchmarks",
    products: [
        .executable(name: "peer-ahc", targets: ["peer-ahc"]),
        .executable(name: "peer-urlsession", targets: ["peer-urlsession"]),
        // Lariat's own peer (added by the lead once `Client` can make requests):
        .executable(name: "peer-lariat", targets: ["peer-lariat"]),
        // The OpenAPI row (issue 20): one generated client, three transports.
        .executable(name: "peer-openapi-lariat", targets: ["peer-openapi-lariat"]),
        .executable(name: "peer-openapi-ahc", targets: ["peer-openapi-ahc"]),
        .executable(name: "peer-openapi-urlsession", targets: ["peer-openapi-urlsession"]),
        // The WebSocket echo row (issue 22): NIO's echo server, Lariat's client and NIO's.
        .executable(name: "ws-echo-server", targets: ["ws-echo-server"]),
        .executable(name: "peer-ws-lariat", targets: ["peer-ws-lariat"]),
        .executable(name: "peer-ws-nio", targets: ["peer-ws-nio"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Lariat itself, for peer-lariat and the micro benchmarks:
        .package(name: "Lariat", path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The OpenAPI row's generated client and the two transports Lariat's is measured against.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        // Micro benchmarks (Benchmarks/<Name>/, run by `swift package benchmark`). Only the malloc
        // interposer trait: the default set also enables "RuntimeInterposer", whose package
        // (swift-runtime-interposer) is not in this machine's package mirror; disabling it keeps
        // it out of resolution.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Shared by every Swift peer: the command-line contract, timing, percentiles,
        // peak RSS, the JSON result line and the Codable model of the JSON document.
        .target(name: "BenchSupport", swiftSettings: strict),

        .executableTarget(
            name: "peer-ahc",
            dependencies: [
                "BenchSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "peer-urlsession",
            dependencies: ["BenchSupport"],
            swiftSettings: strict
        ),
        .testTarget(name: "BenchSupportTests", dependencies: ["BenchSupport"], swiftSettings: strict),
        .executableTarget(
            name: "peer-lariat",
            dependencies: ["BenchSupport", .product(name: "Client", package: "Lariat"), .product(name: "TLS", package: "Lariat"),
                           // The monitor-overhead row (LARIAT_PEER_MONITORS, Monitors.swift).
                           .product(name: "ClientObservability", package: "Lariat"),
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),

        // MARK: The OpenAPI row (README "OpenAPI transports")
        .target(
            name: "BenchOpenAPI",
            dependencies: ["BenchSupport", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            exclude: ["openapi.yaml", "openapi-generator-config.yaml", "README.md"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "peer-openapi-lariat",
            dependencies: ["BenchSupport", "BenchOpenAPI", .product(name: "Client", package: "Lariat"),
                           .product(name: "LariatOpenAPI", package: "Lariat")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "peer-openapi-ahc",
            dependencies: ["BenchSupport", "BenchOpenAPI",
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "peer-openapi-urlsession",
            dependencies: ["BenchSupport", "BenchOpenAPI",
                           .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession")],
            swiftSettings: strict
        ),

        // MARK: The WebSocket echo row (README "WebSocket echo")
        .executableTarget(
            name: "ws-echo-server",
            dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "peer-ws-nio",
            dependencies: ["BenchSupport",
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "peer-ws-lariat",
            dependencies: ["BenchSupport", .product(name: "Client", package: "Lariat")],
            swiftSettings: strict
        ),

        // MARK: Micro benchmarks (package-benchmark; README "Micro benchmarks")
        // `swift package benchmark` builds only these targets and their dependencies (Lariat's
        // Wire/Client and package-benchmark's own), never async-http-client.
        // Retain/release counting (package-benchmark's own crashes on Swift 6.3 for Linux) and
        // what the suites share.
        .target(name: "CARCCounter", linkerSettings: [.linkedLibrary("dl")]),
        .target(
            name: "MicroSupport",
            dependencies: ["CARCCounter", .product(name: "Benchmark", package: "benchmark")],
            swiftSettings: strict
        ),
        microBenchmark("WireBenchmarks", dependencies: [.product(name: "Wire", package: "Lariat")]),
        microBenchmark("ClientBenchmarks", dependencies: [.product(name: "Client", package: "Lariat")]),
        microBenchmark("RoundTripBenchmarks", dependencies: [.product(name: "Client", package: "Lariat")]),
    ]
)

/// A package-benchmark suite: an executable in `Benchmarks/<name>/` with the boilerplate plugin.
func microBenchmark(_ name: String, dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["MicroSupport", .product(name: "Benchmark", package: "benchmark")] + dependencies,
        path: "Benchmarks/\(name)",
        swiftSettings: strict,
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}
