//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardWebSocket

#if canImport(Glibc)
import Glibc
#endif

/// The web app's files, held in memory and looked up by request path on the loops.
///
/// The folder is read on a private queue, never on a loop: once when created (the server is not listening yet)
/// and then every `refreshInterval` seconds while watching, when a check of the files' signatures (size, times,
/// inode) finds a change; unchanged files keep their content, gzip form and tags. Only regular files below the
/// root are read, after following symbolic links (a link resolving outside the root is left out); names starting
/// with `.` (dotfiles and dot-folders) are never read. Requests are answered from the table alone: a request path
/// never reaches the file system.
final class WebSite: @unchecked Sendable {
    // @unchecked Sendable: `files` is protected by `lock`; the scan state by `queue`; the rest is immutable.
    let configuration: WebConfiguration
    let root: String
    private let logger: Logger
    private let lock = NSLock()
    // protected by lock: request path ("/js/app.js") -> file.
    private var files: [String: WebFile] = [:]
    // protected by lock: completed scans that changed the table (tests wait on it). Written on `queue` only.
    private var generation = 0
    private let queue = DispatchQueue(label: "switchboard.web", qos: .utility)
    // protected by queue: every file found by the last scan (served or refused), by request path.
    private var seen: [String: FileSignature] = [:]
    // protected by queue: what the last walk left out (links outside, too deep, too many), to see a change.
    private var walkRefusals: Set<String> = []
    // protected by queue: what the last scan refused, so each refusal is logged once, not every second.
    private var refusals: Set<String> = []
    // protected by queue
    private var timer: (any DispatchSourceTimer)?

    /// Reads the folder at once (call off the loops).
    init(root: String, configuration: WebConfiguration, logger: Logger) {
        self.root = root
        self.configuration = configuration
        self.logger = logger
        queue.sync { scan() }
    }

    deinit { timer?.cancel() }

    /// The file a request path names (from `HTTPStatic.filePath`), if loaded.
    func file(at path: String) -> WebFile? {
        lock.lock()
        defer { lock.unlock() }
        return files[path]
    }

    /// Files being served.
    var fileCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return files.count
    }

    /// How many scans have changed the table so far.
    var changeCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return generation
    }

    /// Checks the folder every `refreshInterval` seconds (no-op when 0).
    func startWatching() {
        let interval = configuration.refreshInterval
        guard interval > 0 else { return }
        queue.async { [self] in
            guard timer == nil else { return }
            let t = DispatchSource.makeTimerSource(queue: queue)
            t.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
            t.setEventHandler { [weak self] in self?.scan() }
            t.resume()
            timer = t
        }
    }

    func stopWatching() {
        queue.async { [self] in
            timer?.cancel()
            timer = nil
        }
    }

    /// A file found by a scan, before reading.
    private struct Found {
        var path: String
        var resolved: String
        var signature: FileSignature
    }

    /// Walks the folder; re-reads it when a file's signature changed, one appeared or one went. On `queue`.
    private func scan() {
        dispatchPrecondition(condition: .onQueue(queue))
        var refused: [String: String] = [:]  // path -> reason
        let found = walk(&refused)
        let signatures = Dictionary(found.map { ($0.path, $0.signature) }, uniquingKeysWith: { a, _ in a })
        if generation > 0 && signatures == seen && Set(refused.keys) == walkRefusals { return }
        walkRefusals = Set(refused.keys)
        let previous: [String: WebFile]
        lock.lock()
        previous = files
        lock.unlock()
        var table: [String: WebFile] = [:]
        var total = 0
        for entry in found {
            if entry.signature.size > configuration.maxFileBytes {
                refused[entry.path] = "larger than the most bytes per file (\(configuration.maxFileBytes))"
                continue
            }
            if total + entry.signature.size > configuration.maxTotalBytes {
                refused[entry.path] = "past the most bytes in all (\(configuration.maxTotalBytes))"
                continue
            }
            if let old = previous[entry.path], old.signature == entry.signature {
                table[entry.path] = old
                total += old.body.count
                continue
            }
            guard let body = read(entry.resolved, limit: configuration.maxFileBytes) else {
                refused[entry.path] = "could not be read"
                continue
            }
            total += body.count
            table[entry.path] = WebFile(
                path: entry.path, body: body, signature: entry.signature, gzipMinBytes: configuration.gzipMinBytes)
        }
        for (path, reason) in refused.sorted(by: { $0.key < $1.key }) where !refusals.contains(path) {
            logger.warning("web file not served: \(reason)", metadata: [LogKey.path: "\(path)"])
        }
        refusals = Set(refused.keys)
        seen = signatures
        lock.lock()
        files = table
        generation += 1
        let first = generation == 1
        lock.unlock()
        if first {
            logger.info(
                "serving the web app",
                metadata: [LogKey.path: "\(root)", LogKey.files: "\(table.count)", LogKey.bytes: "\(total)"])
            if table["/index.html"] == nil {
                logger.warning("the web root has no index.html", metadata: [LogKey.path: "\(root)"])
            }
        } else {
            logger.debug("web app files changed", metadata: [LogKey.files: "\(table.count)", LogKey.bytes: "\(total)"])
        }
    }

    /// Every regular file below the root, in path order, bounded by `maxFiles` and `maxDepth`.
    private func walk(_ refused: inout [String: String]) -> [Found] {
        guard let base = realPath(root) else {
            refused["/"] = "the web root \(root) is not a folder that exists"
            return []
        }
        var found: [Found] = []
        var visited: Set<String> = [base]
        var pending: [(folder: String, prefix: String, depth: Int)] = [(base, "", 0)]
        var entries = 0
        while let (folder, prefix, depth) = pending.popLast() {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names.sorted() {
                // Dotfiles and dot-folders (.git, .env) are never read; nor names no request could carry.
                // Bytes, not Characters (a dot followed by a combining mark is one Character).
                guard name.utf8.first != UInt8(ascii: "."),
                    !name.utf8.contains(where: {
                        $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\")
                    })
                else { continue }
                let path = prefix + "/" + name
                entries += 1
                guard entries <= configuration.maxFiles else {
                    refused["(more)"] = "past the most files (\(configuration.maxFiles))"
                    return found
                }
                guard let resolved = realPath(folder + "/" + name) else { continue }
                // Byte-wise: String's hasPrefix compares canonically equivalent text as equal (a sibling folder
                // named in another Unicode normalization would pass).
                guard resolved.utf8.starts(with: (base + "/").utf8) else {
                    refused[path] = "a link to outside the web root"
                    continue
                }
                var s = stat()
                guard stat(resolved, &s) == 0 else { continue }
                switch s.st_mode & S_IFMT {
                case S_IFDIR:
                    if depth + 1 > configuration.maxDepth {
                        refused[path] = "deeper than \(configuration.maxDepth) folders"
                    } else if visited.insert(resolved).inserted {
                        pending.append((resolved, path, depth + 1))
                    }
                case S_IFREG:
                    found.append(Found(path: path, resolved: resolved, signature: FileSignature(s)))
                default:
                    continue
                }
            }
        }
        found.sort { $0.path < $1.path }
        return found
    }

    private func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// A file's bytes, or nil when it cannot be read or is longer than `limit` (it grew since its `stat`).
    private func read(_ path: String, limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > limit { return nil }
        }
    }
}
