//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// An incremental, strict HTTP/1.1 request-head parser (RFC 9112).
///
/// Bytes may arrive one at a time. The head is buffered only until its final CRLF CRLF, bounded by the
/// limits; it is then parsed in one pass. After a result other than `.needMoreData`, call `reset()` to
/// parse the next request on a keep-alive connection.
public struct HTTPHeadParser: Sendable {
    public let limits: HTTPParserLimits
    private var buffer: [UInt8] = []
    private var scanned = 0

    public init(limits: HTTPParserLimits = HTTPParserLimits()) { self.limits = limits }

    /// Whether no byte of a next request has arrived.
    public var isIdle: Bool { buffer.isEmpty }

    /// Forgets any buffered bytes.
    public mutating func reset() {
        buffer = []
        scanned = 0
    }

    /// Feeds bytes; see `HTTPParseResult`.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> HTTPParseResult<HTTPRequestHead> {
        switch locateEnd(bytes) {
        case .needMore: return .needMoreData
        case .failed(let error): return .error(error)
        case .found(let headBytes, let consumed):
            let result = headBytes.withUnsafeBufferPointer { Self.parseRequest($0, limits: limits) }
            reset()
            switch result {
            case .success(let head): return .head(head, consumed: consumed)
            case .failure(let error): return .error(error)
            }
        }
    }

    private enum Located {
        case needMore
        case failed(HTTPParseError)
        case found([UInt8], consumed: Int)
    }

    private mutating func locateEnd(_ bytes: UnsafeRawBufferPointer) -> Located {
        let previous = buffer.count
        // Only as much as the head may still take: the rest stays with the caller.
        let room = limits.maxHeaderBytes - previous
        let take = min(bytes.count, max(room, 0) + 1)
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<take]))
        // Leading empty lines before a request line are allowed by RFC 9112 2.2; we refuse them to stay strict.
        var i = max(scanned - 3, 0)
        let n = buffer.count
        var firstLineEnd = -1
        while i < n {
            if buffer[i] == 0x0A {
                if i == 0 || buffer[i - 1] != 0x0D {
                    return .failed(HTTPParseError(status: 400, reason: "bare LF"))
                }
                if firstLineEnd < 0 { firstLineEnd = i }
                if i >= 3 && buffer[i - 2] == 0x0A && buffer[i - 3] == 0x0D {
                    let headLength = i + 1
                    let consumed = headLength - previous
                    let head = Array(buffer[0..<headLength])
                    return .found(head, consumed: consumed)
                }
            }
            i += 1
        }
        scanned = n
        if let lineEnd = buffer.firstIndex(of: 0x0A) {
            if lineEnd - 1 > limits.maxRequestLineLength {
                return .failed(HTTPParseError(status: 414, reason: "request line too long"))
            }
        } else if n > limits.maxRequestLineLength {
            return .failed(HTTPParseError(status: 414, reason: "request line too long"))
        }
        if n > limits.maxHeaderBytes {
            return .failed(HTTPParseError(status: 431, reason: "head too large"))
        }
        return .needMore
    }

    /// Parses a complete head ending in CRLF CRLF.
    static func parseRequest(_ head: UnsafeBufferPointer<UInt8>, limits: HTTPParserLimits) -> Result<
        HTTPRequestHead, HTTPParseError
    > {
        var lines = LineIterator(head)
        guard let requestLine = lines.next() else { return .failure(.init(status: 400, reason: "empty head")) }
        if requestLine.count > limits.maxRequestLineLength {
            return .failure(.init(status: 414, reason: "request line too long"))
        }
        // method SP request-target SP HTTP-version
        guard let sp1 = requestLine.firstIndex(of: 0x20) else {
            return .failure(.init(status: 400, reason: "malformed request line"))
        }
        let methodBytes = requestLine[requestLine.startIndex..<sp1]
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(isTokenChar) else {
            return .failure(.init(status: 400, reason: "bad method"))
        }
        let rest = requestLine[(sp1 + 1)...]
        guard let sp2 = rest.firstIndex(of: 0x20) else {
            return .failure(.init(status: 400, reason: "malformed request line"))
        }
        let targetBytes = rest[rest.startIndex..<sp2]
        let versionBytes = rest[(sp2 + 1)...]
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.init(status: 400, reason: "bad request target"))
        }
        guard let version = parseVersion(versionBytes) else {
            if versionBytes.starts(with: Array("HTTP/".utf8)) {
                return .failure(.init(status: 505, reason: "unsupported HTTP version"))
            }
            return .failure(.init(status: 400, reason: "malformed HTTP version"))
        }
        guard version.major == 1, version.minor <= 1 else {
            return .failure(.init(status: 505, reason: "unsupported HTTP version"))
        }
        var headers = HTTPHeaders()
        var count = 0
        while let line = lines.next() {
            if line.isEmpty { break }
            count += 1
            if count > limits.maxHeaderCount { return .failure(.init(status: 431, reason: "too many headers")) }
            switch parseField(line) {
            case .success(let field): headers.add(name: field.0, value: field.1)
            case .failure(let error): return .failure(error)
            }
        }
        let target = String(decoding: targetBytes, as: UTF8.self)
        let path: String
        let query: String?
        if let q = target.firstIndex(of: "?") {
            path = String(target[..<q])
            query = String(target[target.index(after: q)...])
        } else {
            path = target
            query = nil
        }
        guard path.hasPrefix("/") || path.hasPrefix("http://") || path.hasPrefix("https://") || path == "*" else {
            return .failure(.init(status: 400, reason: "bad request target"))
        }
        if version.minor >= 1 && headers["host"] == nil {
            return .failure(.init(status: 400, reason: "missing Host"))
        }
        if headers.values(for: "host").count > 1 {
            return .failure(.init(status: 400, reason: "duplicate Host"))
        }
        var contentLength: Int? = nil
        for value in headers.values(for: "content-length") {
            for part in value.split(separator: ",", omittingEmptySubsequences: false) {
                let trimmed = trimOWS(part)
                guard !trimmed.isEmpty, trimmed.utf8.count <= 18, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                    let v = Int(trimmed)
                else { return .failure(.init(status: 400, reason: "bad Content-Length")) }
                if let existing = contentLength, existing != v {
                    return .failure(.init(status: 400, reason: "conflicting Content-Length"))
                }
                contentLength = v
            }
        }
        var isChunked = false
        if let te = headers["transfer-encoding"] {
            if contentLength != nil {
                return .failure(.init(status: 400, reason: "Content-Length with Transfer-Encoding"))
            }
            guard version.minor >= 1 else {
                return .failure(.init(status: 400, reason: "Transfer-Encoding in HTTP/1.0"))
            }
            let codings = te.split(separator: ",").map { trimOWS($0).lowercased() }
            guard codings.last == "chunked" else {
                return .failure(.init(status: 400, reason: "bad Transfer-Encoding"))
            }
            isChunked = true
        }
        let keepAlive: Bool
        if headers.containsToken("close", in: "connection") {
            keepAlive = false
        } else if version.minor == 0 {
            keepAlive = headers.containsToken("keep-alive", in: "connection")
        } else {
            keepAlive = true
        }
        return .success(
            HTTPRequestHead(
                method: String(decoding: methodBytes, as: UTF8.self), target: target, path: path, query: query,
                version: version, headers: headers, keepAlive: keepAlive, contentLength: contentLength,
                isChunked: isChunked
            )
        )
    }

    static func parseVersion(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> HTTPVersion? {
        // "HTTP/" DIGIT "." DIGIT
        let b = Array(bytes)
        guard b.count == 8, b[0] == 0x48, b[1] == 0x54, b[2] == 0x54, b[3] == 0x50, b[4] == 0x2F, b[6] == 0x2E,
            isDigit(b[5]), isDigit(b[7])
        else { return nil }
        return HTTPVersion(major: Int(b[5] - 0x30), minor: Int(b[7] - 0x30))
    }

    static func parseField(_ line: Slice<UnsafeBufferPointer<UInt8>>) -> Result<(String, String), HTTPParseError> {
        if line.first == 0x20 || line.first == 0x09 {
            return .failure(.init(status: 400, reason: "obsolete line folding"))
        }
        guard let colon = line.firstIndex(of: 0x3A) else {
            return .failure(.init(status: 400, reason: "header without colon"))
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenChar) else {
            return .failure(.init(status: 400, reason: "bad header name"))
        }
        var valueStart = colon + 1
        var valueEnd = line.endIndex
        while valueStart < valueEnd && (line[valueStart] == 0x20 || line[valueStart] == 0x09) { valueStart += 1 }
        while valueEnd > valueStart && (line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09) { valueEnd -= 1 }
        let value = line[valueStart..<valueEnd]
        // field-vchar / obs-text, SP and HTAB inside; no CTLs (NUL, CR, LF, DEL).
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            return .failure(.init(status: 400, reason: "bad header value"))
        }
        return .success((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }
}

extension HTTPHeadParser {
    /// Parses a response head with the request parser's framing (for `HTTPResponseHeadParser`).
    mutating func feedResponse(_ bytes: UnsafeRawBufferPointer) -> HTTPParseResult<HTTPResponseHead> {
        switch locateEndForResponse(bytes) {
        case .none: return .needMoreData
        case .some(.failure(let error)): return .error(error)
        case .some(.success(let (head, consumed))):
            reset()
            return head.withUnsafeBufferPointer { buffer in
                var lines = LineIterator(buffer)
                guard let statusLine = lines.next(), statusLine.count >= 12,
                    let version = Self.parseVersion(statusLine.prefix(8)), statusLine[statusLine.startIndex + 8] == 0x20
                else { return .error(HTTPParseError(status: 400, reason: "bad status line")) }
                let digits = statusLine[(statusLine.startIndex + 9)..<(statusLine.startIndex + 12)]
                guard digits.allSatisfy(isDigit) else {
                    return .error(HTTPParseError(status: 400, reason: "bad status code"))
                }
                let status = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                let reason = String(decoding: statusLine.dropFirst(13), as: UTF8.self)
                var headers = HTTPHeaders()
                while let line = lines.next(), !line.isEmpty {
                    switch Self.parseField(line) {
                    case .success(let field): headers.add(name: field.0, value: field.1)
                    case .failure(let error): return .error(error)
                    }
                }
                return .head(
                    HTTPResponseHead(version: version, status: status, reason: reason, headers: headers),
                    consumed: consumed)
            }
        }
    }

    private mutating func locateEndForResponse(_ bytes: UnsafeRawBufferPointer) -> Result<
        ([UInt8], Int), HTTPParseError
    >? {
        switch locateEnd(bytes) {
        case .needMore: return nil
        case .failed(let error): return .failure(error)
        case .found(let head, let consumed): return .success((head, consumed))
        }
    }
}

@inline(__always) func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

/// RFC 9110 tchar.
@inline(__always) func isTokenChar(_ b: UInt8) -> Bool {
    switch b {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
    case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
        UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
        return true
    default: return false
    }
}

func asciiCaseEqual<A: StringProtocol, B: StringProtocol>(_ a: A, _ b: B) -> Bool {
    let x = a.utf8
    let y = b.utf8
    guard x.count == y.count else { return false }
    for (p, q) in zip(x, y) {
        let lp = p >= 0x41 && p <= 0x5A ? p | 0x20 : p
        let lq = q >= 0x41 && q <= 0x5A ? q | 0x20 : q
        if lp != lq { return false }
    }
    return true
}

func trimOWS<S: StringProtocol>(_ s: S) -> String {
    var start = s.startIndex
    var end = s.endIndex
    while start < end && (s[start] == " " || s[start] == "\t") { start = s.index(after: start) }
    while end > start {
        let before = s.index(before: end)
        guard s[before] == " " || s[before] == "\t" else { break }
        end = before
    }
    return String(s[start..<end])
}
