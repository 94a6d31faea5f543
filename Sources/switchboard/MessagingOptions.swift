//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// Messaging, presence and typing limits of `serve`.
struct MessagingOptions: ParsableArguments {
    @Option(help: "Longest text message in characters. [env: SWITCHBOARD_MAX_TEXT_CHARACTERS]")
    var maxTextCharacters: Int = envValue("SWITCHBOARD_MAX_TEXT_CHARACTERS", as: Int.self) ?? 4096

    @Option(help: "Longest text message in UTF-8 bytes. [env: SWITCHBOARD_MAX_TEXT_BYTES]")
    var maxTextBytes: Int = envValue("SWITCHBOARD_MAX_TEXT_BYTES", as: Int.self) ?? 16 * 1024

    @Option(help: "Most members of a group. [env: SWITCHBOARD_MAX_GROUP_MEMBERS]")
    var maxGroupMembers: Int = envValue("SWITCHBOARD_MAX_GROUP_MEMBERS", as: Int.self) ?? 5000

    @Option(help: "Most writes committed in one transaction. [env: SWITCHBOARD_MESSAGE_BATCH]")
    var messageBatch: Int = envValue("SWITCHBOARD_MESSAGE_BATCH", as: Int.self) ?? 1024

    @Option(help: "Writes waiting per writer before new ones get `unavailable`. [env: SWITCHBOARD_MAX_PENDING_WRITES]")
    var maxPendingWrites: Int = envValue("SWITCHBOARD_MAX_PENDING_WRITES", as: Int.self) ?? 50_000

    @Option(help: "Message writers (conversations are split among them by id). [env: SWITCHBOARD_MESSAGE_WRITERS]")
    var messageWriters: Int = envValue("SWITCHBOARD_MESSAGE_WRITERS", as: Int.self) ?? 2

    @Option(help: "Messages per history page at most. [env: SWITCHBOARD_HISTORY_MAX_LIMIT]")
    var historyMaxLimit: Int = envValue("SWITCHBOARD_HISTORY_MAX_LIMIT", as: Int.self) ?? 100

    @Option(help: "Live messages held per connection while it resumes. [env: SWITCHBOARD_MAX_HELD_DURING_SYNC]")
    var maxHeldDuringSync: Int = envValue("SWITCHBOARD_MAX_HELD_DURING_SYNC", as: Int.self) ?? 20_000

    @Option(help: "Messages per user per second (burst twice that). [env: SWITCHBOARD_SEND_RATE]")
    var sendRate: Double = envValue("SWITCHBOARD_SEND_RATE", as: Double.self) ?? 500

    @Option(help: "Reactions per user per second (burst three times that). [env: SWITCHBOARD_REACTION_RATE]")
    var reactionRate: Double = envValue("SWITCHBOARD_REACTION_RATE", as: Double.self) ?? 10

    @Option(help: "Reports (report.create) per user per hour, also the burst. [env: SWITCHBOARD_REPORT_RATE]")
    var reportRate: Double = envValue("SWITCHBOARD_REPORT_RATE", as: Double.self) ?? 20

    @Option(help: "Seconds a user stays available after its last device goes. [env: SWITCHBOARD_PRESENCE_GRACE]")
    var presenceGrace: Double = envValue("SWITCHBOARD_PRESENCE_GRACE", as: Double.self) ?? 5

    @Option(help: "Seconds between checkpoints of open active-hours intervals (what a crash loses at most). [env: SWITCHBOARD_ACTIVE_HOURS_CHECKPOINT]")
    var activeHoursCheckpoint: Double = envValue("SWITCHBOARD_ACTIVE_HOURS_CHECKPOINT", as: Double.self) ?? 300

    @Option(name: .customLong("typing-ttl"), help: "Seconds a typing indicator lives without a refresh. [env: SWITCHBOARD_TYPING_TTL]")
    var typingTTL: Double = envValue("SWITCHBOARD_TYPING_TTL", as: Double.self) ?? 6

    @Option(help: "Typing updates per user per second (burst 10). [env: SWITCHBOARD_TYPING_RATE]")
    var typingRate: Double = envValue("SWITCHBOARD_TYPING_RATE", as: Double.self) ?? 4

    @Option(help: "Seconds a writer tries to learn whether a commit whose answer was lost took effect (0: never). [env: SWITCHBOARD_COMMIT_RESOLUTION_TIMEOUT]")
    var commitResolutionTimeout: Double = envValue("SWITCHBOARD_COMMIT_RESOLUTION_TIMEOUT", as: Double.self) ?? 30

