//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a `ClientSocket` tells its owner, on the loop's queue.
protocol ClientSocketDelegate: AnyObject {
    /// The upgrade succeeded.
    func socketDidOpen(_ socket: ClientSocket)
    /// A complete text message (UTF-8 JSON).
    func socket(_ socket: ClientSocket, didReceive text: [UInt8])
    /// The socket ended (exactly once, also when it never opened).
    func socket(_ socket: ClientSocket, didEnd end: SocketEnd)
}
