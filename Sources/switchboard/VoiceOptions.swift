//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// Voice upload limits and transcoding settings of `serve`.
struct VoiceOptions: ParsableArguments {
    @Option(help: "Largest voice upload in bytes. [env: SWITCHBOARD_MAX_UPLOAD_BYTES]")
    var maxUploadBytes: Int = envValue("SWITCHBOARD_MAX_UPLOAD_BYTES", as: Int.self) ?? 10 * 1024 * 1024

    @Option(help: "Longest voice recording in seconds. [env: SWITCHBOARD_MAX_AUDIO_SECONDS]")
    var maxAudioSeconds: Double = envValue("SWITCHBOARD_MAX_AUDIO_SECONDS", as: Double.self) ?? 300

    @Option(help: "Opus bitrate of voice messages in bit/s (VBR). [env: SWITCHBOARD_VOICE_BITRATE]")
    var voiceBitrate: Int = envValue("SWITCHBOARD_VOICE_BITRATE", as: Int.self) ?? 24_000

    @Option(help: "Opus encoder complexity 0-10. [env: SWITCHBOARD_VOICE_COMPLEXITY]")
    var voiceComplexity: Int = envValue("SWITCHBOARD_VOICE_COMPLEXITY", as: Int.self) ?? 5

    @Option(help: "Transcodes running at once. [env: SWITCHBOARD_TRANSCODERS]")
    var transcoders: Int = envValue("SWITCHBOARD_TRANSCODERS", as: Int.self) ?? ServerConfiguration.coreCount

    @Option(help: "Transcodes waiting before uploads get 503. [env: SWITCHBOARD_TRANSCODE_QUEUE]")
    var transcodeQueue: Int = envValue("SWITCHBOARD_TRANSCODE_QUEUE", as: Int.self) ?? 8

    @Option(help: "Uploads received or processed at once before 503. [env: SWITCHBOARD_MAX_CONCURRENT_UPLOADS]")
    var maxConcurrentUploads: Int = envValue("SWITCHBOARD_MAX_CONCURRENT_UPLOADS", as: Int.self) ?? 32

    @Option(help: "Uploads one user may have in progress at once before 503. [env: SWITCHBOARD_MAX_UPLOADS_PER_USER]")
    var maxUploadsPerUser: Int = envValue("SWITCHBOARD_MAX_UPLOADS_PER_USER", as: Int.self) ?? 4

    func validate() throws {
        guard maxUploadBytes >= 1024, maxAudioSeconds > 0, (6_000...510_000).contains(voiceBitrate),
            (0...10).contains(voiceComplexity),
            transcoders >= 1, transcodeQueue >= 0, maxConcurrentUploads >= 1, maxUploadsPerUser >= 1
        else {
            throw ValidationError(
                "voice limits: upload at least 1024 bytes, bitrate 6000-510000, complexity 0-10, positive counts")
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.voice.maxUploadBytes = maxUploadBytes
        c.voice.maxDurationSeconds = maxAudioSeconds
        c.voice.bitrate = voiceBitrate
        c.voice.complexity = voiceComplexity
        c.voice.workers = transcoders
        c.voice.maxWaiting = transcodeQueue
        c.voice.maxConcurrentUploads = maxConcurrentUploads
        c.voice.maxUploadsPerUser = maxUploadsPerUser
    }
}
