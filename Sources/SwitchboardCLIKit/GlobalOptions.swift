//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The options every command shares.
public struct GlobalOptions: Sendable {
    /// `--server URL` (nil: `SWITCHBOARD_URL`, else the profile's, else `ws://127.0.0.1:8080/ws`).
    public var server: String?
    /// `--config-dir DIR` (nil: see `ProfileStore.defaultDirectory`).
    public var configDir: String?
    /// `--profile NAME` (nil: `SWITCHBOARD_PROFILE`, else `default`).
    public var profile: String?
    /// `--json`.
    public var json: Bool

    public init(server: String? = nil, configDir: String? = nil, profile: String? = nil, json: Bool = false) {
        self.server = server
        self.configDir = configDir
        self.profile = profile
        self.json = json
    }
}