    func validate() throws {
        guard maxTextCharacters >= 1, maxTextBytes >= 4, commitResolutionTimeout >= 0, commitResolutionTimeout <= 86_400, maxGroupMembers >= 3, messageBatch >= 1, maxPendingWrites >= 1, messageWriters >= 1,
            historyMaxLimit >= 10, maxHeldDuringSync >= 1, presenceGrace >= 0, typingTTL > 0, typingRate > 0, sendRate > 0,
            reactionRate > 0, reportRate > 0, activeHoursCheckpoint >= 1, activeHoursCheckpoint <= 86_400
        else {
            throw ValidationError("messaging limits must be positive (groups at least 3 members, history pages at least 10, active-hours checkpoint 1-86400 s)")
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.messaging.maxTextCharacters = maxTextCharacters
        c.messaging.maxTextBytes = maxTextBytes
        c.messaging.commitResolutionTimeout = commitResolutionTimeout
        c.messaging.maxGroupMembers = maxGroupMembers
        c.messaging.maxBatch = messageBatch
        c.messaging.maxPendingWrites = maxPendingWrites
        c.messaging.writers = messageWriters
        c.messaging.historyMaxLimit = historyMaxLimit
        c.messaging.maxHeldDuringSync = maxHeldDuringSync
        c.messaging.presenceGrace = presenceGrace
        c.messaging.typingTTL = typingTTL
        c.messaging.typingPerSecond = typingRate
        c.messaging.sendsPerSecond = sendRate
        c.messaging.sendBurst = sendRate * 2
        c.messaging.reactionsPerSecond = reactionRate
        c.messaging.reactionBurst = reactionRate * 3
        c.messaging.reportsPerHour = reportRate
        c.activeHours.checkpointInterval = activeHoursCheckpoint
    }
}

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
        guard maxUploadBytes >= 1024, maxAudioSeconds > 0, (6_000...510_000).contains(voiceBitrate), (0...10).contains(voiceComplexity),
            transcoders >= 1, transcodeQueue >= 0, maxConcurrentUploads >= 1, maxUploadsPerUser >= 1
        else {
            throw ValidationError("voice limits: upload at least 1024 bytes, bitrate 6000-510000, complexity 0-10, positive counts")
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

/// Call signalling settings of `serve`.
struct CallOptions: ParsableArguments {
    @Option(help: "Seconds a call rings before it ends as missed. [env: SWITCHBOARD_RING_TIMEOUT]")
    var ringTimeout: Double = envValue("SWITCHBOARD_RING_TIMEOUT", as: Double.self) ?? 120

    @Option(help: "Seconds a party may be disconnected from a call before it ends. [env: SWITCHBOARD_CALL_RECONNECT_GRACE]")
    var callReconnectGrace: Double = envValue("SWITCHBOARD_CALL_RECONNECT_GRACE", as: Double.self) ?? 10

    @Option(name: .customLong("max-sdp-bytes"), help: "Largest SDP in bytes. [env: SWITCHBOARD_MAX_SDP_BYTES]")
    var maxSDPBytes: Int = envValue("SWITCHBOARD_MAX_SDP_BYTES", as: Int.self) ?? 16 * 1024

    @Option(help: "Call signals per device per second (burst twice that). [env: SWITCHBOARD_SIGNAL_RATE]")
    var signalRate: Double = envValue("SWITCHBOARD_SIGNAL_RATE", as: Double.self) ?? 50

    @Option(name: .customLong("turn-uris"), help: "Comma-separated STUN/TURN URIs for call.turn. [env: SWITCHBOARD_TURN_URIS]")
    var turnURIs: String = env("SWITCHBOARD_TURN_URIS") ?? ""

    @Option(help: "Shared secret of the TURN server (coturn static-auth-secret); prefer the environment. [env: SWITCHBOARD_TURN_SECRET]")
    var turnSecret: String = env("SWITCHBOARD_TURN_SECRET") ?? ""

    @Option(name: .customLong("turn-ttl"), help: "Seconds TURN credentials stay valid. [env: SWITCHBOARD_TURN_TTL]")
    var turnTTL: Int64 = envValue("SWITCHBOARD_TURN_TTL", as: Int64.self) ?? 3600

    @Option(help: "call.turn requests per user per minute (and the burst). [env: SWITCHBOARD_TURN_RATE]")
    var turnRate: Double = envValue("SWITCHBOARD_TURN_RATE", as: Double.self) ?? 10

    func validate() throws {
        guard ringTimeout > 0, callReconnectGrace >= 0, maxSDPBytes >= 256, signalRate > 0, turnTTL > 0, turnRate > 0 else {
            throw ValidationError("call settings must be positive (SDP at least 256 bytes)")
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.calls.ringTimeout = ringTimeout
        c.calls.reconnectGrace = callReconnectGrace
        c.calls.maxSDPBytes = maxSDPBytes
        c.calls.signalsPerSecond = signalRate
        c.calls.signalBurst = signalRate * 2 >= Double(Int32.max) ? Int(Int32.max) : max(1, Int(signalRate * 2))
        c.calls.turnURIs = turnURIs.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        c.calls.turnSecret = turnSecret.isEmpty ? nil : turnSecret
        c.calls.turnTTL = turnTTL
        c.calls.turnRequestsPerMinute = turnRate
    }
}
