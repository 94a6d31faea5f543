//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardTransport

// Voice clips over HTTP (`POST /voice`, `GET /voice/{id}`) on the same host and port as the client's
// WebSocket (TLS for `wss`), authorized with the client's session token. Each exchange uses one short-lived
// connection of its own on the client's loop.
extension SwitchboardClient {
    /// Uploads a recording (`POST /voice`) with the client's session token.
    /// - Parameters:
    ///   - audio: the recording: WAV, Ogg/Opus or WebM/Opus (the content decides; see docs/voice.md).
    ///   - contentType: sent as `Content-Type` when given (`audio/wav`, `audio/ogg`, `audio/webm`).
    ///   - timeout: seconds for the whole exchange, including the server's transcoding (default: twice
    ///     `configuration.requestTimeout`).
    /// - Returns: the stored clip; send it with `sendVoice(voiceId:to:)`.
    /// - Throws: `.server(ServerError)` with the server's code: `not_authenticated` (the client has no session
    ///   yet: `register`, `login` or `authenticate` first), `invalid_token` (401), `length_required` (411),
    ///   `audio_too_large` / `audio_too_long` (413), `unsupported_media_type` (415), `malformed_audio` /
    ///   `audio_empty` (422), `unavailable` (503, with `retryAfterMs` from `Retry-After`); `.connectFailed`,
    ///   `.timeout`, `.connectionLost`, `.invalidMessage`, `.cancelled`.
    public func uploadVoice(_ audio: [UInt8], contentType: String? = nil, timeout: Double? = nil)
        async throws(SwitchboardClientError) -> VoiceUploadResult
    {
        let token = try await requireSessionToken()
        let endpoint = await currentEndpoint
        return try await Self.uploadVoice(
            audio, endpoint: endpoint, token: token, tls: try httpTLS(endpoint), serverName: httpServerName,
            loop: loop, contentType: contentType, timeout: timeout ?? configuration.requestTimeout * 2)
    }

    /// Downloads a clip (`GET /voice/{id}`), whole or a byte range, with the client's session token.
    /// - Parameters:
    ///   - voiceId: the clip (a `VoiceNote`'s `voiceId`).
    ///   - range: inclusive byte offsets (`Range: bytes=a-b`); nil for the whole file.
    ///   - ifNoneMatch: an `ETag` the caller has (answered with 304 and no body when it still matches).
    ///   - maxBytes: the largest body accepted (default 16 MiB).
    ///   - timeout: seconds for the whole exchange (default `configuration.requestTimeout`).
    /// - Returns: status 200, 206 or 304 with the bytes and headers.
    /// - Throws: `.server(ServerError)`: `not_authenticated`, `invalid_token` (401), `not_found` (404: no such
    ///   clip, or one you may not see), `range_not_satisfiable` (416); and the transport errors of `uploadVoice`.
    public func downloadVoice(
        _ voiceId: Int64, range: ClosedRange<Int>? = nil, ifNoneMatch: String? = nil, maxBytes: Int = 16 << 20,
        timeout: Double? = nil
    ) async throws(SwitchboardClientError) -> VoiceDownload {
        let token = try await requireSessionToken()
        let endpoint = await currentEndpoint
        return try await Self.downloadVoice(
            voiceId, endpoint: endpoint, token: token, tls: try httpTLS(endpoint), serverName: httpServerName,
            loop: loop, range: range, ifNoneMatch: ifNoneMatch, maxBytes: maxBytes,
            timeout: timeout ?? configuration.requestTimeout)
    }

    /// `uploadVoice` without a client: for tools that hold a token and a loop (the load tester).
    /// - Parameters:
    ///   - endpoint: the server's WebSocket endpoint; its host, port and `secure` flag are used.
    ///   - token: a session token.
    ///   - tls: the TLS context when `endpoint.secure` (nil: verify with the system's CA store).
    ///   - serverName: SNI with TLS (default: the host when it is a name).
    ///   - loop: the loop that runs the exchange.
    public static func uploadVoice(
        _ audio: [UInt8], endpoint: ServerEndpoint, token: String, tls: TLSContext? = nil, serverName: String? = nil,
        loop: EventLoop, contentType: String? = nil, timeout: Double = 30
    ) async throws(SwitchboardClientError) -> VoiceUploadResult {
        var headers = [("Authorization", "Bearer \(token)")]
        if let contentType { headers.append(("Content-Type", contentType)) }
        let request = HTTPExchange.makeRequest(
            method: "POST", path: "/voice", hostHeader: endpoint.hostHeader, headers: headers, body: audio)
        let exchange = HTTPExchange(loop: loop, request: request, maxBodyBytes: 64 << 10, what: "POST /voice")
        let response = try await exchange.run(
            endpoint: endpoint, tls: try resolvedTLS(endpoint, tls),
            serverName: serverName ?? defaultServerName(endpoint),
            timeout: timeout)
        guard response.status == 201 || response.status == 200 else { throw httpError(response, op: "POST /voice") }
        do {
            return try WireCoding.decoder().decode(VoiceUploadResult.self, from: Data(response.body))
        } catch {
            throw .invalidMessage("POST /voice: \(error)")
        }
    }

