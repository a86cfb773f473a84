// swift-tools-version:6.1
//
// Lariat: Alamofire's HTTP API on a transport we own (epoll, HTTP/1.1, OpenSSL).
//
// Module boundaries (enforced by the target graph, see README "Layout"):
//   Wire       HTTP/1.1 codec, standard library only (no Glibc, no Foundation)
//   EventLoop  epoll/eventfd/timerfd loop and sockets (Glibc + CLinux modulemap)
//   TLS        OpenSSL (system libssl) and X.509 trust primitives; no sockets, no Foundation
//   Transport  HTTP/1.1 connections, the pool and proxies over EventLoop and TLS;
//              FoundationEssentials (Date for timings, Data for bodies and base64)
//   Client     the Alamofire-shaped API; FoundationEssentials, plus full Foundation
//              only behind the default `FullFoundation` trait
//   ClientObservability, LariatOpenAPI
//              Client plus swift-log/metrics/tracing, or swift-http-types/openapi-runtime;
//              nothing above depends on them (README "In the ecosystem")
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Lariat",
    products: [
        .library(name: "Wire", targets: ["Wire"]),
        .library(name: "TLS", targets: ["TLS"]),
        .library(name: "Client", targets: ["Client"]),
        .executable(name: "wire-decode", targets: ["wire-decode"]),
        .executable(name: "fetch", targets: ["fetch"]),
        .executable(name: "wire-bench", targets: ["wire-bench"]),
        // Ecosystem products (README "In the ecosystem"): each brings its own dependencies;
        // `Client` alone depends on none of them (scripts/check-client-deps.sh checks it in CI).
        .library(name: "ClientObservability", targets: ["ClientObservability"]),
        .library(name: "LariatOpenAPI", targets: ["LariatOpenAPI"]),
    ],
    traits: [
        .trait(
            name: "FullFoundation",
            description: """
                Alamofire API types that exist only in full Foundation on Linux (URLError, \
                Progress, InputStream, NotificationCenter) come from Foundation itself. Disable \
                default traits for a FoundationEssentials-only build (about 44 MB smaller static \
                binaries); Client then provides its own types under the same names.
                """
        ),
        .default(enabledTraits: ["FullFoundation"]),
    ],
    // Only the ecosystem products below use these; see README "In the ecosystem" for why each.
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
    ],
    targets: [
        // MARK: Codec
        .target(
            name: "Wire",
            path: "Sources/Wire",
            swiftSettings: strict
        ),

        // MARK: Event loop (epoll, sockets, timers): Glibc plus the CLinux modulemap
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        // The one typed accessor of a directory entry's name (`d_name` in place), shared by
        // EventLoop, TLS and the tests without a dependency edge between them.
        .systemLibrary(name: "CDirent", path: "Sources/CDirent"),
        .target(
            name: "EventLoop",
            dependencies: ["CLinux", "CDirent"],
            swiftSettings: strict
        ),

        // MARK: TLS
        .systemLibrary(
            name: "COpenSSL",
            path: "Sources/COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "TLS",
            dependencies: ["COpenSSL", "CDirent"],
            exclude: ["README.md"],
            swiftSettings: strict
        ),

        // MARK: Content coding: the system zlib (gzip/deflate bodies, request compression)
        .systemLibrary(
            name: "CZlib",
            path: "Sources/CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        // MARK: Transport: connections, the pool, proxies (HTTP/1.1 over EventLoop sockets and TLS)
        .target(
            name: "Transport",
            dependencies: ["Wire", "EventLoop", "TLS"],
            swiftSettings: strict
        ),

        // MARK: Alamofire-shaped client
        .target(
            name: "Client",
            dependencies: ["Wire", "EventLoop", "TLS", "Transport", "CZlib"],
            swiftSettings: strict
        ),

        // MARK: Ecosystem products: never dependencies of Client, Wire, EventLoop, TLS or fetch
        .target(
            name: "ClientObservability",
            dependencies: [
                "Client",
                "Transport",  // the pool's observer hook (package access), no new dependency
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "LariatOpenAPI",
            dependencies: [
                "Client",
                "Transport",  // the pausable body source (package access), no new dependency
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: strict
        ),

        // Downloads through LariatTransport for LariatOpenAPITests' memory measurement (a child
        // process, so other tests' memory is not counted). Not a product.
        .executableTarget(name: "lariat-openapi-probe", dependencies: [
            "LariatOpenAPI",
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        ], swiftSettings: strict),

        // MARK: Executables
        .executableTarget(name: "wire-decode", dependencies: ["Wire"], swiftSettings: strict),
        .target(name: "CAllocationCounter", path: "Sources/CAllocationCounter"),
        .executableTarget(name: "wire-bench", dependencies: ["Wire", "CAllocationCounter"], swiftSettings: strict),
        // libdispatch's main-queue hooks (fetch's synchronous main runs the main queue itself).
        .systemLibrary(name: "CDispatchMain", path: "Sources/CDispatchMain"),
        .executableTarget(name: "fetch", dependencies: ["Client", "Transport", "EventLoop", "TLS", "CLinux", "CDispatchMain"], swiftSettings: strict),
        // The soak test (scripts/soak.sh): many requests and faults through one process, then
        // descriptor, memory, thread and request-accounting checks.
        .executableTarget(
            name: "lariat-soak", dependencies: ["Client", "EventLoop"], swiftSettings: strict),
        // The Autobahn|Testsuite client driver (scripts/autobahn/run.sh): a test tool, in no product.
        .executableTarget(name: "autobahn-client", dependencies: ["Client"], swiftSettings: strict),

        // MARK: Tests
        .target(
            name: "LariatTestSupport",
            dependencies: ["CDirent", "CLinux", "TLS"],
            path: "Tests/Support",
            swiftSettings: strict
        ),
        .testTarget(name: "WireTests", dependencies: ["Wire", "CDirent"], swiftSettings: strict),
        .testTarget(name: "EventLoopTests", dependencies: ["EventLoop", "LariatTestSupport"], swiftSettings: strict),
        .testTarget(name: "TLSTests", dependencies: ["TLS"], swiftSettings: strict),
        // The transport's own tests (its machines' tables, its buffers): no Client.
        .testTarget(name: "TransportTests", dependencies: ["Transport", "Wire", "EventLoop", "LariatTestSupport"], swiftSettings: strict),
        .testTarget(name: "ClientTests", dependencies: ["Client", "Transport", "Wire", "EventLoop", "LariatTestSupport", "fetch"], swiftSettings: strict),
        // fetch's command line: its parsers, and the binary run beside curl.
        .testTarget(name: "FetchTests", dependencies: ["fetch", "Client", "LariatTestSupport", "CLinux"], swiftSettings: strict),
        .testTarget(
            name: "ClientObservabilityTests",
            dependencies: [
                "ClientObservability", "Client", "LariatTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LariatOpenAPITests",
            dependencies: [
                "LariatOpenAPI", "Client", "LariatTestSupport", "lariat-openapi-probe",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            exclude: ["openapi.yaml", "openapi-generator-config.yaml", "README.md"],
            swiftSettings: strict
        ),
    ]
)

// swift-docc-plugin, for browsing the DocC catalogs (`swift package generate-documentation` and
// `preview-documentation`; Documentation/Testing.md "Documentation"). Declared only when
// LARIAT_DOCC=1: a package dependency is resolved and fetched by every build of this package and
// by every package that depends on `Client`, so declaring it always would add it to the graph
// `import Client` brings. CI converts the catalog with the toolchain's `docc` instead
// (scripts/docs.sh), over the symbol graph it already extracts.
if Context.environment["LARIAT_DOCC"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
