//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The result of `CallRegistry.invite`.
public struct InviteOutcome: Sendable, Equatable {
    /// How the invite was resolved.
    public enum Disposition: Sendable, Equatable {
        /// A new call rings on the callee's online devices.
        case ringing
        /// The callee had no online device: the new call ended at once as `unavailable` (missed).
        case unavailable
        /// The callee was in an active call: the new call ended at once as `busy`.
        case busy
        /// Glare: the callee was already calling the caller; the invite accepted that call instead,
        /// from the inviting device. The client must answer `call.offer` (with an `answer` signal).
        case joinedExisting
    }

    /// The new call, or the existing call joined on glare.
    public let call: Call
    /// How the invite was resolved.
    public let disposition: Disposition
    /// Effects to perform.
    public let effects: [CallEffect]
}
