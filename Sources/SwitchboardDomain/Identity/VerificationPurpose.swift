//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a verification code is for (`purpose` of `verification.start`).
public enum VerificationPurpose: String, Sendable, Equatable, CaseIterable {
    /// `register`: sent only to a number without an account.
    case register
    /// `password.reset`: sent only to a number with an account.
    case reset
}