    /// `downloadVoice` without a client (see `uploadVoice(_:endpoint:token:tls:serverName:loop:contentType:timeout:)`).
    public static func downloadVoice(
        _ voiceId: Int64, endpoint: ServerEndpoint, token: String, tls: TLSContext? = nil, serverName: String? = nil,
        loop: EventLoop, range: ClosedRange<Int>? = nil, ifNoneMatch: String? = nil, maxBytes: Int = 16 << 20,
        timeout: Double = 15
    ) async throws(SwitchboardClientError) -> VoiceDownload {
        var headers = [("Authorization", "Bearer \(token)")]
        if let range { headers.append(("Range", "bytes=\(range.lowerBound)-\(range.upperBound)")) }
        if let ifNoneMatch { headers.append(("If-None-Match", ifNoneMatch)) }
        let path = "/voice/\(voiceId)"
        let request = HTTPExchange.makeRequest(
            method: "GET", path: path, hostHeader: endpoint.hostHeader, headers: headers, body: [])
        let exchange = HTTPExchange(loop: loop, request: request, maxBodyBytes: maxBytes, what: "GET \(path)")
        let response = try await exchange.run(
            endpoint: endpoint, tls: try resolvedTLS(endpoint, tls),
            serverName: serverName ?? defaultServerName(endpoint),
            timeout: timeout)
        switch response.status {
        case 200, 206, 304:
            return VoiceDownload(status: response.status, bytes: response.body, headers: response.headers)
        default:
            throw httpError(response, op: "GET \(path)")
        }
    }

    // MARK: - Helpers

    func requireSessionToken() async throws(SwitchboardClientError) -> String {
        guard let token = await sessionToken else {
            throw .server(
                ServerError(
                    code: "not_authenticated",
                    message: "uploads and downloads need a session: register, log in or authenticate first"))
        }
        return token
    }

    func httpTLS(_ endpoint: ServerEndpoint) throws(SwitchboardClientError) -> TLSContext? {
        try Self.resolvedTLS(endpoint, configuration.tls)
    }

    var httpServerName: String? { configuration.serverName }

    static func resolvedTLS(_ endpoint: ServerEndpoint, _ tls: TLSContext?) throws(SwitchboardClientError)
        -> TLSContext?
    {
        guard endpoint.secure else { return nil }
        if let tls { return tls }
        do {
            return try TLSContext(clientWithCAFile: nil, verify: true)
        } catch {
            throw .connectFailed("TLS: \(error)")
        }
    }

    static func defaultServerName(_ endpoint: ServerEndpoint) -> String? {
        endpoint.secure && !HostResolver.isNumeric(endpoint.host) ? endpoint.host : nil
    }

    /// The error of an HTTP error response: the JSON body's `{"error": {"code", "message"}}` when there is
    /// one, else a code derived from the status; `Retry-After` (seconds) becomes `retryAfterMs`.
    static func httpError(_ response: HTTPExchangeResponse, op: String) -> SwitchboardClientError {
        struct Body: Decodable {
            struct Inner: Decodable {
                var code: String
                var message: String?
            }
            var error: Inner
        }
        let retryAfterMs = response.header("retry-after").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            .map { Int64($0 * 1000) }
        if let body = try? JSONDecoder().decode(Body.self, from: Data(response.body)) {
            return .server(
                ServerError(
                    code: body.error.code, message: body.error.message ?? "\(op): HTTP \(response.status)",
                    retryAfterMs: retryAfterMs))
        }
        let code: String
        switch response.status {
        case 401: code = "invalid_token"
        case 404: code = "not_found"
        case 411: code = "length_required"
        case 413: code = "payload_too_large"
        case 415: code = "unsupported_media_type"
        case 416: code = "range_not_satisfiable"
        case 503: code = "unavailable"
        default: code = "http_\(response.status)"
        }
        let text = String(decoding: response.body.prefix(200), as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
        return .server(
            ServerError(
                code: code, message: "\(op): HTTP \(response.status)" + (text.isEmpty ? "" : " (\(text))"),
                retryAfterMs: retryAfterMs))
    }
}
