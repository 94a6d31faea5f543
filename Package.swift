// swift-tools-version:6.0
//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "switchboard",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "switchboard", targets: ["switchboard"]),
        .library(name: "SwitchboardWebSocket", targets: ["SwitchboardWebSocket"]),
        .library(name: "SwitchboardTransport", targets: ["SwitchboardTransport"]),
        .library(name: "SwitchboardProtocol", targets: ["SwitchboardProtocol"]),
        .library(name: "SwitchboardClient", targets: ["SwitchboardClient"]),
        .library(name: "SwitchboardRedis", targets: ["SwitchboardRedis"]),
        .executable(name: "switchboard-cli", targets: ["switchboard-cli"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
    ],
    targets: [
        // C: system libraries behind a shim header, and the syscalls Glibc does not export to Swift.
        .target(name: "CSwitchboardSys"),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLibpq", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // hiredis' .pc file adds -D_FILE_OFFSET_BITS=64, which SwiftPM rejects: no pkgConfig, the module map links it.
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        // libvips' .pc file pulls in OpenEXR's and gmodule's -pthread through Requires.private, which SwiftPM rejects
        // as a prohibited flag: gobject-2.0 gives the GLib include paths vips.h needs, the module map links libvips.
        .systemLibrary(name: "CVips", pkgConfig: "gobject-2.0", providers: [.apt(["libvips-dev"])]),
        .systemLibrary(
            name: "COpus",
            pkgConfig: "libopusenc",
            providers: [.apt(["libopus-dev", "libopusenc-dev", "libopusfile-dev", "libogg-dev"])]
        ),

        // Swift modules, one concern each (see docs/architecture.md).
        .target(
            name: "SwitchboardTransport",
            dependencies: ["CSwitchboardSys", "COpenSSL", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(name: "SwitchboardWebSocket", dependencies: ["CZlib", "COpenSSL"], swiftSettings: strict),
        .target(name: "SwitchboardProtocol", swiftSettings: strict),
        // Pure rules (no libpq, no sockets): limits, validators, parsers, state machines, typed errors, domain events.
        .target(name: "SwitchboardDomain", dependencies: ["SwitchboardProtocol", "COpenSSL"], swiftSettings: strict),
        .target(name: "SwitchboardMedia", dependencies: ["COpus", "COpenSSL"], swiftSettings: strict),
        .target(name: "SwitchboardCalls", dependencies: ["COpenSSL"], swiftSettings: strict),
        .target(name: "SwitchboardImages", dependencies: ["CVips", "COpenSSL"], swiftSettings: strict),
        .target(
            name: "SwitchboardStore",
            dependencies: ["CLibpq", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(
            name: "SwitchboardRedis",
            dependencies: ["CHiredis", "COpenSSL", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(
            name: "SwitchboardCore",
            dependencies: [
                "SwitchboardProtocol", "SwitchboardDomain", "SwitchboardStore", "CArgon2", "COpenSSL",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "SwitchboardServer",
            dependencies: [
                "SwitchboardTransport", "SwitchboardWebSocket", "SwitchboardProtocol", "SwitchboardStore",
                "SwitchboardDomain", "SwitchboardCore", "SwitchboardCalls", "SwitchboardMedia", "SwitchboardRedis",
                "SwitchboardImages",
                "CSwitchboardSys", "CCurl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "SwitchboardClient",
            dependencies: [
                "SwitchboardTransport", "SwitchboardWebSocket", "SwitchboardProtocol",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "switchboard",
            dependencies: [
                "SwitchboardServer", "SwitchboardStore", "SwitchboardTransport", "CSwitchboardSys",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // The latency-budget load tester (loadtest/): its pure parts (budgets, verdict, delivery ledger, pacing,
        // synthetic speech) and the executable that drives a server through SwitchboardClient.
        .target(
            name: "SwitchboardLoadKit",
            dependencies: [.product(name: "Histogram", package: "hdrhistogram-swift")],
            path: "loadtest/SwitchboardLoadKit",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "switchboard-load",
            dependencies: [
                "SwitchboardLoadKit", "SwitchboardClient", "SwitchboardTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "loadtest/switchboard-load",
            swiftSettings: strict
        ),

        .testTarget(name: "SwitchboardLoadKitTests", dependencies: ["SwitchboardLoadKit"], swiftSettings: strict),

        // The terminal client: commands and their pure parts in a library, argument parsing in the executable.
        // Its media engine (GStreamer's webrtcbin) is C opened with dlopen at run time: it builds without
        // GStreamer, and the server never links it.
        .target(name: "CWebRTCMedia", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("m")]),
        .target(
            name: "SwitchboardCLIKit",
            dependencies: ["SwitchboardClient", "SwitchboardProtocol", "SwitchboardTransport", "CWebRTCMedia"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "switchboard-cli",
            dependencies: [
                "SwitchboardCLIKit", "SwitchboardClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),

        .testTarget(name: "SwitchboardWebSocketTests", dependencies: ["SwitchboardWebSocket"], swiftSettings: strict),
        .testTarget(name: "SwitchboardTransportTests", dependencies: ["SwitchboardTransport"], swiftSettings: strict),
        .testTarget(name: "SwitchboardStoreTests", dependencies: ["SwitchboardStore"], swiftSettings: strict),
        .testTarget(
            name: "SwitchboardRedisTests",
            dependencies: ["SwitchboardRedis", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SwitchboardDomainTests", dependencies: ["SwitchboardDomain", "SwitchboardProtocol"],
            swiftSettings: strict),
        .testTarget(
            name: "SwitchboardCoreTests", dependencies: ["SwitchboardCore", "SwitchboardDomain"],
            swiftSettings: strict),
        .testTarget(name: "SwitchboardProtocolTests", dependencies: ["SwitchboardProtocol"], swiftSettings: strict),
        .testTarget(name: "SwitchboardMediaTests", dependencies: ["SwitchboardMedia"], swiftSettings: strict),
        .testTarget(name: "SwitchboardCallsTests", dependencies: ["SwitchboardCalls"], swiftSettings: strict),
        .testTarget(name: "SwitchboardImagesTests", dependencies: ["SwitchboardImages"], swiftSettings: strict),
        .testTarget(
            name: "SwitchboardEngineTests",
            dependencies: [
                "SwitchboardServer", "SwitchboardDomain", "SwitchboardCore", "SwitchboardCalls", "SwitchboardStore",
                "SwitchboardProtocol", "SwitchboardTransport", "SwitchboardRedis",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(name: "SwitchboardClientTests", dependencies: ["SwitchboardClient"], swiftSettings: strict),
        .testTarget(
            name: "SwitchboardCLIKitTests",
            dependencies: ["SwitchboardCLIKit", "SwitchboardClient", "SwitchboardProtocol"],
            swiftSettings: strict),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "SwitchboardServer", "SwitchboardTransport", "SwitchboardWebSocket", "SwitchboardProtocol",
                "SwitchboardClient", .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["python"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
