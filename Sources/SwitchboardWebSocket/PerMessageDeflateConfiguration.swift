//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Server-side permessage-deflate settings (RFC 7692).
public struct PerMessageDeflateConfiguration: Sendable {
    /// Ask clients to reset their compressor per message (saves our inflate window memory).
    public var requestClientNoContextTakeover: Bool = false
    /// Reset our compressor per message even if the client did not ask.
    public var serverNoContextTakeover: Bool = false
    /// Our LZ77 window (9...15).
    public var serverMaxWindowBits: Int = 15
    /// zlib level 0...9.
    public var compressionLevel: Int32 = 6
    /// zlib memLevel 1...9.
    public var memoryLevel: Int32 = 8
    /// Messages shorter than this are sent uncompressed.
    public var minimumSizeToCompress: Int = 32
    public init() {}
}
