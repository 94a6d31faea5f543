//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The log metadata keys of the server, one namespaced set (`sb.`), defined once. Values never carry secrets:
/// no tokens, passwords or message text.
public enum LogKey {
    /// The protocol op of a request (`messages.send`).
    public static let op = "sb.op"
    /// The authenticated user of a connection.
    public static let userId = "sb.user_id"
    /// The transport's connection number.
    public static let connectionId = "sb.connection_id"
    /// A conversation.
    public static let conversationId = "sb.conversation_id"
    /// A call.
    public static let callId = "sb.call_id"
    /// An error or the cause of one (`String(describing:)` of the error: never SQL parameters).
    public static let error = "sb.error"
    /// A wire error code (`internal`) or a WebSocket close code.
    public static let code = "sb.code"
    /// Why something happened (a handshake failure, a close).
    public static let reason = "sb.reason"
    /// An HTTP status.
    public static let status = "sb.status"
    /// A count of writes (a message batch).
    public static let writes = "sb.writes"
    /// A count of connections.
    public static let connections = "sb.connections"
    /// Whether the database answered its health check.
    public static let healthy = "sb.healthy"
    /// A signal's name.
    public static let signal = "sb.signal"
    /// A schema version.
    public static let version = "sb.version"
    /// A folder of the server's data.
    public static let dataDirectory = "sb.data_directory"
    /// A voice clip.
    public static let voiceId = "sb.voice_id"
    /// A duration in milliseconds (a voice clip's).
    public static let durationMs = "sb.duration_ms"
    /// A size in bytes.
    public static let bytes = "sb.bytes"
    /// Seconds a transcode took.
    public static let transcodeSeconds = "sb.transcode_seconds"
    /// A media format.
    public static let format = "sb.format"
    /// The listening host, port, loop count and whether TLS is on (start-up).
    public static let host = "sb.host"
    public static let port = "sb.port"
    public static let loops = "sb.loops"
    public static let tls = "sb.tls"
    /// A file or folder of the web app (`docs/web.md`).
    public static let path = "sb.path"
    /// A count of files.
    public static let files = "sb.files"
    /// What a retention batch removes (`call_records`, `tombstones`, `revoked_sessions`).
    public static let kind = "sb.kind"
    /// Rows a retention sweep removed.
    public static let rows = "sb.rows"
}
