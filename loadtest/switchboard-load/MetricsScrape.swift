//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardTransport

/// One value from a server's `/metrics` (plain HTTP on a loopback address; blocking, with a 5 s timeout).
enum MetricsScrape {
    /// The value of the sample named exactly `name` (no labels) on the server of the WebSocket URL `url`
    /// (`ws://127.x.y.z:port/...`), or nil when it cannot be read.
    static func value(_ name: String, server url: String) -> Double? {
        guard let components = URLComponents(string: url), let host = components.host, let port = components.port,
            host.hasPrefix("127.")
        else { return nil }
        guard let response = BlockingHTTP.get(address: host, port: port, path: "/metrics"), response.status == 200
        else { return nil }
        let text = String(decoding: response.body, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
