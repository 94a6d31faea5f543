//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a timer tick asks the owner to do.
public enum WebSocketTickAction: Equatable {
    case none
    /// Write this ping frame.
    case sendPing([UInt8])
    /// Write this close frame (idle timeout); keep reading for the reply.
    case sendClose([UInt8])
    /// The closing handshake timed out: drop TCP.
    case abort
}
