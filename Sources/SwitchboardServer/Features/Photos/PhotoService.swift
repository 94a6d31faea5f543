//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CoreMetrics
import Logging
import Prometheus
import SwitchboardCore
import SwitchboardDomain
import SwitchboardImages
import SwitchboardStore
import SwitchboardWebSocket
import Synchronization

/// Photos over HTTP: uploads processed on a bounded worker pool (never on a loop queue or the request executor),
/// renditions stored in PostgreSQL and served with ETags, ranges and a per-node cache, and tus 1.0 uploads for
/// photos and voice.
final class PhotoService: Sendable {
    let configuration: PhotoConfiguration
    let voice: VoiceService
    let pool: DatabasePool
    let logger: Logger
    let workers: WorkerPool
    /// HEIF images' own workers (`--photo-heic-workers`).
    let heifWorkers: WorkerPool
    let cache: PhotoCache
    /// The expiry sweep's task (cancelled with the service).
    private let sweep = Mutex<Task<Void, Never>?>(nil)
    /// Where the sweep runs: a Dispatch-backed executor of its own, like every other task of the server, never the
    /// shared cooperative pool (code blocking its few threads, such as synchronous tests in the same process, held
    /// the sweep back for longer than a test waits).
    private let sweepExecutor = DispatchTaskExecutor(label: "switchboard.photos.sweep")
    private let uploadsStored: CoreMetrics.Counter
    private let uploadsDuplicate: CoreMetrics.Counter
    private let uploadsRefused: CoreMetrics.Counter
    private let downloads: CoreMetrics.Counter
    private let cacheHits: CoreMetrics.Counter
    private let cacheMisses: CoreMetrics.Counter
    private let cacheBytesGauge: CoreMetrics.Gauge
    private let chunksStored: CoreMetrics.Counter
    private let uploadsExpired: CoreMetrics.Counter
    /// `switchboard_photo_processing_seconds`: one worker job of a stored upload (decode, both renditions in both
    /// formats, colour, the input's and the renditions' SHA-256), measured on the worker.
    private let processing: DurationHistogram

    static let tusHeaders: [(String, String)] = [("Tus-Resumable", "1.0.0")]

