//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardProtocol
import SwitchboardTransport
import Testing

#if canImport(Glibc)
import Glibc
#endif

// The client library's photo upload (`uploadPhoto`, used by the terminal client's `moment post`, `avatar set` and
// `post --photo`) against a scripted HTTP server on a real loopback socket: one `POST /photos` for a small file; tus
// for a large one, resumed from `HEAD`'s offset after the server drops the connection in the middle of a PATCH
// (keeping the bytes that arrived, as the contract's tus server does); typed errors. The same commands against the
// real server are in Tests/cli/test_cli.py (`photos_moments_and_avatar`).
//
// Named so that scripts/test.sh's `--filter ClientLibraryTests` runs it with the client library's suite.

/// A scripted HTTP/1.1 server on 127.0.0.1 (one request per connection, as the client sends them), on a thread of its
/// own with blocking sockets.
final class ScriptedPhotoServer: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is protected by `lock`.
    struct Request {
        var method: String
        var path: String
        var headers: [String: String]
        var body: [UInt8]
    }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    // protected by lock
    private var requests: [Request] = []
    // protected by lock: the tus upload's bytes so far
    private var stored: [UInt8] = []
    // protected by lock: drop the connection after half the body of this PATCH (1-based), once
    private var dropPatch: Int?
    // protected by lock
    private var patches = 0
    // protected by lock
    private var stopped = false
    /// What `POST /photos` answers: (status, JSON body).
    private let photoAnswer: (Int, String)

    init(dropPatch: Int? = nil, photoAnswer: (Int, String)? = nil) throws {
        self.dropPatch = dropPatch
        self.photoAnswer =
            photoAnswer
            ?? (
                201,
                ##"{"photo_id": 41, "width": 640, "height": 480, "color": "#e67828", "has_alpha": false, "##
                    + ##""created_at": "2026-11-25T02:00:00.000Z", "duplicate": false}"##
            )
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw TestSocketError.connect(errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    var received: [Request] { lock.withLock { requests } }
    var uploadBytes: [UInt8] { lock.withLock { stored } }

    /// Signalled when the serving thread has ended.
    private let finished = DispatchSemaphore(value: 0)

    /// Stops the server: wakes the serving thread's `accept` (shutdown), waits for the thread to end, and only then
    /// closes the listening socket. Closing it first let a thread still on its way back to `accept` take the next
    /// server's socket, which got the same descriptor number, and drop that server's first connection (the
    /// `typedErrors` flake: "the connection dropped before the reply").
    func stop() {
        lock.withLock { stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        _ = finished.wait(timeout: .now() + 30)
        close(listener)
    }

    private func serve() {
        defer { finished.signal() }
        // Bounded: at most 200 connections, then the thread ends.
        for _ in 0..<200 {
            let fd = accept(listener, nil, nil)
            if fd < 0 { return }
            if lock.withLock({ stopped }) {
                close(fd)
                return
            }
            var tv = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            handle(fd)
            close(fd)
        }
    }

    private func readSome(_ fd: Int32, into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    private func handle(_ fd: Int32) {
        var buffer: [UInt8] = []
        var headEnd: Int?
        while headEnd == nil {
            guard readSome(fd, into: &buffer) else { return }
            if let r = buffer.firstRange(of: Array("\r\n\r\n".utf8)) { headEnd = r.upperBound }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let method = String(requestLine[0])
        let path = String(requestLine[1])
        let length = Int(headers["content-length"] ?? "0") ?? 0
        var body = Array(buffer[headEnd!...])
        let isPatch = method == "PATCH"
        var dropAfter: Int?
        if isPatch {
            lock.withLock {
                patches += 1
                if patches == dropPatch {
                    dropAfter = length / 2
                    dropPatch = nil
                }
            }
        }
        while body.count < min(length, dropAfter ?? length) {
            guard readSome(fd, into: &body) else { break }
        }
        if let dropAfter {
            // The connection drops mid-PATCH: what arrived is stored, no answer.
            lock.withLock {
                stored += body.prefix(dropAfter)
                requests.append(
                    Request(method: method, path: path, headers: headers, body: Array(body.prefix(dropAfter))))
            }
            shutdown(fd, Int32(SHUT_RDWR))
            return
        }
        lock.withLock { requests.append(Request(method: method, path: path, headers: headers, body: body)) }
        var status = 200
        var extra: [(String, String)] = []
        var answer = ""
        switch (method, path) {
        case ("POST", "/uploads"):
            status = 201
            extra = [("Location", "http://127.0.0.1:\(port)/uploads/abc_DEF-123"), ("Tus-Resumable", "1.0.0")]
        case ("HEAD", "/uploads/abc_DEF-123"):
            // A Content-Length on a HEAD answer: the client must not wait for a body.
            let offset = lock.withLock { stored.count }
            extra = [
                ("Upload-Offset", "\(offset)"), ("Upload-Length", headers["upload-length"] ?? "0"),
                ("Tus-Resumable", "1.0.0"),
                ("Content-Length", "12345"),
            ]
        case ("PATCH", "/uploads/abc_DEF-123"):
            let offset = Int(headers["upload-offset"] ?? "") ?? -1
            let (ok, now) = lock.withLock { () -> (Bool, Int) in
                guard offset == stored.count else { return (false, stored.count) }
                stored += body.prefix(length)
                return (true, stored.count)
            }
            status = ok ? 204 : 409
            extra = [("Upload-Offset", "\(now)"), ("Tus-Resumable", "1.0.0")]
        case ("DELETE", "/uploads/abc_DEF-123"):
            status = 204
        default:
            if method == "POST" && path.hasPrefix("/photos") {
                (status, answer) = photoAnswer
                if status == 503 {
                    extra = [
                        ("Retry-After", "2"), ("Content-Type", "application/json"),
                        ("Content-Length", "\(answer.utf8.count)"),
                    ]
                }
            } else {
                status = 404
            }
        }
        var response = "HTTP/1.1 \(status) X\r\nConnection: close\r\n"
        for (name, value) in extra { response += "\(name): \(value)\r\n" }
        if extra.contains(where: { $0.0 == "Content-Length" }) == false && status != 204 {
            response += "Content-Type: application/json\r\nContent-Length: \(answer.utf8.count)\r\n"
        }
        response += "\r\n" + (method == "HEAD" ? "" : answer)
        let bytes = Array(response.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}

@Suite("Photo uploads of the client library (the terminal client's uploads)", .serialized)
struct PhotoCLIClientLibraryTests {
    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) } }

    @Test("a small file is one POST /photos with the bearer token; the answer decodes")
    func smallFileDirect() async throws {
        let server = try ScriptedPhotoServer()
        defer { server.stop() }
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let file = Self.bytes(300_000)
        let photo = try await SwitchboardClient.uploadPhoto(
            bytes: file, endpoint: ServerEndpoint(host: "127.0.0.1", port: server.port), token: "tok",
            loop: group.loops[0], timeout: 10)
        #expect(
            photo.photoId == 41 && photo.width == 640 && photo.height == 480 && photo.color == "#e67828"
                && !photo.duplicate)
        let requests = server.received
        #expect(requests.count == 1)
        #expect(requests.first?.method == "POST" && requests.first?.path == "/photos")
        #expect(requests.first?.headers["authorization"] == "Bearer tok")
        #expect(requests.first?.body == file)
    }

    @Test("a file over 5 MB goes through tus; a PATCH cut off half-way is resumed from HEAD's offset; keep_metadata")
    func largeFileResumable() async throws {
        let server = try ScriptedPhotoServer(dropPatch: 2)
        defer { server.stop() }
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let file = Self.bytes(5_600_000)
        let progress = ProgressLog()
        let photo = try await SwitchboardClient.uploadPhoto(
            bytes: file, endpoint: ServerEndpoint(host: "127.0.0.1", port: server.port), token: "tok",
            loop: group.loops[0],
            options: PhotoUploadOptions(keepMetadata: true, chunkSize: 1 << 20), progress: { progress.add($0, $1) },
            timeout: 10)
        #expect(photo.photoId == 41)
        #expect(server.uploadBytes == file, "the server holds exactly the file")
        let requests = server.received
        let creation = try #require(requests.first)
        #expect(creation.method == "POST" && creation.path == "/uploads")
        #expect(creation.headers["tus-resumable"] == "1.0.0" && creation.headers["upload-length"] == "5600000")
        #expect(creation.headers["upload-metadata"] == "kind cGhvdG8=")
        #expect(requests.contains { $0.method == "HEAD" }, "the client asked where to go on")
        let patches = requests.filter { $0.method == "PATCH" }
        // 0 and 1 MiB (cut off after half a MiB), then four from 1.5 MiB to the end (5,600,000 bytes).
        #expect(patches.count == 6)
        #expect(patches.allSatisfy { $0.headers["content-type"] == "application/offset+octet-stream" })
        // The PATCH after the cut starts where the server's bytes end (1 MiB + half a MiB).
        #expect(patches[2].headers["upload-offset"] == "\((1 << 20) + (1 << 19))")
        #expect(requests.last?.method == "POST" && requests.last?.path == "/photos?upload=abc_DEF-123&keep_metadata=1")
        #expect(requests.last?.body.isEmpty == true)
        #expect(progress.values.last == 5_600_000 && progress.values == progress.values.sorted())
    }

    @Test("the server's refusals are typed: 415 unsupported_media_type, 503 unavailable with Retry-After")
    func typedErrors() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        for (status, code) in [(415, "unsupported_media_type"), (422, "image_too_many_pixels"), (503, "unavailable")] {
            let server = try ScriptedPhotoServer(
                photoAnswer: (status, #"{"error": {"code": "\#(code)", "message": "no"}}"#))
            defer { server.stop() }
            do {
                _ = try await SwitchboardClient.uploadPhoto(
                    bytes: Self.bytes(1000), endpoint: ServerEndpoint(host: "127.0.0.1", port: server.port),
                    token: "tok",
                    loop: group.loops[0], timeout: 10)
                Issue.record("HTTP \(status) did not throw")
            } catch {
                guard case .server(let e) = error else {
                    Issue.record("HTTP \(status): \(error)")
                    continue
                }
                #expect(e.code == code)
                #expect(e.retryAfterMs == (status == 503 ? 2000 : nil))
            }
        }
    }
}

extension PhotoCLIClientLibraryTests {
    /// A 320 x 240 JPEG made with libvips' command-line tool (a test needs libvips-tools, as the image tests do).
    static func vipsJPEG() throws -> [UInt8] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("photo-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        for arguments in [
            ["black", path("b.v"), "320", "240", "--bands", "3"],
            ["linear", path("b.v"), path("c.v"), "1 1 1", "40 160 90", "--uchar"],
            ["jpegsave", path("c.v"), path("c.jpg"), "--Q", "85"],
        ] {
            let result = try runProcess("/usr/bin/env", ["vips"] + arguments)
            try #require(result.status == 0, "vips \(arguments[0]): \(result.output) (apt-get install libvips-tools)")
        }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("c.jpg"))))
    }

    /// The JPEG with comment segments after SOI until it is at least `size` bytes: the same image, other bytes.
    static func padded(_ jpeg: [UInt8], to size: Int) -> [UInt8] {
        var padding: [UInt8] = []
        while jpeg.count + padding.count < size {
            padding += [0xFF, 0xFE, 0xFF, 0xFF] + [UInt8](repeating: 0x70, count: 65533)
        }
        return Array(jpeg[0..<2]) + padding + Array(jpeg[2...])
    }

    @Test(
        """
        against the real server: a direct upload, the same file again (duplicate), a 5.3 MB one through tus, \
        a refused format; a moment of both
        """
    )
    func realServer() async throws {
        let jpeg = try Self.vipsJPEG()
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeClient(port: port)
        defer { Task { await ann.close() } }
        _ = try await registerUser(ann, "Ann")

        let first = try await ann.uploadPhoto(bytes: jpeg)
        #expect(first.width == 320 && first.height == 240 && !first.duplicate && first.color.hasPrefix("#"))
        let again = try await ann.uploadPhoto(bytes: jpeg)
        #expect(again.photoId == first.photoId && again.duplicate)
        let large = Self.padded(jpeg, to: 5_300_000)
        let progress = ProgressLog()
        let resumable = try await ann.uploadPhoto(bytes: large, progress: { progress.add($0, $1) })
        #expect(resumable.photoId != first.photoId && resumable.width == 320 && !resumable.duplicate)
        #expect(
            progress.values.count >= 6 && progress.values.last == large.count, "tus in 1 MiB chunks: \(progress.values)"
        )
        do {
            _ = try await ann.uploadPhoto(bytes: Array("GIF89a, or rather not an image at all".utf8))
            Issue.record("a GIF header was stored")
        } catch {
            guard case .server(let e) = error else { throw error }
            #expect(e.code == "unsupported_media_type")
        }
        let moment = try await ann.send(
            Ops.MomentsCreate.self, .init(photoIds: [first.photoId, resumable.photoId], caption: "two"))
        #expect(moment.moment.photos.map(\.photoId) == [first.photoId, resumable.photoId])
    }
}

/// Progress callbacks, from any thread.
final class ProgressLog: @unchecked Sendable {
    // @unchecked Sendable: `entries` is protected by `lock`.
    private let lock = NSLock()
    private var entries: [Int] = []
    func add(_ received: Int, _ total: Int) { lock.withLock { entries.append(received) } }
    var values: [Int] { lock.withLock { entries } }
}
