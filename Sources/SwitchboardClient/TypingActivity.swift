//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a member is doing, for `typing`.
public enum TypingActivity: String, Sendable {
    case typing
    case recording
}
