//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The reason categories of a report.
public enum ModerationReason {
    public static let all = [
        "spam", "harassment", "hate", "violence", "sexual", "self_harm", "illegal", "impersonation", "other",
    ]
}
