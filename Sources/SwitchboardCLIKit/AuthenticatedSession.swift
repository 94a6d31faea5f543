//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardClient
public import SwitchboardProtocol
import SwitchboardTransport

/// An authenticated connection for one command.
public struct AuthenticatedSession: Sendable {
    public let client: SwitchboardClient
    public let profile: Profile
    public let me: AuthenticateResult
    /// The server URL in use.
    public let url: String
}
