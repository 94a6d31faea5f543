//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
public import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Runs a server until SIGTERM or SIGINT, then shuts it down gracefully.
public enum ServerRunner {
    /// Starts the server, blocks until a signal has stopped it, returns the process exit code.
    public static func run(configuration: ServerConfiguration, logger: Logger) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let server: HubServer
        do {
            server = try HubServer(configuration: configuration, logger: logger)
            try server.start()
        } catch {
            logger.critical("could not start", metadata: ["error": "\(error)"])
            return 1
        }
        let done = DispatchSemaphore(value: 0)
        let signalQueue = DispatchQueue(label: "switchboard.signals")
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)  // delivered through the Dispatch source instead
            let source = DispatchSource.makeSignalSource(signal: sig, queue: signalQueue)
            source.setEventHandler {
                logger.info("signal received", metadata: ["signal": "\(sig == SIGTERM ? "SIGTERM" : "SIGINT")"])
                server.shutdown { done.signal() }
            }
            source.resume()
            sources.append(source)
        }
        done.wait()
        withExtendedLifetime(sources) {}
        return 0
    }
}
