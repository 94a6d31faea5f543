// swift-tools-version:6.0
//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Benchmark tools, a separate package so SwiftNIO (the reference server we compare against) never
// enters the server's own package.
import PackageDescription

let package = Package(
    name: "switchboard-loadtest",
    dependencies: [
        .package(name: "switchboard", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
    ],
    targets: [
        .executableTarget(
            name: "nio-echo-server",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "ws-bench",
            dependencies: [
                .product(name: "SwitchboardTransport", package: "switchboard"),
                .product(name: "SwitchboardWebSocket", package: "switchboard"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        .executableTarget(
            name: "msg-bench",
            dependencies: [
                .product(name: "SwitchboardTransport", package: "switchboard"),
                .product(name: "SwitchboardWebSocket", package: "switchboard"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        .executableTarget(
            name: "ws-idle",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
