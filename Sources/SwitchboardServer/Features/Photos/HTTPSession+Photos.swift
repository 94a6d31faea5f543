//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardTransport
import SwitchboardWebSocket

/// `POST /photos`, `GET`/`HEAD /photos/{id}` and tus 1.0 at `/uploads` (on the connection's loop; the work runs off
/// it). See docs/photos.md.
extension HTTPSession {
    func handlePhotos(_ head: HTTPRequestHead, rest: UnsafeRawBufferPointer) {
        guard let services = server.services else { return }
        let photos = services.photos
        let bodyLength = head.contentLength ?? 0
        let query = Self.queryItems(head.query)
        let authorization = head.headers["authorization"]
        if head.path == "/photos" {
            guard head.method == "POST" else {
                finish(.error(405, "bad_request", "upload with POST", headers: [("Allow", "POST")]), keepAlive: false)
                return
            }
            let keepMetadata = query["keep_metadata"] == "1" || query["keep_metadata"] == "true"
            if let uploadId = query["upload"] {
                completeUpload(head, rest: rest, uploadId: uploadId, kind: "photo", keepMetadata: keepMetadata)
                return
            }
            if head.isChunked || head.contentLength == nil {
                finish(.error(411, "length_required", "send the photo with a Content-Length"), keepAlive: false)
                return
            }
            guard bodyLength <= photos.configuration.maxBytes else {
                finish(
                    PhotoService.imageError(.tooLarge(byteCount: bodyLength, limit: photos.configuration.maxBytes)),
                    keepAlive: false)
                return
            }
            guard bodyLength > 0 else {
                finish(PhotoService.imageError(.empty), keepAlive: head.keepAlive && rest.isEmpty)
                return
            }
            readBody(head, rest: rest) {
                await services.voice.identity(authorization, countsAsUpload: false).map {
                    ($0, UploadTarget.photo(keepMetadata: keepMetadata))
                }
            }
            return
        }
        if head.path.hasPrefix("/photos/") {
            guard head.method == "GET" || head.method == "HEAD" else {
                finish(
                    .error(405, "bad_request", "method not allowed", headers: [("Allow", "GET, HEAD")]),
                    keepAlive: false)
                return
            }
            guard noBody(head) else { return }
            let idText = head.path.dropFirst("/photos/".count)
            let id = idText.count <= 18 && idText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) ? Int64(idText) : nil
            let accept = head.headers["accept"]
            let range = head.headers["range"]
            let ifNoneMatch = head.headers["if-none-match"]
            process(keepAlive: head.keepAlive && rest.isEmpty, isHead: head.method == "HEAD") {
                await photos.download(
                    id: id, query: query, accept: accept, authorization: authorization, range: range,
                    ifNoneMatch: ifNoneMatch)
            }
            return
        }
        handleTus(head, rest: rest, photos: photos)
    }

    /// tus 1.0.0 core + creation + termination at `/uploads`.
    private func handleTus(_ head: HTTPRequestHead, rest: UnsafeRawBufferPointer, photos: PhotoService) {
        let authorization = head.headers["authorization"]
        let keepAlive = head.keepAlive && rest.isEmpty
        if head.method == "OPTIONS" {
            guard noBody(head) else { return }
            finish(photos.options, keepAlive: keepAlive)
            return
        }
        guard head.headers["tus-resumable"] == "1.0.0" else {
            finish(
                PhotoService.tusError(
                    412, "bad_request", "send Tus-Resumable: 1.0.0", headers: [("Tus-Version", "1.0.0")]),
                keepAlive: false)
            return
        }
        if head.path == "/uploads" {
            guard head.method == "POST" else {
                finish(
                    PhotoService.tusError(
                        405, "bad_request", "create with POST", headers: [("Allow", "POST, OPTIONS")]), keepAlive: false
                )
                return
            }
            guard noBody(head) else { return }
            let length = head.headers["upload-length"]
            let metadata = head.headers["upload-metadata"]
            process(keepAlive: keepAlive, isHead: false) {
                await photos.create(authorization: authorization, length: length, metadata: metadata)
            }
            return
        }
        let id = String(head.path.dropFirst("/uploads/".count))
        switch head.method {
        case "HEAD", "DELETE":
            guard noBody(head) else { return }
            let delete = head.method == "DELETE"
            process(keepAlive: keepAlive, isHead: !delete) {
                await photos.status(id: id, authorization: authorization, delete: delete)
            }
        case "PATCH":
            guard head.headers["content-type"]?.lowercased() == "application/offset+octet-stream" else {
                finish(
                    PhotoService.tusError(
                        415, "unsupported_media_type", "send Content-Type: application/offset+octet-stream"),
                    keepAlive: false)
                return
            }
            if head.isChunked || head.contentLength == nil {
                finish(
                    PhotoService.tusError(411, "length_required", "send the chunk with a Content-Length"),
                    keepAlive: false)
                return
            }
            let offset = head.headers["upload-offset"]
            let contentLength = head.contentLength ?? 0
            readBody(head, rest: rest) {
                await photos.checkChunk(
                    id: id, authorization: authorization, offset: offset, contentLength: contentLength)
            }
        default:
            finish(
                PhotoService.tusError(
                    405, "bad_request", "method not allowed", headers: [("Allow", "HEAD, PATCH, DELETE")]),
                keepAlive: false)
        }
    }

    /// `POST /photos?upload=ID` or `POST /voice?upload=ID`: no body; processes the complete upload.
    func completeUpload(
        _ head: HTTPRequestHead, rest: UnsafeRawBufferPointer, uploadId: String, kind: String, keepMetadata: Bool
    ) {
        guard let photos = server.services?.photos, noBody(head) else { return }
        let authorization = head.headers["authorization"]
        process(keepAlive: head.keepAlive && rest.isEmpty, isHead: false) {
            await photos.complete(
                uploadId: uploadId, kind: kind, keepMetadata: keepMetadata, authorization: authorization)
        }
    }

}
