//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The collected export ran past its size limit.
public struct ExportTooLarge: Error {
    public init() {}
}
