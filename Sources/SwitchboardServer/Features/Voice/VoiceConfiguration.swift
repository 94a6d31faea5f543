//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardMedia
import SwitchboardStore
import SwitchboardWebSocket
import Synchronization

/// Voice upload and download settings (see docs/voice.md).
public struct VoiceConfiguration: Sendable {
    /// Largest upload in bytes.
    public var maxUploadBytes = 10 * 1024 * 1024
    /// Longest recording in seconds.
    public var maxDurationSeconds: Double = 300
    /// Target Opus bitrate (VBR), bit/s.
    public var bitrate = 24_000
    /// Opus encoder complexity 0-10. 5 rather than libopus's 10: about twice as fast (a 30 s recording in
    /// ~250 ms instead of ~600 ms on this machine's cores) with speech at 24 kbit/s still well above the
    /// quality checks (docs/benchmarks.md, Voice).
    public var complexity = 5
    /// Transcodes running at once.
    public var workers = ServerConfiguration.coreCount
    /// Transcodes waiting for a worker before uploads get 503.
    public var maxWaiting = 8
    /// Uploads being received or processed at once (each holds its body in memory) before 503. Only
    /// authenticated uploads take one: the token is checked before the body is read.
    public var maxConcurrentUploads = 32
    /// Uploads one user may have in progress at once (503 beyond), so one account cannot take every slot.
    public var maxUploadsPerUser = 4

    public init() {}
}
