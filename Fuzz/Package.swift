// swift-tools-version:6.1
//
// libFuzzer targets for the Wire codec. Build and run one with `Fuzz/run.sh TARGET SECONDS`.
//
// Each product is one input kind (httparse's `fuzz/` layout): `parser` (a response stream and the
// methods it answers), `chunked` (a chunked body behind a fixed head), `serializer` (request heads
// from arbitrary strings), `chunkedencode` (the chunked encoder round trip); the stream oracles live
// in `FuzzHarness`. `host`, `disposition`, `multipart`, `form` (Client) and `pem` (TLS) fuzz the
// inputs a hostile server or user controls outside the codec; `certificate`, `chain`, `crl`,
// `ocsp` and `pkcs12` fuzz X.509 DER with a structure-aware mutator (`DERMutator`); see README.md.
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

/// What the Client targets link: the shared entry point and the Client module.
let clientTarget: [Target.Dependency] = ["ClientFuzzHarness", .product(name: "Client", package: "Lariat")]

/// What the X.509 targets link: the fixed PKI, TLS, and the DER mutator (which defines
/// `LLVMFuzzerCustomMutator`, so only targets that feed DER depend on it).
let x509Target: [Target.Dependency] = ["X509FuzzHarness", "DERMutator", "ClientFuzzHarness", .product(name: "TLS", package: "Lariat")]

/// The X.509 DER targets (issue 18), each in `Sources/<name>/main.swift`.
let x509Targets = ["certificate", "chain", "crl", "ocsp", "pkcs12"]

let package = Package(
    name: "LariatFuzz",
    products: [
        .executable(name: "parser", targets: ["parser"]),
        .executable(name: "chunked", targets: ["chunked"]),
        .executable(name: "serializer", targets: ["serializer"]),
        .executable(name: "chunkedencode", targets: ["chunkedencode"]),
        .executable(name: "host", targets: ["host"]),
        .executable(name: "disposition", targets: ["disposition"]),
        .executable(name: "multipart", targets: ["multipart"]),
        .executable(name: "form", targets: ["form"]),
        .executable(name: "pem", targets: ["pem"]),
        // WebSocket (RFC 6455) frames: Sources/websocket, with its own reference decoder.
        .executable(name: "websocket", targets: ["websocket"]),
    ] + x509Targets.map { .executable(name: $0, targets: [$0]) },
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
        .executableTarget(name: "chunkedencode", dependencies: ["FuzzHarness"], swiftSettings: strict, linkerSettings: fuzzerLinking),

        // Inputs parsed outside Wire. `host`, `disposition`, `multipart` and `form` reach Client's
        // internal parsers with `@testable import`, so run.sh builds with `-enable-testing`.
        .target(name: "ClientFuzzHarness", dependencies: ["CLibFuzzer"], swiftSettings: strict),
        .executableTarget(name: "host", dependencies: clientTarget, swiftSettings: strict, linkerSettings: fuzzerLinking),
        .executableTarget(name: "disposition", dependencies: clientTarget, swiftSettings: strict, linkerSettings: fuzzerLinking),
        .executableTarget(name: "multipart", dependencies: clientTarget, swiftSettings: strict, linkerSettings: fuzzerLinking),
        .executableTarget(name: "form", dependencies: clientTarget, swiftSettings: strict, linkerSettings: fuzzerLinking),
        .executableTarget(
            name: "pem", dependencies: ["ClientFuzzHarness", .product(name: "TLS", package: "Lariat")],
            swiftSettings: strict, linkerSettings: fuzzerLinking
        ),

        // WebSocket frames (Wire's WebSocketParser and WebSocketSerializer). The target carries its
        // own reference decoder and driver, and only the shared entry point from ClientFuzzHarness.
        .executableTarget(
            name: "websocket", dependencies: ["ClientFuzzHarness", .product(name: "Wire", package: "Lariat")],
            swiftSettings: strict, linkerSettings: fuzzerLinking
        ),

        // X.509 DER (issue 18): the fixed PKI and the structure-aware mutator, then one target each.
        .target(
            name: "X509FuzzHarness", dependencies: ["ClientFuzzHarness", .product(name: "TLS", package: "Lariat")],
            swiftSettings: strict
        ),
        .target(name: "DERMutator"),
    ] + x509Targets.map { .executableTarget(name: $0, dependencies: x509Target, swiftSettings: strict, linkerSettings: fuzzerLinking) }
)
