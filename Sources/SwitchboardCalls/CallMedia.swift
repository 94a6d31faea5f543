//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a call carries.
public enum CallMedia: String, Sendable, Hashable {
    /// Audio only (`voice` on the wire).
    case voice
    /// Audio and video (`video` on the wire).
    case video
}
