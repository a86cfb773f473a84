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
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Lariat itself, for peer-lariat:
        .package(name: "Lariat", path: ".."),
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
            dependencies: ["BenchSupport", .product(name: "Client", package: "Lariat"), .product(name: "TLS", package: "Lariat")],
            swiftSettings: strict
        ),
    ]
)
