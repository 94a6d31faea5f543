//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Callbacks of one connection, all on its loop's queue.
public protocol ConnectionHandler: AnyObject {
    /// After accept (or after connect and, with TLS, the handshake for clients).
    func connectionDidOpen(_ connection: Connection)
    /// Plaintext bytes, valid only during the call.
    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer)
    /// The peer shut down its side; the default closes after flushing.
    func connectionDidReadEOF(_ connection: Connection)
    /// The outbound queue drained after having backed up.
    func connectionDidDrain(_ connection: Connection)
    /// Once per sweep interval (monotonic ns).
    func connection(_ connection: Connection, sweepAt now: UInt64)
    /// Exactly once, after the fd is closed.
    func connectionDidClose(_ connection: Connection, error: (any Error)?)
}

extension ConnectionHandler {
    public func connectionDidOpen(_ connection: Connection) {}
    public func connectionDidReadEOF(_ connection: Connection) { connection.close(mode: .afterFlush) }
    public func connectionDidDrain(_ connection: Connection) {}
    public func connection(_ connection: Connection, sweepAt now: UInt64) {}
    public func connectionDidClose(_ connection: Connection, error: (any Error)?) {}
}
