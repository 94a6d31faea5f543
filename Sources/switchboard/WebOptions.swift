//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import SwitchboardServer

/// `serve`'s web app options (docs/web.md).
struct WebOptions: ParsableArguments {
    @Flag(inversion: .prefixedNo, help: "Serve the web app at /. [env: SWITCHBOARD_WEB=0 disables]")
    var web: Bool = envFlag("SWITCHBOARD_WEB", default: true)

    @Option(
        help:
            """
            Folder of the web app; default: web/ in the working directory, else web/ of the source tree the executable \
            was built in. [env: SWITCHBOARD_WEB_ROOT]
            """
    )
    var webRoot: String = env("SWITCHBOARD_WEB_ROOT") ?? ""

    @Option(
        help:
            """
            Largest web app file served, bytes (larger ones are left out with a warning). [env: \
            SWITCHBOARD_WEB_MAX_FILE_BYTES]
            """
    )
    var webMaxFileBytes: Int = envValue("SWITCHBOARD_WEB_MAX_FILE_BYTES", as: Int.self) ?? 4 << 20

    @Option(help: "Most bytes of all web app files together. [env: SWITCHBOARD_WEB_MAX_TOTAL_BYTES]")
    var webMaxTotalBytes: Int = envValue("SWITCHBOARD_WEB_MAX_TOTAL_BYTES", as: Int.self) ?? 64 << 20

    @Option(
        help: "Seconds between checks for changed web app files; 0: read once at start. [env: SWITCHBOARD_WEB_REFRESH]")
    var webRefresh: Double = envValue("SWITCHBOARD_WEB_REFRESH", as: Double.self) ?? 1

    func validate() throws {
        guard webMaxFileBytes >= 1, webMaxTotalBytes >= 1, webRefresh >= 0 else {
            throw ValidationError(
                "--web-max-file-bytes and --web-max-total-bytes must be positive, --web-refresh at least 0")
        }
        if web, !webRoot.isEmpty {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: webRoot, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("--web-root \(webRoot) is not a folder")
            }
        }
    }

    /// The folder to serve and a sentence for the log saying where it came from (or why nothing is served).
    func resolveRoot() -> (root: String?, note: String) {
        guard web else { return (nil, "web app not served (--no-web)") }
        if !webRoot.isEmpty { return (absolute(webRoot), "web app from --web-root") }
        let fm = FileManager.default
        let local = fm.currentDirectoryPath + "/web"
        var isFolder: ObjCBool = false
        if fm.fileExists(atPath: local, isDirectory: &isFolder), isFolder.boolValue {
            return (local, "web app from web/ in the working directory")
        }
        // The source tree the executable was built in: .build/<triple>/debug/switchboard is four levels below it.
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            var folder = executable.deletingLastPathComponent()
            for _ in 0..<6 {
                let index = folder.appendingPathComponent("web/index.html").path
                if fm.fileExists(atPath: index) {
                    return (folder.appendingPathComponent("web").path, "web app from the source tree")
                }
                folder = folder.deletingLastPathComponent()
            }
        }
        return (nil, "web app not served: no web/ folder found (give --web-root)")
    }

    func apply(to c: inout ServerConfiguration) {
        c.web.root = resolveRoot().root
        c.web.maxFileBytes = webMaxFileBytes
        c.web.maxTotalBytes = webMaxTotalBytes
        c.web.refreshInterval = webRefresh
    }

    private func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
