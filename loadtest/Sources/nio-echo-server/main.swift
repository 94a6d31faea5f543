//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// The reference: a WebSocket echo server written the idiomatic SwiftNIO way (NIOWebSocket upgrader,
// fragment aggregation, automatic ping replies and close handshake).
import ArgumentParser
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

struct NIOEchoServer: ParsableCommand {
    @Option var host = "127.0.0.1"
    @Option var port = 9000
    @Option var path = "/echo"
    @Option(help: "Event loop threads.") var threads = System.coreCount
    @Option var maxFrameSize = 1 << 20

    func run() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let path = self.path
        let maxFrameSize = self.maxFrameSize
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: maxFrameSize,
            automaticErrorHandling: true,
            shouldUpgrade: { channel, head in
                channel.eventLoop.makeSucceededFuture(head.uri == path ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1024,
                            maxAccumulatedFrameSize: maxFrameSize))
                    try channel.pipeline.syncOperations.addHandler(EchoHandler())
                }
            }
        )
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(
                    withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
                )
            }
        let channel = try bootstrap.bind(host: host, port: port).wait()
        print("nio-echo-server listening on \(channel.localAddress!) with \(threads) threads")
        try channel.closeFuture.wait()
    }
}

NIOEchoServer.main()
