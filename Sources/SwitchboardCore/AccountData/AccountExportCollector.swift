//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardStore
import Synchronization

/// Collects one export's files from the sections, within the size limit (`ExportTooLarge` past it). Used by one
/// build task at a time; its state is behind a lock so that sections may be called from any task.
public final class AccountExportCollector: Sendable {
    /// Where the sections read.
    public let pool: DatabasePool
    /// The exported user.
    public let userId: Int64
    /// The export's id.
    public let exportId: Int64
    /// The archive's size limit (each file counts its bytes and 1 KiB of header).
    public let maxBytes: Int
    // protected by the mutex
    private let state = Mutex<(entries: [ExportEntry], total: Int)>(([], 0))

    public init(pool: DatabasePool, userId: Int64, exportId: Int64, maxBytes: Int) {
        self.pool = pool
        self.userId = userId
        self.exportId = exportId
        self.maxBytes = maxBytes
    }

    /// Adds a file.
    /// - Throws: `ExportTooLarge` when the archive would pass its limit.
    public func add(_ path: String, _ bytes: [UInt8]) throws {
        try state.withLock { s throws(ExportTooLarge) in
            s.total += bytes.count + 1024
            if s.total > maxBytes { throw ExportTooLarge() }
            s.entries.append(ExportEntry(path: path, bytes: bytes))
        }
    }

    /// Adds `value` as a JSON file (snake_case keys, sorted, pretty-printed).
    public func add(_ path: String, json value: some Encodable) throws {
        try add(path, try Self.json(value))
    }

    /// Counts `bytes` read into memory before they become a file (a conversation's pages of messages), so a large
    /// history stops the build early.
    public func reserve(_ bytes: Int) throws {
        try state.withLock { s throws(ExportTooLarge) in
            s.total += bytes
            if s.total > maxBytes { throw ExportTooLarge() }
        }
    }

    /// The files added so far, in order.
    public var entries: [ExportEntry] { state.withLock { $0.entries } }

    /// The archive's JSON encoding.
    public static func json(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }
}
