//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardStore

#if canImport(Glibc)
import Glibc
#endif

extension DatabasePool {
    /// Applies every feature's migrations (`ServerFeatures.migrations`); blocks the calling thread (start-up only,
    /// never a loop queue).
    func migrateBlocking(logger: Logger) throws -> Int {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<Int, any Error> = .failure(CancellationError())
        withConnection(
            on: DispatchQueue(label: "switchboard.migrate"),
            { connection in
                try Migrator.migrate(connection, migrations: ServerFeatures.migrations, logger: logger)
            },
            completion: { outcome in
                result = outcome
                done.signal()
            })
        done.wait()
        return try result.get()
    }
}
