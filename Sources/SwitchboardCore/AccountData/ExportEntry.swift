//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One file of an export archive.
public struct ExportEntry: Sendable {
    public var path: String
    public var bytes: [UInt8]
}