    init(
        configuration: PhotoConfiguration, nice: Int32 = 0, voice: VoiceService, pool: DatabasePool,
        metrics: ServerMetrics, logger: Logger
    ) {
        self.configuration = configuration
        self.voice = voice
        self.pool = pool
        self.logger = logger
        workers = WorkerPool(
            workers: configuration.workers, maxWaiting: configuration.maxWaiting, label: "switchboard.photos",
            nice: nice)
        heifWorkers = WorkerPool(
            workers: configuration.heifWorkers, maxWaiting: configuration.maxWaiting, label: "switchboard.photos.heic",
            nice: nice)
        cache = PhotoCache(capacityBytes: configuration.cacheBytes)
        let f = metrics.factory
        uploadsStored = CoreMetrics.Counter(
            label: "switchboard_photo_uploads_total", dimensions: [("result", "stored")], factory: f)
        uploadsDuplicate = CoreMetrics.Counter(
            label: "switchboard_photo_uploads_total", dimensions: [("result", "duplicate")], factory: f)
        uploadsRefused = CoreMetrics.Counter(
            label: "switchboard_photo_uploads_total", dimensions: [("result", "refused")], factory: f)
        downloads = CoreMetrics.Counter(label: "switchboard_photo_downloads_total", factory: f)
        cacheHits = CoreMetrics.Counter(
            label: "switchboard_photo_cache_total", dimensions: [("result", "hit")], factory: f)
        cacheMisses = CoreMetrics.Counter(
            label: "switchboard_photo_cache_total", dimensions: [("result", "miss")], factory: f)
        cacheBytesGauge = CoreMetrics.Gauge(label: "switchboard_photo_cache_bytes", factory: f)
        chunksStored = CoreMetrics.Counter(label: "switchboard_upload_chunks_total", factory: f)
        uploadsExpired = CoreMetrics.Counter(label: "switchboard_uploads_expired_total", factory: f)
        processing = metrics.registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                namespace: "switchboard", subsystem: "photo", metricName: "processing", unitName: "seconds",
                helpText:
                    "Worker time of one processed photo upload: decode, both renditions in WebP and JPEG, hashes"),
            buckets: Self.processingBuckets)
        // The expiry sweep: every quarter of the expiry (at most hourly, at most twice a second).
        let interval = min(3600, max(0.5, configuration.uploadExpirySeconds / 4))
        let expiry = configuration.uploadExpirySeconds
        let task = Task(executorPreference: sweepExecutor) { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(interval))
                guard let self, !Task.isCancelled else { return }
                await self.sweepExpired(olderThanSeconds: expiry)
            }
        }
        sweep.withLock { $0 = task }
    }

    deinit { sweep.withLock { $0?.cancel() } }

    /// Removes uploads idle longer than `seconds` (in a cluster every node may run it: the DELETE is idempotent).
    @discardableResult
    func sweepExpired(olderThanSeconds seconds: Double) async -> Int {
        do {
            let n = try await pool.withConnection { db in try UploadRepository.deleteIdle(db, olderThanSeconds: seconds)
            }
            if n > 0 { uploadsExpired.increment(by: n) }
            return n
        } catch {
            logger.debug("upload sweep failed", metadata: [LogKey.error: "\(error)"])
            return 0
        }
    }

    // MARK: Upload and processing

    /// Runs `job` on a photo worker pool (HEIF images on their own, `--photo-heic-workers`); nil when its queue is
    /// full.
    private func onWorker<T: Sendable>(heif: Bool = false, _ job: @escaping @Sendable () -> T) async -> T? {
        let pool = heif ? heifWorkers : workers
        return await withCheckedContinuation { continuation in
            let accepted = pool.submit { continuation.resume(returning: job()) }
            if !accepted { continuation.resume(returning: nil) }
        }
    }

    /// Buckets of `switchboard_photo_processing_seconds`: fine around the 300 ms budget of a 12 MP photo, up to HEIC's
    /// second.
    static let processingBuckets: [Duration] = [
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(150),
        .milliseconds(200),
        .milliseconds(250), .milliseconds(300), .milliseconds(350), .milliseconds(400), .milliseconds(500),
        .milliseconds(750),
        .seconds(1), .milliseconds(1500), .seconds(2), .seconds(5),
    ]

    static let busy = HTTPResult.error(
        503, "unavailable", "too many photos are being processed; retry shortly", headers: [("Retry-After", "2")])

    /// `POST /photos` once the body is in (its token was checked before the body was read).
    func upload(body: [UInt8], keepMetadata: Bool, uploader me: Identity) async -> HTTPResult {
        let result = await store(body: body, keepMetadata: keepMetadata, uploader: me)
        if result.status != 201 && result.status != 200 { uploadsRefused.increment() }
        return result
    }

    private func store(body: [UInt8], keepMetadata: Bool, uploader me: Identity) async -> HTTPResult {
        if body.isEmpty { return Self.imageError(.empty) }
        if body.count > configuration.maxBytes {
            return Self.imageError(.tooLarge(byteCount: body.count, limit: configuration.maxBytes))
        }
        // The same file from the same user: the stored photo, without decoding it again. The hash runs on the
        // database connection's queue (a few ms for a phone photo), so an upload takes the photo pool once.
        do {
            if let found = try await pool.withConnection({ db in
                try PhotoRepository.existing(db, owner: me.userId, sha256: PhotoRepository.sha256(body))
            }) {
                uploadsDuplicate.increment()
                return Self.created(found, duplicate: true)
            }
        } catch {
            return failure(error, op: "photos.upload", userId: me.userId)
        }
        // Decoding, encoding and the renditions' hashes: one job on the photo worker pool.
        let limits = configuration.imageLimits
        let histogram = processing
        // A HEIF image is decoded whole (no shrink-on-load): on the HEIF workers, few, so that a burst of phone HEICs
        // holds at most `--photo-heic-workers` decoded pictures (the sniff reads a few header bytes).
        let heif = (try? ImageSniffer.format(of: body)) == .heif
        let job = { @Sendable () -> Result<PhotoInput, ImageError> in
            let clock = ContinuousClock()
            let start = clock.now
            let result = Result { () throws(ImageError) in
                Self.input(
                    try ImagePipeline.process(bytes: body, limits: limits, keepMetadata: keepMetadata),
                    keepMetadata: keepMetadata)
            }
            // Stored uploads only: a refused file (a bomb, a corrupt body) costs microseconds to milliseconds and
            // would hide the photos' time.
            if case .success = result { histogram.record(clock.now - start) }
            return result
        }
        guard let processed = await onWorker(heif: heif, job)
        else { return Self.busy }
        let input: PhotoInput
        switch processed {
        case .failure(let error):
            if error.httpStatus >= 500 {
                logger.error(
                    "photo not processed",
                    metadata: [LogKey.op: "photos.upload", LogKey.userId: "\(me.userId)", LogKey.error: "\(error)"])
            }
            return Self.imageError(error)
        case .success(let i): input = i
        }
        do {
            let (photo, duplicate) = try await pool.withConnection { db in
                try PhotoRepository.store(db, owner: me.userId, photo: input)
            }
            (duplicate ? uploadsDuplicate : uploadsStored).increment()
            logger.debug("photo stored", metadata: [LogKey.userId: "\(me.userId)", LogKey.bytes: "\(body.count)"])
            return Self.created(photo, duplicate: duplicate)
        } catch {
            return failure(error, op: "photos.upload", userId: me.userId)
        }
    }

    static func input(_ image: ProcessedImage, keepMetadata: Bool) -> PhotoInput {
        func rendition(_ size: String, _ r: ImageRendition) -> [PhotoRenditionInput] {
            [
                PhotoRenditionInput(
                    size: size, format: "webp", width: r.width, height: r.height, bytes: r.webp,
                    sha256: PhotoRepository.sha256(r.webp)),
                PhotoRenditionInput(
                    size: size, format: "jpeg", width: r.width, height: r.height, bytes: r.jpeg,
                    sha256: PhotoRepository.sha256(r.jpeg)),
            ]
        }
        return PhotoInput(
            // The schema's names: jpeg, png, webp, heic.
            sha256: image.sha256, format: image.format == .heif ? "heic" : image.format.rawValue, width: image.width,
            height: image.height, color: image.dominantColor,
            hasAlpha: image.hasAlpha, keptMetadata: keepMetadata,
            renditions: rendition("display", image.display) + rendition("thumb", image.thumbnail))
    }

    static func created(_ photo: PhotoRecord, duplicate: Bool) -> HTTPResult {
        var object = photo.json
        object["duplicate"] = duplicate
        return .json(201, object, headers: [("Location", "/photos/\(photo.id)")])
    }

    static func imageError(_ error: ImageError) -> HTTPResult {
        .error(error.httpStatus, error.wireCode, error.message)
    }

    private func failure(_ error: any Error, op: String, userId: Int64) -> HTTPResult {
        let e = ServiceError.from(error)
        if e.code != .unavailable && e.code != .notAuthenticated {
            logger.error(
                "photo request failed",
                metadata: [LogKey.op: "\(op)", LogKey.userId: "\(userId)", LogKey.error: "\(error)"])
        }
        return .error(
            VoiceService.status(e), e.code.rawValue, e.message,
            headers: e.code == .unavailable ? [("Retry-After", "2")] : [])
    }

    // MARK: Serving

    /// `GET`/`HEAD /photos/{id}`.
    func download(
        id: Int64?, query: [String: String], accept: String?, authorization: String?, range: String?,
        ifNoneMatch: String?
    ) async -> HTTPResult {
        let me: Identity
        switch await voice.identity(authorization) {
        case .failure(let result): return result
        case .success(let identity): me = identity
        }
        let size = query["size"] ?? "display"
        guard size == "display" || size == "thumb" else {
            return .error(400, "bad_request", "size is display or thumb")
        }
        let format: String
        var vary = false
        if let f = query["format"] {
            guard f == "webp" || f == "jpeg" else { return .error(400, "bad_request", "format is webp or jpeg") }
            format = f
        } else {
            vary = true
            format = (accept ?? "").lowercased().contains("image/webp") ? "webp" : "jpeg"
        }
        let notFound = HTTPResult.error(404, "not_found", "no such photo")
        guard let id else { return notFound }
        let key = PhotoCache.Key(photoId: id, size: size, format: format)
        let cached = cache.get(key)
        let found: PhotoRenditionBytes?
        do {
            found = try await pool.withConnection { db in
                try PhotoRepository.fetchRendition(
                    db, viewer: me.userId, photoId: id, size: size, format: format, withBytes: cached == nil)
            }
        } catch {
            return failure(error, op: "photos.download", userId: me.userId)
        }
        guard let found else { return notFound }
        let bytes: [UInt8]
        if let cached, cached.sha256 == found.sha256 {
            cacheHits.increment()
            bytes = cached.bytes
        } else if let fresh = found.bytes {
            cacheMisses.increment()
            bytes = fresh
            cache.put(key, PhotoCache.Entry(sha256: found.sha256, bytes: fresh))
            cacheBytesGauge.record(cache.usage.bytes)
        } else {
            return .error(503, "unavailable", "retry shortly", headers: [("Retry-After", "1")])
        }
        downloads.increment()
        let etag = "\"\(PhotoRepository.hex(found.sha256))\""
        var headers: [(String, String)] = [
            ("Content-Type", format == "webp" ? "image/webp" : "image/jpeg"), ("Accept-Ranges", "bytes"),
            ("ETag", etag),
            ("Cache-Control", "private, max-age=31536000, immutable"), ("X-Content-Type-Options", "nosniff"),
        ]
        if vary { headers.append(("Vary", "Accept")) }
        if let ifNoneMatch,
            ifNoneMatch.split(separator: ",").contains(where: {
                let t = $0.trimmingCharacters(in: .whitespaces); return t == etag || t == "W/\(etag)" || t == "*"
            })
        {
            return HTTPResult(status: 304, headers: headers, body: [])
        }
        switch HTTPRange.parse(range, size: bytes.count) {
        case .none:
            return HTTPResult(status: 200, headers: headers, body: bytes)
        case .unsatisfiable:
            return HTTPResult(status: 416, headers: [("Content-Range", "bytes */\(bytes.count)")], body: [])
        case .range(let r):
            headers.append(("Content-Range", "bytes \(r.lowerBound)-\(r.upperBound)/\(bytes.count)"))
            return HTTPResult(status: 206, headers: headers, body: Array(bytes[r]))
        }
    }

    // MARK: Resumable uploads (tus 1.0.0)

    static func tus(_ status: Int, _ headers: [(String, String)] = []) -> HTTPResult {
        HTTPResult(status: status, headers: tusHeaders + headers, body: [])
    }

    static func tusError(_ status: Int, _ code: String, _ message: String, headers: [(String, String)] = [])
        -> HTTPResult
    {
        .error(status, code, message, headers: tusHeaders + headers)
    }

    /// `OPTIONS /uploads`.
    var options: HTTPResult {
        Self.tus(
            204,
            [
                ("Tus-Version", "1.0.0"), ("Tus-Extension", "creation,termination"),
                ("Tus-Max-Size", String(max(configuration.maxBytes, voice.configuration.maxUploadBytes))),
            ])
    }

    /// The kind named by an `Upload-Metadata` header (`kind` base64 of `photo` or `voice`; photo by default).
    static func kind(ofMetadata metadata: String) -> String? {
        for pair in metadata.split(separator: ",") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard parts.first == "kind" else { continue }
            guard parts.count == 2, let decoded = Base64URL.decodeStandard(String(parts[1])) else { return nil }
            let value = String(decoding: decoded, as: UTF8.self)
            return value == "photo" || value == "voice" ? value : nil
        }
        return "photo"
    }

    /// The most bytes an upload of `kind` may have.
    func maxBytes(kind: String) -> Int { kind == "voice" ? voice.configuration.maxUploadBytes : configuration.maxBytes }

    /// `POST /uploads` (creation).
    func create(authorization: String?, length: String?, metadata: String?) async -> HTTPResult {
        let me: Identity
        switch await voice.identity(authorization) {
        case .failure(var result):
            result.headers += Self.tusHeaders
            return result
        case .success(let identity): me = identity
        }
        guard let lengthText = length, lengthText.utf8.count <= 18,
            lengthText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let length = Int64(lengthText), length > 0
        else { return Self.tusError(400, "bad_request", "send Upload-Length (a positive number of bytes)") }
        let metadata = metadata ?? ""
        guard metadata.utf8.count <= 4096 else {
            return Self.tusError(400, "bad_request", "Upload-Metadata is too long")
        }
        guard let kind = Self.kind(ofMetadata: metadata) else {
            return Self.tusError(400, "bad_request", "kind is photo or voice")
        }
        guard length <= Int64(maxBytes(kind: kind)) else {
            return Self.tusError(
                413, kind == "voice" ? "audio_too_large" : "image_too_large",
                "the upload is larger than \(maxBytes(kind: kind)) bytes")
        }
        let id = Base64URL.randomID()
        let limit = configuration.maxPendingUploads
        do {
            let created = try await pool.withConnection { db in
                try UploadRepository.create(
                    db, id: id, owner: me.userId, kind: kind, length: length, metadata: metadata, maxPending: limit)
            }
            guard created != nil else {
                return Self.tusError(
                    429, "rate_limited", "at most \(limit) uploads may be in progress; finish or delete one")
            }
            return Self.tus(201, [("Location", "/uploads/\(id)"), ("Upload-Offset", "0")])
        } catch {
            var result = failure(error, op: "uploads.create", userId: me.userId)
            result.headers += Self.tusHeaders
            return result
        }
    }

    /// `HEAD /uploads/{id}` and `DELETE /uploads/{id}`.
    func status(id: String, authorization: String?, delete: Bool) async -> HTTPResult {
        let me: Identity
        switch await voice.identity(authorization) {
        case .failure(var result):
            result.headers += Self.tusHeaders
            return result
        case .success(let identity): me = identity
        }
        do {
            if delete {
                let deleted = try await pool.withConnection { db in
                    try UploadRepository.delete(db, id: id, owner: me.userId)
                }
                return deleted ? Self.tus(204) : Self.tusError(404, "not_found", "no such upload")
            }
            guard
                let upload = try await pool.withConnection({ db in
                    try UploadRepository.get(db, id: id, owner: me.userId)
                })
            else {
                return Self.tusError(404, "not_found", "no such upload")
            }
            var headers: [(String, String)] = [
                ("Upload-Offset", String(upload.received)), ("Upload-Length", String(upload.length)),
                ("Cache-Control", "no-store"),
            ]
            if !upload.metadata.isEmpty { headers.append(("Upload-Metadata", upload.metadata)) }
            return Self.tus(200, headers)
        } catch {
            var result = failure(error, op: "uploads.head", userId: me.userId)
            result.headers += Self.tusHeaders
            return result
        }
    }

    /// Before a PATCH body is read: the token, the upload (the owner's), the offset and the length.
    func checkChunk(id: String, authorization: String?, offset: String?, contentLength: Int) async -> Result<
        (Identity, UploadTarget), HTTPResult
    > {
        let me: Identity
        switch await voice.identity(authorization, countsAsUpload: false) {
        case .failure(var result):
            result.headers += Self.tusHeaders
            return .failure(result)
        case .success(let identity): me = identity
        }
        guard let offsetText = offset, offsetText.utf8.count <= 18,
            offsetText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let offset = Int64(offsetText)
        else { return .failure(Self.tusError(400, "bad_request", "send Upload-Offset")) }
        let upload: UploadRecord?
        do {
            upload = try await pool.withConnection { db in try UploadRepository.get(db, id: id, owner: me.userId) }
        } catch {
            var result = failure(error, op: "uploads.patch", userId: me.userId)
            result.headers += Self.tusHeaders
            return .failure(result)
        }
        guard let upload else { return .failure(Self.tusError(404, "not_found", "no such upload")) }
        guard upload.received == offset else {
            return .failure(
                Self.tusError(
                    409, "bad_request", "the upload is at offset \(upload.received)",
                    headers: [("Upload-Offset", String(upload.received))]))
        }
        guard Int64(contentLength) <= upload.length - upload.received else {
            return .failure(Self.tusError(413, "bad_request", "the chunk goes past Upload-Length"))
        }
        return .success((me, .chunk(id: id, owner: me.userId, offset: offset)))
    }

    /// Stores a PATCH's bytes (all of them, or those that arrived before the connection dropped).
    func storeChunk(id: String, owner: Int64, offset: Int64, data: [UInt8]) async -> HTTPResult {
        do {
            let stored = try await pool.withConnection { db in
                try UploadRepository.append(db, id: id, owner: owner, offset: offset, data: data)
            }
            guard let stored else {
                return Self.tusError(409, "bad_request", "the upload's offset moved, or it is gone")
            }
            if !data.isEmpty { chunksStored.increment() }
            return Self.tus(204, [("Upload-Offset", String(stored))])
        } catch {
            var result = failure(error, op: "uploads.patch", userId: owner)
            result.headers += Self.tusHeaders
            return result
        }
    }

    /// `POST /photos?upload=ID` and `POST /voice?upload=ID`: processes a complete upload like a direct one and, once
    /// stored, deletes it.
    func complete(uploadId: String, kind: String, keepMetadata: Bool, authorization: String?) async -> HTTPResult {
        let me: Identity
        switch await voice.identity(authorization) {
        case .failure(let result): return result
        case .success(let identity): me = identity
        }
        // The assembled bytes are held like a direct upload's body: under one of the shared upload slots.
        if let refusal = voice.beginUpload(userId: me.userId) { return VoiceService.busy(refusal) }
        defer { voice.endUpload(userId: me.userId) }
        let found: (UploadRecord, [UInt8])?
        do {
            found = try await pool.withConnection { db in
                try UploadRepository.completeBytes(db, id: uploadId, owner: me.userId)
            }
        } catch {
            return failure(error, op: "uploads.complete", userId: me.userId)
        }
        guard let (upload, bytes) = found, upload.kind == kind else {
            return .error(404, "not_found", "no complete \(kind) upload with that id")
        }
        let result =
            kind == "voice"
            ? await voice.upload(body: bytes, contentType: nil, uploader: me)
            : await self.upload(body: bytes, keepMetadata: keepMetadata, uploader: me)
        if result.status == 201 {
            _ = try? await pool.withConnection { db in try UploadRepository.delete(db, id: uploadId, owner: me.userId) }
        }
        return result
    }
}
