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
    var maxTextCharacters: Int = env("SWITCHBOARD_MAX_TEXT_CHARACTERS").flatMap(Int.init) ?? 4096

    @Option(help: "Longest text message in UTF-8 bytes. [env: SWITCHBOARD_MAX_TEXT_BYTES]")
    var maxTextBytes: Int = env("SWITCHBOARD_MAX_TEXT_BYTES").flatMap(Int.init) ?? 16 * 1024

    @Option(help: "Most members of a group. [env: SWITCHBOARD_MAX_GROUP_MEMBERS]")
    var maxGroupMembers: Int = env("SWITCHBOARD_MAX_GROUP_MEMBERS").flatMap(Int.init) ?? 5000

    @Option(help: "Most writes committed in one transaction. [env: SWITCHBOARD_MESSAGE_BATCH]")
    var messageBatch: Int = env("SWITCHBOARD_MESSAGE_BATCH").flatMap(Int.init) ?? 1024

    @Option(help: "Writes waiting per writer before new ones get `unavailable`. [env: SWITCHBOARD_MAX_PENDING_WRITES]")
    var maxPendingWrites: Int = env("SWITCHBOARD_MAX_PENDING_WRITES").flatMap(Int.init) ?? 50_000

    @Option(help: "Message writers (conversations are split among them by id). [env: SWITCHBOARD_MESSAGE_WRITERS]")
    var messageWriters: Int = env("SWITCHBOARD_MESSAGE_WRITERS").flatMap(Int.init) ?? 2

    @Option(help: "Messages per history page at most. [env: SWITCHBOARD_HISTORY_MAX_LIMIT]")
    var historyMaxLimit: Int = env("SWITCHBOARD_HISTORY_MAX_LIMIT").flatMap(Int.init) ?? 100

    @Option(help: "Live messages held per connection while it resumes. [env: SWITCHBOARD_MAX_HELD_DURING_SYNC]")
    var maxHeldDuringSync: Int = env("SWITCHBOARD_MAX_HELD_DURING_SYNC").flatMap(Int.init) ?? 20_000

    @Option(help: "Messages per user per second (burst twice that). [env: SWITCHBOARD_SEND_RATE]")
    var sendRate: Double = env("SWITCHBOARD_SEND_RATE").flatMap(Double.init) ?? 500

    @Option(help: "Seconds a user stays available after its last device goes. [env: SWITCHBOARD_PRESENCE_GRACE]")
    var presenceGrace: Double = env("SWITCHBOARD_PRESENCE_GRACE").flatMap(Double.init) ?? 5

    @Option(name: .customLong("typing-ttl"), help: "Seconds a typing indicator lives without a refresh. [env: SWITCHBOARD_TYPING_TTL]")
    var typingTTL: Double = env("SWITCHBOARD_TYPING_TTL").flatMap(Double.init) ?? 6

    @Option(help: "Typing updates per user per second (burst 10). [env: SWITCHBOARD_TYPING_RATE]")
    var typingRate: Double = env("SWITCHBOARD_TYPING_RATE").flatMap(Double.init) ?? 4

    @Option(help: "Seconds a writer tries to learn whether a commit whose answer was lost took effect (0: never). [env: SWITCHBOARD_COMMIT_RESOLUTION_TIMEOUT]")
    var commitResolutionTimeout: Double = env("SWITCHBOARD_COMMIT_RESOLUTION_TIMEOUT").flatMap(Double.init) ?? 30

    func validate() throws {
        guard maxTextCharacters >= 1, maxTextBytes >= 4, commitResolutionTimeout >= 0, commitResolutionTimeout <= 86_400, maxGroupMembers >= 3, messageBatch >= 1, maxPendingWrites >= 1, messageWriters >= 1,
            historyMaxLimit >= 10, maxHeldDuringSync >= 1, presenceGrace >= 0, typingTTL > 0, typingRate > 0, sendRate > 0
        else {
            throw ValidationError("messaging limits must be positive (groups at least 3 members, history pages at least 10)")
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
    }
}

