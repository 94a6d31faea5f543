//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT (Ctrl-C) and SIGTERM as calls of a handler instead of the default termination. Keep the object:
/// a released signal source stops delivering.
public final class InterruptHandler: @unchecked Sendable {
    // @unchecked Sendable: the sources are created in init and only cancelled in deinit.
    private let sources: [any DispatchSourceSignal]

    public init(_ handler: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "switchboard-cli.signals")
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { @Sendable in handler() }
            source.resume()
            return source
        }
    }

    deinit { for source in sources { source.cancel() } }
}
