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

/// Voice clips over HTTP: authenticated uploads transcoded on a bounded worker pool (never on a loop
/// queue) and stored in PostgreSQL, and authorized downloads with ranges.
final class VoiceService: Sendable {
    let configuration: VoiceConfiguration
    let workers: WorkerPool
    let accounts: IdentityService
    let pool: DatabasePool
    let logger: Logger
    let metrics: ServerMetrics
    /// Upload slots in use: in total and per user (protected by the mutex).
    private let uploads = Mutex(UploadSlots())

    struct UploadSlots {
        var total = 0
        var perUser: [Int64: Int] = [:]
    }

    /// Why ``beginUpload(userId:)`` refused a slot.
    enum SlotRefusal: Error {
        /// `maxConcurrentUploads` are in progress.
        case serverBusy
        /// This user has `maxUploadsPerUser` in progress.
        case userBusy
    }

    init(
        configuration: VoiceConfiguration, nice: Int32 = 0, accounts: IdentityService, pool: DatabasePool,
        metrics: ServerMetrics, logger: Logger
    ) {
        self.configuration = configuration
        self.metrics = metrics
        self.accounts = accounts
        self.pool = pool
        self.logger = logger
        workers = WorkerPool(
            workers: configuration.workers, maxWaiting: configuration.maxWaiting, label: "switchboard.transcode",
            nice: nice)
    }

    /// Takes an upload slot for an authenticated user, or says why not.
    func beginUpload(userId: Int64) -> SlotRefusal? {
        uploads.withLock { slots in
            guard slots.total < configuration.maxConcurrentUploads else { return .serverBusy }
            let mine = slots.perUser[userId, default: 0]
            guard mine < configuration.maxUploadsPerUser else { return .userBusy }
            slots.total += 1
            slots.perUser[userId] = mine + 1
            return nil
        }
    }

    /// Upload slots in use.
    var uploadsInProgress: Int { uploads.withLock { $0.total } }

    /// Gives back a slot taken by ``beginUpload(userId:)``.
    func endUpload(userId: Int64) {
        uploads.withLock { slots in
            slots.total -= 1
            let mine = slots.perUser[userId, default: 1] - 1
            slots.perUser[userId] = mine > 0 ? mine : nil
        }
    }

    /// The 503 for a refused slot.
    static func busy(_ refusal: SlotRefusal) -> HTTPResult {
        switch refusal {
        case .serverBusy:
            return .error(
                503, "unavailable", "too many uploads at once; retry shortly", headers: [("Retry-After", "2")])
        case .userBusy:
            return .error(
                503, "unavailable", "too many uploads of yours at once; retry shortly", headers: [("Retry-After", "2")])
        }
    }

    /// Checks the bearer token (a database query: never call it on a loop queue). A refusal is counted as a
    /// refused upload when `countsAsUpload`.
    func identity(_ authorization: String?, countsAsUpload: Bool = false) async -> Result<Identity, HTTPResult> {
        let result = await BearerAuthentication(accounts: accounts).identity(authorization)
        if countsAsUpload, case .failure = result { metrics.voiceUploadsRefused.increment() }
        return result
    }

    /// `POST /voice` once the body is in (its token was checked before the body was read): transcode, store;
    /// 201 with the clip's metadata.
    func upload(body: [UInt8], contentType: String?, uploader me: Identity) async -> HTTPResult {
        let result = await storeUpload(body: body, contentType: contentType, uploader: me)
        (result.status == 201 ? metrics.voiceUploadsOK : metrics.voiceUploadsRefused).increment()
        return result
    }