/// Voice upload limits and transcoding settings of `serve`.
struct VoiceOptions: ParsableArguments {
    @Option(help: "Largest voice upload in bytes. [env: SWITCHBOARD_MAX_UPLOAD_BYTES]")
    var maxUploadBytes: Int = env("SWITCHBOARD_MAX_UPLOAD_BYTES").flatMap(Int.init) ?? 10 * 1024 * 1024

    @Option(help: "Longest voice recording in seconds. [env: SWITCHBOARD_MAX_AUDIO_SECONDS]")
    var maxAudioSeconds: Double = env("SWITCHBOARD_MAX_AUDIO_SECONDS").flatMap(Double.init) ?? 300

    @Option(help: "Opus bitrate of voice messages in bit/s (VBR). [env: SWITCHBOARD_VOICE_BITRATE]")
    var voiceBitrate: Int = env("SWITCHBOARD_VOICE_BITRATE").flatMap(Int.init) ?? 24_000

    @Option(help: "Opus encoder complexity 0-10. [env: SWITCHBOARD_VOICE_COMPLEXITY]")
    var voiceComplexity: Int = env("SWITCHBOARD_VOICE_COMPLEXITY").flatMap(Int.init) ?? 5

    @Option(help: "Transcodes running at once. [env: SWITCHBOARD_TRANSCODERS]")
    var transcoders: Int = env("SWITCHBOARD_TRANSCODERS").flatMap(Int.init) ?? ServerConfiguration.coreCount

    @Option(help: "Transcodes waiting before uploads get 503. [env: SWITCHBOARD_TRANSCODE_QUEUE]")
    var transcodeQueue: Int = env("SWITCHBOARD_TRANSCODE_QUEUE").flatMap(Int.init) ?? 8

    @Option(help: "Uploads received or processed at once before 503. [env: SWITCHBOARD_MAX_CONCURRENT_UPLOADS]")
    var maxConcurrentUploads: Int = env("SWITCHBOARD_MAX_CONCURRENT_UPLOADS").flatMap(Int.init) ?? 32

    @Option(help: "Uploads one user may have in progress at once before 503. [env: SWITCHBOARD_MAX_UPLOADS_PER_USER]")
    var maxUploadsPerUser: Int = env("SWITCHBOARD_MAX_UPLOADS_PER_USER").flatMap(Int.init) ?? 4

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
    var ringTimeout: Double = env("SWITCHBOARD_RING_TIMEOUT").flatMap(Double.init) ?? 120

    @Option(help: "Seconds a party may be disconnected from a call before it ends. [env: SWITCHBOARD_CALL_RECONNECT_GRACE]")
    var callReconnectGrace: Double = env("SWITCHBOARD_CALL_RECONNECT_GRACE").flatMap(Double.init) ?? 10

    @Option(name: .customLong("max-sdp-bytes"), help: "Largest SDP in bytes. [env: SWITCHBOARD_MAX_SDP_BYTES]")
    var maxSDPBytes: Int = env("SWITCHBOARD_MAX_SDP_BYTES").flatMap(Int.init) ?? 16 * 1024

    @Option(help: "Call signals per device per second (burst twice that). [env: SWITCHBOARD_SIGNAL_RATE]")
    var signalRate: Double = env("SWITCHBOARD_SIGNAL_RATE").flatMap(Double.init) ?? 50

    @Option(name: .customLong("turn-uris"), help: "Comma-separated STUN/TURN URIs for call.turn. [env: SWITCHBOARD_TURN_URIS]")
    var turnURIs: String = env("SWITCHBOARD_TURN_URIS") ?? ""

    @Option(help: "Shared secret of the TURN server (coturn static-auth-secret); prefer the environment. [env: SWITCHBOARD_TURN_SECRET]")
    var turnSecret: String = env("SWITCHBOARD_TURN_SECRET") ?? ""

    @Option(name: .customLong("turn-ttl"), help: "Seconds TURN credentials stay valid. [env: SWITCHBOARD_TURN_TTL]")
    var turnTTL: Int64 = env("SWITCHBOARD_TURN_TTL").flatMap(Int64.init) ?? 3600

    @Option(help: "call.turn requests per user per minute (and the burst). [env: SWITCHBOARD_TURN_RATE]")
    var turnRate: Double = env("SWITCHBOARD_TURN_RATE").flatMap(Double.init) ?? 10

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
