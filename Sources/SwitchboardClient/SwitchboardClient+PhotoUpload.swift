//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardTransport

// Photos over HTTP (`POST /photos`, tus at `/uploads`) on the same host and port as the client's WebSocket (TLS
// for `wss`), authorized with the client's session token, like the voice clips (SwitchboardClient+Voice.swift).
extension SwitchboardClient {
    /// Uploads a photo with the client's session token: a file up to `options.resumableThreshold` bytes in one
    /// `POST /photos`, a larger one as a tus 1.0.0 upload (`POST /uploads`, `PATCH` per chunk, resumed from the
    /// server's offset after a dropped connection) finished by `POST /photos?upload={id}`.
    /// - Parameters:
    ///   - bytes: the file: JPEG, PNG, WebP or HEIC (the server sniffs the format from the bytes).
    ///   - options: metadata opt-in, the tus threshold, chunk size and resume attempts.
    ///   - progress: called with (bytes the server has, total) after each chunk (tus only), on any thread.
    ///   - timeout: seconds for each HTTP exchange, including the server's processing (default: twice
    ///     `configuration.requestTimeout`).
    /// - Returns: the stored photo (`duplicate` when you had uploaded the same file before).
    /// - Throws: `.server(ServerError)` with the server's code: `not_authenticated` (no session yet),
    ///   `invalid_token` (401), `image_empty` (400), `image_too_large` (413), `unsupported_media_type` (415),
    ///   `image_too_many_pixels` / `image_corrupt` (422), `image_processing_failed` (500), `unavailable` (503, with
    ///   `retryAfterMs`), `rate_limited`, `not_found` (an upload that expired); `.connectFailed`, `.timeout`,
    ///   `.connectionLost`, `.invalidMessage`, `.cancelled`.
    public func uploadPhoto(
        bytes: [UInt8], options: PhotoUploadOptions = PhotoUploadOptions(),
        progress: (@Sendable (_ received: Int, _ total: Int) -> Void)? = nil, timeout: Double? = nil
    ) async throws(SwitchboardClientError) -> PhotoUploadResult {
        let token = try await requireSessionToken()
        let endpoint = await currentEndpoint
        return try await Self.uploadPhoto(
            bytes: bytes, endpoint: endpoint, token: token, tls: try httpTLS(endpoint), serverName: httpServerName,
            loop: loop, options: options, progress: progress, timeout: timeout ?? configuration.requestTimeout * 2)
    }

    /// `uploadPhoto` without a client: for tools that hold a token and a loop (the load tester).
    public static func uploadPhoto(
        bytes: [UInt8], endpoint: ServerEndpoint, token: String, tls: TLSContext? = nil, serverName: String? = nil,
        loop: EventLoop, options: PhotoUploadOptions = PhotoUploadOptions(),
        progress: (@Sendable (_ received: Int, _ total: Int) -> Void)? = nil, timeout: Double = 30
    ) async throws(SwitchboardClientError) -> PhotoUploadResult {
        let http = PhotoHTTP(
            endpoint: endpoint, token: token, tls: try resolvedTLS(endpoint, tls),
            serverName: serverName ?? defaultServerName(endpoint), loop: loop, timeout: timeout)
        let query = options.keepMetadata ? "keep_metadata=1" : ""
        guard bytes.count > options.resumableThreshold else {
            let response = try await http.run("POST", "/photos" + (query.isEmpty ? "" : "?" + query), body: bytes)
            return try decodePhoto(response)
        }
        let uploadId = try await tusUpload(bytes, kind: "photo", http: http, options: options, progress: progress)
        let path = "/photos?upload=\(uploadId)" + (query.isEmpty ? "" : "&" + query)
        let response = try await http.run("POST", path, body: [])
        return try decodePhoto(response)
    }

    private static func decodePhoto(_ response: HTTPExchangeResponse) throws(SwitchboardClientError)
        -> PhotoUploadResult
    {
        guard response.status == 201 || response.status == 200 else { throw httpError(response, op: "POST /photos") }
        do {
            return try WireCoding.decoder().decode(PhotoUploadResult.self, from: Data(response.body))
        } catch {
            throw .invalidMessage("POST /photos: \(error)")
        }
    }

