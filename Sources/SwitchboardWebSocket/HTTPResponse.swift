//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Encodes HTTP/1.1 responses.
public enum HTTPResponse {
    /// Standard reason phrases.
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 422: return "Unprocessable Content"
        case 426: return "Upgrade Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 503: return "Service Unavailable"
        case 505: return "HTTP Version Not Supported"
        default: return "Status \(status)"
        }
    }

    /// A complete response. Adds `Content-Length` unless the status is 101 or 204 or the headers set it.
    public static func encode(
        status: Int,
        reason: String? = nil,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + body.count + headers.count * 32)
        out.append(contentsOf: "HTTP/1.1 \(status) \(reason ?? reasonPhrase(status))\r\n".utf8)
        var hasLength = false
        for (name, value) in headers {
            if asciiCaseEqual(name, "content-length") { hasLength = true }
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: ": ".utf8)
            out.append(contentsOf: value.utf8)
            out.append(contentsOf: "\r\n".utf8)
        }
        if !hasLength && status != 101 && status != 204 && status != 304 {
            out.append(contentsOf: "Content-Length: \(body.count)\r\n".utf8)
        }
        out.append(contentsOf: "\r\n".utf8)
        out.append(contentsOf: body)
        return out
    }
}
