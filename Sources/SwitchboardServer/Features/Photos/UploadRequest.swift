//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardWebSocket

/// An upload whose body is being received: its request, its uploader and what it is for (one allocation per upload,
/// so `HTTPSession.Phase`, which every connection holds, stays small). Immutable; read on the connection's loop.
final class UploadRequest {
    let head: HTTPRequestHead
    let uploader: Identity
    let target: UploadTarget

    init(head: HTTPRequestHead, uploader: Identity, target: UploadTarget) {
        self.head = head
        self.uploader = uploader
        self.target = target
    }
}