    private func storeUpload(body: [UInt8], contentType: String?, uploader me: Identity) async -> HTTPResult {
        let options = TranscodeOptions(
            bitrate: configuration.bitrate, complexity: configuration.complexity,
            maxDurationMs: Int(configuration.maxDurationSeconds * 1000), maxInputBytes: configuration.maxUploadBytes)
        let started = ContinuousClock.now
        let transcoded: Result<TranscodedVoice, VoiceError>? = await withCheckedContinuation { continuation in
            let accepted = workers.submit {
                continuation.resume(
                    returning: Result { () throws(VoiceError) in
                        try VoiceTranscoder.transcode(body, declaredType: contentType, options: options)
                    })
            }
            if !accepted { continuation.resume(returning: nil) }
        }
        guard let transcoded else {
            return .error(
                503, "unavailable", "too many recordings are being transcoded; retry shortly",
                headers: [("Retry-After", "2")])
        }
        let voice: TranscodedVoice
        switch transcoded {
        case .failure(let error):
            if error.httpStatus >= 500 {
                logger.error(
                    "voice upload not transcoded",
                    metadata: [
                        LogKey.op: "voice.upload", LogKey.userId: "\(me.userId)", LogKey.error: "\(error)",
                        LogKey.bytes: "\(body.count)",
                    ])
            }
            return .error(error.httpStatus, error.wireCode, Self.describe(error, options))
        case .success(let v): voice = v
        }
        let elapsed = ContinuousClock.now - started
        do {
            // The uploader's account is locked against deletion first (`ActingAccount`).
            let clip = try await pool.transaction { db in
                try ActingAccount.lock(db, me.userId)
                return try VoiceStore.store(
                    db, uploader: me.userId, audio: voice.ogg, sha256: voice.sha256, durationMs: voice.durationMs,
                    waveform: voice.waveform)
            }
            logger.debug(
                "voice stored",
                metadata: [
                    LogKey.voiceId: "\(clip.id)", LogKey.durationMs: "\(clip.durationMs)", LogKey.bytes: "\(clip.size)",
                    LogKey.transcodeSeconds: "\(elapsed)", LogKey.format: "\(voice.inputFormat)",
                ])
            return .json(
                201,
                [
                    "voice_id": clip.id, "duration_ms": clip.durationMs, "waveform": clip.waveform, "size": clip.size,
                    "sha256": clip.sha256Hex, "mime_type": "audio/ogg",
                ], headers: [("Location", "/voice/\(clip.id)")])
        } catch {
            let e = ServiceError.from(error)
            if e.code != .unavailable && e.code != .notAuthenticated {
                logger.error(
                    "voice upload not stored",
                    metadata: [LogKey.op: "voice.upload", LogKey.userId: "\(me.userId)", LogKey.error: "\(error)"])
            }
            return .error(Self.status(e), e.code.rawValue, e.message)
        }
    }

    static func describe(_ error: VoiceError, _ options: TranscodeOptions) -> String {
        switch error {
        case .unsupportedType: "send WAV (PCM 16/24-bit or float), Ogg/Opus or WebM/Opus"
        case .malformed(let reason): "the audio is malformed: \(reason)"
        case .tooLarge: "the upload is larger than \(options.maxInputBytes) bytes"
        case .tooLong(let ms):
            "the recording is longer than the limit of \(options.maxDurationMs / 1000) s (\(ms / 1000) s or more)"
        case .empty: "the recording has no audio"
        case .encoderFailure: "the recording could not be transcoded"
        }
    }

    /// `GET`/`HEAD /voice/{id}` for an authenticated user (the route checked the token): the clip for its uploader
    /// and for members of a conversation that holds a message referencing it (everyone else: 404), with `ETag`,
    /// `If-None-Match` and single `Range`s.
    func download(id: Int64?, for me: Identity, range: String?, ifNoneMatch: String?) async -> HTTPResult {
        let notFound = HTTPResult.error(404, "not_found", "no such voice clip")
        guard let id else { return notFound }
        let found: (VoiceClip, [UInt8])?
        do {
            found = try await pool.withConnection { db in try VoiceStore.fetch(db, id: id, for: me.userId) }
        } catch {
            let e = ServiceError.from(error)
            if e.code != .unavailable {
                logger.error(
                    "voice clip not read",
                    metadata: [
                        LogKey.op: "voice.download", LogKey.userId: "\(me.userId)", LogKey.voiceId: "\(id)",
                        LogKey.error: "\(error)",
                    ])
            }
            return .error(e.code == .unavailable ? 503 : 500, e.code.rawValue, e.message)
        }
        guard let (clip, audio) = found else { return notFound }
        let etag = "\"\(clip.sha256Hex)\""
        var headers: [(String, String)] = [
            ("Content-Type", "audio/ogg"), ("Accept-Ranges", "bytes"), ("ETag", etag),
            ("Cache-Control", "private, max-age=86400"),
        ]
        if let ifNoneMatch,
            ifNoneMatch.split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == etag || $0 == "*"
            })
        {
            return HTTPResult(status: 304, headers: headers, body: [])
        }
        switch HTTPRange.parse(range, size: audio.count) {
        case .none:
            return HTTPResult(status: 200, headers: headers, body: audio)
        case .unsatisfiable:
            return HTTPResult(status: 416, headers: [("Content-Range", "bytes */\(audio.count)")], body: [])
        case .range(let r):
            headers.append(("Content-Range", "bytes \(r.lowerBound)-\(r.upperBound)/\(audio.count)"))
            return HTTPResult(status: 206, headers: headers, body: Array(audio[r]))
        }
    }

    /// The HTTP status of a failed upload: 503 to retry, 401 for a deleted account, 500 otherwise.
    static func status(_ e: ServiceError) -> Int {
        switch e.code {
        case .unavailable: 503
        case .notAuthenticated: 401
        default: 500
        }
    }
}
