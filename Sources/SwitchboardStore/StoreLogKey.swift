//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Metadata keys used by this module's log messages.
enum StoreLogKey {
    static let event = "postgres.event"
    static let noticeSeverity = "postgres.notice.severity"
    static let noticeMessage = "postgres.notice.message"
    static let connectionIndex = "postgres.connection"
    static let migrationVersion = "postgres.migration.version"
    static let migrationName = "postgres.migration.name"
    static let dataDirectory = "postgres.data_directory"
    static let pid = "postgres.pid"
}