    /// A tus 1.0.0 upload of `bytes` (creation, then `PATCH`es resumed from `HEAD`'s offset after a failure);
    /// returns the upload's id once the server has every byte. A failed upload is terminated (`DELETE`, best
    /// effort), so that it does not count against the pending-upload limit until it expires.
    static func tusUpload(
        _ bytes: [UInt8], kind: String, http: PhotoHTTP, options: PhotoUploadOptions,
        progress: (@Sendable (Int, Int) -> Void)?
    ) async throws(SwitchboardClientError) -> String {
        let tus = [("Tus-Resumable", "1.0.0")]
        let metadata = "kind " + Data(kind.utf8).base64EncodedString()
        let created = try await http.run(
            "POST", "/uploads", headers: tus + [("Upload-Length", String(bytes.count)), ("Upload-Metadata", metadata)],
            body: [])
        guard created.status == 201, let location = created.header("location"), let path = uploadPath(location) else {
            throw created.status == 201
                ? .invalidMessage("POST /uploads: 201 without a usable Location")
                : httpError(created, op: "POST /uploads")
        }
        let uploadId = String(path.dropFirst("/uploads/".count))
        var offset = 0
        var failures = 0
        do throws(SwitchboardClientError) {
            while offset < bytes.count {
                if Task.isCancelled { throw .cancelled }
                let end = min(bytes.count, offset + options.chunkSize)
                let result: Result<HTTPExchangeResponse, SwitchboardClientError>
                do throws(SwitchboardClientError) {
                    result = .success(
                        try await http.run(
                            "PATCH", path,
                            headers: tus + [
                                ("Content-Type", "application/offset+octet-stream"), ("Upload-Offset", String(offset)),
                            ],
                            body: Array(bytes[offset..<end])))
                } catch {
                    result = .failure(error)
                }
                switch result {
                case .success(let r) where r.status == 204:
                    guard
                        let next = r.header("upload-offset").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
                        next > offset, next <= bytes.count
                    else { throw .invalidMessage("PATCH \(path): 204 with a bad Upload-Offset") }
                    offset = next
                    failures = 0
                    progress?(offset, bytes.count)
                    continue
                case .success(let r) where r.status == 409 || r.status >= 500:
                    // 409: the server has a different offset (an earlier PATCH landed after all); 5xx: try again.
                    break
                case .success(let r):
                    throw httpError(r, op: "PATCH \(path)")
                case .failure(.cancelled):
                    throw .cancelled
                case .failure(.timeout), .failure(.connectionLost), .failure(.connectFailed):
                    // The connection dropped mid-chunk: the bytes that arrived are stored; ask where to go on.
                    break
                case .failure(let error):
                    throw error
                }
                failures += 1
                if failures > options.maxResumes {
                    switch result {
                    case .failure(let error): throw error
                    case .success(let r): throw httpError(r, op: "PATCH \(path)")
                    }
                }
                try await Task.sleep(milliseconds: min(2_000, 100 << min(failures, 5)))
                offset = try await tusOffset(path, http: http, length: bytes.count)
                progress?(offset, bytes.count)
            }
        } catch {
            if error != .cancelled {
                _ = try? await http.run("DELETE", path, headers: tus, body: [])
            }
            throw error
        }
        return uploadId
    }

    /// The offset the server has stored for an upload (`HEAD`).
    static func tusOffset(_ path: String, http: PhotoHTTP, length: Int) async throws(SwitchboardClientError) -> Int {
        let r = try await http.run("HEAD", path, headers: [("Tus-Resumable", "1.0.0")], body: [])
        guard r.status == 200 || r.status == 204 else { throw httpError(r, op: "HEAD \(path)") }
        guard let offset = r.header("upload-offset").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
            offset >= 0, offset <= length
        else { throw .invalidMessage("HEAD \(path): a bad Upload-Offset") }
        return offset
    }

    /// `/uploads/{id}` from a `Location` (a path or an absolute URL); nil for anything else.
    static func uploadPath(_ location: String) -> String? {
        var text = location.trimmingCharacters(in: .whitespaces)
        if let scheme = text.range(of: "://") {
            guard let slash = text[scheme.upperBound...].firstIndex(of: "/") else { return nil }
            text = String(text[slash...])
        }
        guard text.hasPrefix("/uploads/") else { return nil }
        let id = text.dropFirst("/uploads/".count)
        guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }), id.count <= 100
        else {
            return nil
        }
        return text
    }
}

extension Task where Success == Never, Failure == Never {
    /// Sleeps; a cancelled task stops at once with `.cancelled`.
    fileprivate static func sleep(milliseconds: Int) async throws(SwitchboardClientError) {
        do {
            try await Task.sleep(nanoseconds: UInt64(milliseconds) * 1_000_000)
        } catch {
            throw .cancelled
        }
    }
}
