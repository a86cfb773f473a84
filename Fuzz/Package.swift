// swift-tools-version:6.1
//
// libFuzzer targets for the Wire codec. Build and run one with `Fuzz/run.sh TARGET SECONDS`.
//
// Each product is one input kind (httparse's `fuzz/` layout): `parser` (a response stream and the
// methods it answers), `chunked` (a chunked body behind a fixed head), `serializer` (request heads
// from arbitrary strings). The oracles live in `FuzzHarness`, shared by all three.
//
// Build flags come from the command line, so they reach the Lariat package too and Wire is
// instrumented for coverage:
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
// The executables link with lld: ld.gold hits an internal error on libFuzzer + ASan objects here.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The fuzz entry points link with lld (see above).
let fuzzerLinking: [LinkerSetting] = [.unsafeFlags(["-use-ld=lld"])]

let package = Package(
    name: "LariatFuzz",
    products: [
        .executable(name: "parser", targets: ["parser"]),
        .executable(name: "chunked", targets: ["chunked"]),
        .executable(name: "serializer", targets: ["serializer"]),
    ],
    dependencies: [
        // `name:` pins the identity to the manifest's name; a bare path dependency is named after
        // the checkout's directory, which differs between clones and worktrees.
        .package(name: "Lariat", path: ".."),
    ],
    targets: [
        .systemLibrary(name: "CLibFuzzer", path: "Sources/CLibFuzzer"),
        .target(
            name: "FuzzHarness",
            dependencies: ["CLibFuzzer", .product(name: "Wire", package: "Lariat")],
            swiftSettings: strict
        ),
        .executableTarget(name: "parser", dependencies: ["FuzzHarness"], swiftSettings: strict, linkerSettings: fuzzerLinking),
        .executableTarget(name: "chunked", dependencies: ["FuzzHarness"], swiftSettings: strict, linkerSettings: fuzzerLinking),
        .executableTarget(name: "serializer", dependencies: ["FuzzHarness"], swiftSettings: strict, linkerSettings: fuzzerLinking),
    ]
)
