//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// libFuzzer target: the whole server-role WebSocket receive path (frame parsing, unmasking,
// reassembly, UTF-8, close validation, permessage-deflate when the first byte is odd) fed in chunks,
// then the timers.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1 else { return 0 }
    let deflate: PerMessageDeflateParameters? = data[0] & 1 == 1 ? PerMessageDeflateParameters() : nil
    let chunk = Int(data[1]) * 4 + 1
    var configuration = WebSocketConfiguration()
    configuration.maxFrameSize = 64 * 1024
    configuration.maxMessageSize = 64 * 1024
    let connection = WebSocketConnection(role: .server, configuration: configuration, deflate: deflate, now: 0)
    let input = UnsafeRawBufferPointer(start: data + 2, count: size - 2)
    var offset = 0
    var closed = false
    var now: UInt64 = 0
    while offset < input.count && !closed {
        let end = min(offset + chunk, input.count)
        connection.receive(UnsafeRawBufferPointer(rebasing: input[offset..<end]), now: now) { event in
            switch event {
            case .text(let bytes):
                precondition(UTF8Validator.isValid(bytes))
                precondition(bytes.count <= configuration.maxMessageSize)
            case .binary(let bytes):
                precondition(bytes.count <= configuration.maxMessageSize)
                _ = connection.makeMessage(.binary, payload: bytes)
            case .send(let frame):
                precondition(frame.count >= 2)
            case .closeReceived:
                break
            case .closed:
                closed = true
            }
        }
        offset = end
        now += 1_000_000_000
    }
    _ = connection.tick(now: now + 100_000_000_000)
    _ = connection.tick(now: now + 200_000_000_000)
    return 0
}
