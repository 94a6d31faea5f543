//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One part of a data export archive, registered by the feature that owns the data (`FeatureRegistry.exportSections`):
/// the files it writes (`profile.json`, `voice.json` and `voice/<id>.ogg`, ...) in `order`.
public struct AccountExportSection: Sendable {
    /// The files it writes, for the documentation (`"profile.json, sessions.json"`).
    public var files: String
    /// Its place in the archive (ascending); `manifest.json` is always last.
    public var order: Int
    /// Reads the user's data (pages on leases of their own) and adds its files to the collector.
    public var collect: @Sendable (AccountExportCollector) async throws -> Void

    public init(files: String, order: Int, collect: @escaping @Sendable (AccountExportCollector) async throws -> Void) {
        self.files = files
        self.order = order
        self.collect = collect
    }
}
