//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Logging

/// Carries the logger into libpq's notice callback (which cannot capture), passed as `Unmanaged` user data.
final class NoticeSink: Sendable {
    let logger: Logger
    init(logger: Logger) { self.logger = logger }
}
