//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// libFuzzer target: the HTTP request-head parser (fed in chunks whose sizes the input picks), the
// response-head parser, the WebSocket handshake on whatever head parses, the Range header parser, and the static
// file helpers (request path, Accept-Encoding, If-None-Match).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPHead(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let chunk = Int(data[0] % 16) + 1
    let input = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    var parser = HTTPHeadParser(
        limits: HTTPParserLimits(maxRequestLineLength: 512, maxHeaderBytes: 2048, maxHeaderCount: 20))
    var offset = 0
    loop: while offset < input.count {
        let end = min(offset + chunk, input.count)
        switch parser.feed(UnsafeRawBufferPointer(rebasing: input[offset..<end])) {
        case .needMoreData:
            offset = end
        case .error(let error):
            precondition([400, 414, 431, 505].contains(error.status))
            break loop
        case .head(let head, let consumed):
            precondition(consumed > 0 && consumed <= end - offset)
            var config = WebSocketHandshakeConfiguration()
            config.supportedSubprotocols = ["switchboard.v1"]
            config.allowedOrigins = ["https://a.example"]
            _ = WebSocketHandshake.serverResponse(for: head, configuration: config)
            config.allowSameOrigin = true
            _ = WebSocketHandshake.serverResponse(for: head, configuration: config)
            fuzzStatic(
                head.path, acceptEncoding: head.headers["accept-encoding"], ifNoneMatch: head.headers["if-none-match"])
            offset += consumed
            parser.reset()
        }
    }
    var responseParser = HTTPResponseHeadParser()
    _ = responseParser.feed(input)
    fuzzRange(input)
    let text = String(decoding: input, as: UTF8.self)
    fuzzStatic(text, acceptEncoding: text, ifNoneMatch: text)
    return 0
}

/// The static file helpers: a path they accept is canonical (absolute, no empty, dot or dot-dot segment, no
/// backslash or control byte) and accepted again as itself.
func fuzzStatic(_ path: String, acceptEncoding: String?, ifNoneMatch: String?) {
    if let file = HTTPStatic.filePath(forRequestPath: path) {
        // Bytes, not Characters: "/" and a combining mark after it are one Character.
        let bytes = Array(file.utf8)
        precondition(bytes.first == UInt8(ascii: "/") && bytes.last != UInt8(ascii: "/"))
        precondition(!bytes.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }))
        for segment in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst() {
            precondition(!segment.isEmpty && segment.first != UInt8(ascii: "."))
        }
        if !bytes.contains(UInt8(ascii: "%")) { precondition(HTTPStatic.filePath(forRequestPath: file) == file) }
    }
    _ = HTTPStatic.acceptsGzip(acceptEncoding)
    _ = HTTPStatic.ifNoneMatch(ifNoneMatch, matches: "\"0123456789abcdef\"")
}

/// The `Range` parser on the same input read as text (called from `fuzzHTTPHead`).
func fuzzRange(_ input: UnsafeRawBufferPointer) {
    let text = String(decoding: input, as: UTF8.self)
    for size in [0, 1, 100, Int(input.first ?? 0) * 1000] {
        switch HTTPRange.parse(text, size: size) {
        case .range(let r): precondition(r.lowerBound >= 0 && r.upperBound < size && r.lowerBound <= r.upperBound)
        case .none, .unsatisfiable: break
        }
    }
}
