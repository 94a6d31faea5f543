//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CSwitchboardSys
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// One TCP (optionally TLS) connection, confined to its loop's queue.
public final class Connection: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is protected by `loop.queue` and the public entry
    // points assert it; only immutable fields (`fd`, `id`, `loop`) are read elsewhere.

    /// Nanoseconds an `.afterFlush` close waits for the peer to read before dropping.
    public static let flushCloseTimeout: UInt64 = 5_000_000_000

    // The stored properties are ordered so that the small ones share what would be padding: every open socket holds
    // one of these.
    /// Unique per process.
    public let id: UInt64
    /// Unowned and unchecked: a loop outlives its connections (the group closes them all before it stops), and a
    /// checked `unowned` costs an atomic retain and release of the loop at every use (2% of the CPU of a fan-out,
    /// issue 17).
    public unowned(unsafe) let loop: EventLoop
    private static let ids = AtomicCounter()

    // The fields below that every delivery touches are `@exclusivity(unchecked)`: they are confined to the loop's
    // queue, and no access to one of them overlaps another access to it (each is a plain load, store or in-place
    // mutation that calls out to nothing that could reach it), so the runtime's dynamic exclusivity check
    // (`swift_beginAccess`, about 80 instructions each, nine per delivery here) proves nothing. Debug builds check
    // the rest of the code as before; the test suite runs them.
    // protected by loop.queue
    @exclusivity(unchecked) public var handler: (any ConnectionHandler)?
    // protected by loop.queue
    @exclusivity(unchecked) private var outbound = ChunkQueue()
    // protected by loop.queue
    @exclusivity(unchecked) private var queuedBytes = 0
    /// Bytes queued and not yet written. A computed property: read directly from another module, the stored one
    /// had its exclusivity checked there (a dynamic check per delivery in the backpressure test), which
    /// `@exclusivity(unchecked)` turns off only in this module.
    public var outboundBytes: Int { queuedBytes }
    // protected by loop.queue: what few connections have (TLS, a client's connect, a close after flushing), out of
    // line: a plain idle server connection keeps one pointer for it
    @exclusivity(unchecked) private var rare: RareState?
    /// The listener's count of open connections, decremented when this one closes (accepted connections).
    var listenerOpenCount: AtomicCounter?
    // protected by loop.queue
    @exclusivity(unchecked) public private(set) var isOpen = true
    // protected by loop.queue
    @exclusivity(unchecked) private var wantsWritable = false
    // protected by loop.queue
    @exclusivity(unchecked) private var readingPaused = false
    // protected by loop.queue
    @exclusivity(unchecked) var flushScheduled = false
    // protected by loop.queue: waiting in the loop's flush backlog
    @exclusivity(unchecked) var inFlushBacklog = false
    // protected by loop.queue: how much of the first outbound chunk was written (a chunk is far below 2 GiB: a
    // WebSocket message or a response part). Next to `fd` (the object is 104 bytes, in the same 112-byte malloc
    // chunk as the 96 it was before the queue's inline first chunk).
    @exclusivity(unchecked) private var headOffset32: Int32 = 0
    public let fd: Int32

    /// State that few connections have, in its own allocation made when first set.
    private final class RareState {
        var tls: TLSConnection?
        var onOpen: ((Result<Connection, any Error>) -> Void)?
        var closingAfterFlush: UInt64?
        var connecting = false
    }

    private var rareState: RareState {
        if let rare { return rare }
        let made = RareState()
        rare = made
        return made
    }

    // protected by loop.queue
    var tls: TLSConnection? {
        get { rare?.tls }
        set { if newValue != nil || rare != nil { rareState.tls = newValue } }
    }
    // protected by loop.queue
    private var onOpen: ((Result<Connection, any Error>) -> Void)? {
        get { rare?.onOpen }
        set { if newValue != nil || rare != nil { rareState.onOpen = newValue } }
    }
    // protected by loop.queue: when a close after flushing began
    private var closingAfterFlush: UInt64? {
        get { rare?.closingAfterFlush }
        set { if newValue != nil || rare != nil { rareState.closingAfterFlush = newValue } }
    }
    // protected by loop.queue: a client's connect in progress
    private var connecting: Bool {
        get { rare?.connecting ?? false }
        set { if newValue || rare != nil { rareState.connecting = newValue } }
    }
    private var headOffset: Int {
        get { Int(headOffset32) }
        set { headOffset32 = Int32(newValue) }
    }

    enum Chunk {
        case bytes([UInt8])
        case shared(SharedBytes)
        var count: Int {
            switch self {
            case .bytes(let b): return b.count
            case .shared(let s): return s.count
            }
        }
    }

    /// The outbound queue: its first chunk inline, the others in an array. Most writes queue one chunk that the
    /// end of the turn writes whole, and then allocate nothing: with an array alone each delivery of a fan-out was
    /// a malloc and a free of the array's storage (issue 17). Invariant: `more` is empty while `first` is nil.
    struct ChunkQueue: RandomAccessCollection {
        private var first: Chunk?
        private var more: [Chunk] = []

        var startIndex: Int { 0 }
        var endIndex: Int { first == nil ? 0 : 1 + more.count }
        var isEmpty: Bool { first == nil }
        subscript(index: Int) -> Chunk { index == 0 ? first! : more[index - 1] }

        mutating func append(_ chunk: consuming Chunk) {
            if first == nil { first = chunk } else { more.append(chunk) }
        }

        /// Removes the first `n` chunks.
        mutating func removeFirst(_ n: Int) {
            precondition(n >= 0 && n <= count, "removeFirst(\(n)) of \(count) chunks")
            guard n > 0 else { return }
            if n == count {
                removeAll()
            } else {
                first = more[n - 1]
                more.removeFirst(n)
            }
        }

        /// Removes the chunks from `index` on.
        mutating func removeAll(from index: Int) {
            if index == 0 { removeAll() } else if index < count { more.removeSubrange((index - 1)...) }
        }

        mutating func removeAll() {
            first = nil
            more = []
        }
    }

    init(fd: Int32, loop: EventLoop) {
        self.fd = fd
        self.loop = loop
        self.id = UInt64(Self.ids.increment())
    }

    deinit { assert(!isOpen, "connection \(id) leaked its fd") }

    /// Whether TLS protects this connection.
    public var isTLS: Bool { tls != nil }

    /// The peer's address, `host:port`.
    public var remoteAddress: String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard rc == 0 else { return "unknown" }
        return formatAddress(&storage)
    }

    var interest: UInt32 {
        var e: UInt32 = 0
        // While closing we keep reading (and discarding) to see the peer's EOF.
        if !readingPaused || closingAfterFlush != nil { e |= CSwitchboardSys_EPOLLIN | CSwitchboardSys_EPOLLRDHUP }
        if wantsWritable || connecting { e |= CSwitchboardSys_EPOLLOUT }
        return e
    }

    // MARK: events

    func handleEvents(_ events: UInt32) {
        if connecting {
            finishConnect()
            return
        }
        if events & CSwitchboardSys_EPOLLOUT != 0 && isOpen {
            flushNow()
        }
        if events
            & (CSwitchboardSys_EPOLLIN | CSwitchboardSys_EPOLLRDHUP | CSwitchboardSys_EPOLLHUP
                | CSwitchboardSys_EPOLLERR) != 0
            && isOpen
        {
            if closingAfterFlush != nil {
                // Discard input while draining a close; detect a peer that went away.
                drainInputWhileClosing()
            } else if !readingPaused {
                readAvailable()
            } else if events & (CSwitchboardSys_EPOLLHUP | CSwitchboardSys_EPOLLERR) != 0 {
                // Reading is paused (admission control, a voice upload being processed) and the peer is gone:
                // the loop is level-triggered, so close now rather than be woken again and again.
                close(error: IOError(errno: ECONNRESET, function: "epoll_wait"))
            }
        }
    }

    private func readAvailable() {
        let buffer = loop.readBuffer
        var rounds = 0
        while isOpen && !readingPaused && closingAfterFlush == nil && rounds < 4 {
            rounds += 1
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 {
                let bytes = UnsafeRawBufferPointer(start: buffer.baseAddress, count: n)
                if let tls {
                    deliverTLS(tls, ciphertext: bytes)
                } else {
                    handler?.connection(self, didRead: bytes)
                }
                if n < buffer.count { return }
            } else if n == 0 {
                handler?.connectionDidReadEOF(self)
                if isOpen && closingAfterFlush == nil && !readingPaused {
                    // The handler keeps the half-closed connection; stop polling for input.
                    readingPaused = true
                    loop.modify(self, events: interest)
                }
                return
            } else {
                let e = errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK { return }
                close(error: IOError(errno: e, function: "read"))
                return
            }
        }
    }

    private func drainInputWhileClosing() {
        let buffer = loop.readBuffer
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 { continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            close(error: nil)
            return
        }
    }

    private func deliverTLS(_ tls: TLSConnection, ciphertext: UnsafeRawBufferPointer) {
        let wasHandshaking = !tls.handshakeDone
        do {
            try tls.receive(ciphertext) { plaintext in
                handler?.connection(self, didRead: plaintext)
            }
        } catch {
            // Send the alert OpenSSL produced (e.g. protocol_version), then close.
            loop.logger.debug("TLS failure", metadata: ["connection": "\(id)", "error": "\(error)"])
            queueTLSOutput(tls)
            closingAfterFlush = EventLoop.now()
            loop.modify(self, events: interest)
            if outbound.isEmpty { finishDrainedClose() } else if !loop.inBatch { flushNow() }
            return
        }
        queueTLSOutput(tls)
        if wasHandshaking && tls.handshakeDone, let onOpen {
            self.onOpen = nil
            onOpen(.success(self))
        }
    }

    private func queueTLSOutput(_ tls: TLSConnection) {
        let out = tls.takeOutput()
        if !out.isEmpty { enqueue(.bytes(out), count: out.count) }
    }

    // MARK: writing

    /// Queues bytes; they are written at the end of the current batch (or now outside one).
    public func write(_ bytes: [UInt8]) {
        write(chunk: .bytes(bytes), count: bytes.count)
    }

    /// Queues shared bytes without copying them (unless TLS must encrypt them).
    public func write(_ bytes: SharedBytes) {
        write(chunk: .shared(bytes), count: bytes.count)
    }

    /// `chunk` is consumed (moved into the queue: no copy), `count` is its size.
    private func write(chunk: consuming Chunk, count: Int) {
        loop.assertOnLoop()
        guard isOpen, closingAfterFlush == nil, count > 0 else { return }
        guard let tls else {
            enqueue(chunk, count: count)
            return
        }
        do {
            switch chunk {
            case .bytes(let b): try b.withUnsafeBytes { try tls.send($0) }
            case .shared(let s): try tls.send(s.bytes)
            }
        } catch {
            close(error: error)
            return
        }
        queueTLSOutput(tls)
    }

    /// The largest chunk kept as one (`headOffset` is 32-bit); a larger one (a large export archive) is queued in
    /// parts.
    static let maxChunkSize = 1 << 30

    private func enqueue(_ chunk: consuming Chunk, count: Int) {
        if count > Self.maxChunkSize {
            let bytes: [UInt8]
            switch chunk {
            case .bytes(let b): bytes = b
            case .shared(let s): bytes = Array(s.bytes)
            }
            var start = 0
            while start < bytes.count {
                let end = min(start + Self.maxChunkSize, bytes.count)
                outbound.append(.bytes(Array(bytes[start..<end])))
                start = end
            }
        } else {
            outbound.append(chunk)
        }
        queuedBytes += count
        if wantsWritable { return }  // EPOLLOUT will flush
        if loop.inBatch {
            if !flushScheduled {
                flushScheduled = true
                loop.scheduleFlush(self)
            }
        } else {
            flushNow()
        }
    }

    /// Writes what is queued now.
    public func flush() {
        loop.assertOnLoop()
        flushNow()
    }

    func flushNow() {
        guard isOpen else { return }
        while !outbound.isEmpty {
            let result = writeSome()
            switch result {
            case .wrote(let n):
                consume(n)
            case .wouldBlock:
                if !wantsWritable {
                    wantsWritable = true
                    loop.modify(self, events: interest)
                }
                return
            case .failed(let error):
                close(error: error)
                return
            }
        }
        outbound.removeAll()
        headOffset = 0
        if wantsWritable {
            wantsWritable = false
            loop.modify(self, events: interest)
            handler?.connectionDidDrain(self)
        }
        if closingAfterFlush != nil { finishDrainedClose() }
    }

    /// Everything is written: send FIN and close when the peer's EOF arrives (or at the sweep deadline),
    /// so unread input cannot turn our close into a reset that destroys the last bytes we sent.
    private func finishDrainedClose() {
        guard isOpen else { return }
        if Glibc.shutdown(fd, Int32(SHUT_WR)) != 0 { finalClose(error: nil) }
    }

    private enum WriteResult {
        case wrote(Int)
        case wouldBlock
        case failed(IOError)
    }

    private func writeSome() -> WriteResult {
        while true {
            var n: Int
            loop.writeCalls &+= 1
            if outbound.count == 1 {
                n = withHead { Glibc.send(fd, $0.baseAddress, $0.count, CSwitchboardSys_MSG_NOSIGNAL) }
            } else {
                n = gatherAndWrite()
            }
            if n >= 0 { return .wrote(n) }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
            return .failed(IOError(errno: e, function: "writev"))
        }
    }

    private func withHead<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        switch outbound[0] {
        case .bytes(let b):
            return b.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[headOffset...])) }
        case .shared(let s):
            return body(UnsafeRawBufferPointer(rebasing: s.bytes[headOffset...]))
        }
    }

    /// One writev over up to 64 chunks: shared chunks are referenced, small arrays copied into the loop's
    /// gather buffer (array storage has no stable address outside `withUnsafeBytes`).
    private func gatherAndWrite() -> Int {
        var iov = [iovec](repeating: iovec(), count: min(outbound.count, 64))
        let gather = loop.gatherBuffer
        var used = 0
        var count = 0
        var index = 0
        var lastWasGather = false
        while index < outbound.count && count < iov.count {
            let skip = index == 0 ? headOffset : 0
            switch outbound[index] {
            case .shared(let s):
                iov[count] = iovec(iov_base: s.pointer + skip, iov_len: s.count - skip)
                count += 1
                lastWasGather = false
            case .bytes(let b):
                let length = b.count - skip
                guard used + length <= gather.count else {
                    if count == 0 {
                        // A large first array: send it alone.
                        return b.withUnsafeBytes {
                            Glibc.send(fd, $0.baseAddress! + skip, length, CSwitchboardSys_MSG_NOSIGNAL)
                        }
                    }
                    index = outbound.count
                    continue
                }
                b.withUnsafeBytes { src in
                    (gather.baseAddress! + used).copyMemory(from: src.baseAddress! + skip, byteCount: length)
                }
                if lastWasGather {
                    iov[count - 1].iov_len += length
                } else {
                    iov[count] = iovec(iov_base: gather.baseAddress! + used, iov_len: length)
                    count += 1
                }
                used += length
                lastWasGather = true
            }
            index += 1
        }
        return iov.withUnsafeBufferPointer { Glibc.writev(fd, $0.baseAddress, Int32(count)) }
    }

    private func consume(_ written: Int) {
        var n = written
        queuedBytes -= n
        var drop = 0
        while n > 0 && drop < outbound.count {
            let remaining = outbound[drop].count - headOffset
            if n >= remaining {
                n -= remaining
                headOffset = 0
                drop += 1
            } else {
                headOffset += n
                n = 0
            }
        }
        if drop > 0 { outbound.removeFirst(drop) }
    }

    // MARK: control

    /// Drops queued output that has not started to be written (whole writes only: a write partly sent
    /// stays), so a close frame queued next reaches a slow peer promptly. Not available with TLS,
    /// whose records cannot be dropped; returns the number of bytes dropped.
    @discardableResult
    public func discardUnsentOutput() -> Int {
        loop.assertOnLoop()
        guard tls == nil, !outbound.isEmpty else { return 0 }
        let keep = headOffset > 0 ? 1 : 0
        var dropped = 0
        for chunk in outbound[keep...] { dropped += chunk.count }
        outbound.removeAll(from: keep)
        queuedBytes -= dropped
        return dropped
    }

    /// Stops polling for input (backpressure from the layer above).
    public func pauseReading() {
        loop.assertOnLoop()
        guard isOpen, !readingPaused else { return }
        readingPaused = true
        loop.modify(self, events: interest)
    }

    /// Resumes polling for input.
    public func resumeReading() {
        loop.assertOnLoop()
        guard isOpen, readingPaused else { return }
        readingPaused = false
        loop.modify(self, events: interest)
    }

    /// Shuts down our sending side after queued bytes (half close).
    public func shutdownWrite() {
        loop.assertOnLoop()
        flushNow()
        if isOpen && outbound.isEmpty { Glibc.shutdown(fd, Int32(SHUT_WR)) }
    }

    /// Closes the connection.
    public func close(mode: CloseMode) {
        loop.assertOnLoop()
        guard isOpen else { return }
        switch mode {
        case .immediately:
            finalClose(error: nil)
        case .afterFlush:
            if closingAfterFlush != nil { return }
            if let tls {
                tls.shutdown()
                queueTLSOutput(tls)
            }
            closingAfterFlush = EventLoop.now()
            loop.modify(self, events: interest)
            if outbound.isEmpty {
                finishDrainedClose()
            } else if !loop.inBatch {
                flushNow()
            }
        }
    }

    func closeUnregistered() {
        isOpen = false
        handler = nil
        onOpen = nil
    }

    func close(error: (any Error)?) {
        finalClose(error: error)
    }

    /// The one place the fd is closed.
    private func finalClose(error: (any Error)?) {
        guard isOpen else { return }
        isOpen = false
        loop.deregister(self)
        Glibc.close(fd)
        outbound.removeAll()
        queuedBytes = 0
        tls = nil
        if let onOpen {
            self.onOpen = nil
            onOpen(.failure(error ?? IOError(errno: ECONNRESET, function: "connect")))
        }
        let handler = self.handler
        self.handler = nil
        handler?.connectionDidClose(self, error: error)
        listenerOpenCount?.add(-1)
        listenerOpenCount = nil
    }

    func sweep(now: UInt64) {
        if let since = closingAfterFlush {
            if now &- since >= Self.flushCloseTimeout { finalClose(error: nil) }
            return
        }
        if connecting { return }
        handler?.connection(self, sweepAt: now)
    }

    // MARK: client connect

    func startConnect(onOpen: @escaping (Result<Connection, any Error>) -> Void) {
        connecting = true
        self.onOpen = onOpen
    }

    private func finishConnect() {
        connecting = false
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        if error != 0 {
            finalClose(error: IOError(errno: error, function: "connect"))
            return
        }
        _ = CSwitchboardSys_set_nodelay(fd)
        loop.modify(self, events: interest)
        if let tls {
            do { try tls.startClientHandshake() } catch {
                finalClose(error: error)
                return
            }
            queueTLSOutput(tls)
            flushNow()
        } else if let onOpen {
            self.onOpen = nil
            onOpen(.success(self))
        }
    }
}

func formatAddress(_ storage: inout sockaddr_storage) -> String {
    var host = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    switch Int32(storage.ss_family) {
    case AF_INET:
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                var addr = sin.pointee.sin_addr
                inet_ntop(AF_INET, &addr, &host, socklen_t(host.count))
                let hostString = String(
                    decoding: host.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return "\(hostString):\(UInt16(bigEndian: sin.pointee.sin_port))"
            }
        }
    case AF_INET6:
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin in
                var addr = sin.pointee.sin6_addr
                inet_ntop(AF_INET6, &addr, &host, socklen_t(host.count))
                let hostString = String(
                    decoding: host.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return "[\(hostString)]:\(UInt16(bigEndian: sin.pointee.sin6_port))"
            }
        }
    default:
        return "unknown"
    }
}
