//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardServer
import Testing

/// No Docker engine runs here, so these check the files themselves: the compose file parses and wires
/// the server to PostgreSQL, and the runtime image installs a package for every library the build links.
@Suite struct DockerTests {
    /// Debian runtime packages providing each library that a system-library target links.
    static let runtimePackageForLibrary = [
        "ssl": "libssl3", "crypto": "libssl3", "z": "zlib1g", "pq": "libpq5", "argon2": "libargon2-1",
        "opus": "libopus0", "opusenc": "libopusenc0", "opusfile": "libopusfile0", "ogg": "libogg0",
        "hiredis": "libhiredis0.14", "curl": "libcurl4",
        "vips": "libvips42", "gobject-2.0": "libglib2.0-0", "glib-2.0": "libglib2.0-0",
    ]

    /// Every `link "x"` in the module maps of the system-library targets that Package.swift declares.
    static func linkedLibraries() throws -> Set<String> {
        let manifest = try String(contentsOf: repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        var libraries = Set<String>()
        // `.systemLibrary(name: "X"` or `.systemLibrary(\n    name: "X"`: the first `name:` after each.
        var rest = Substring(manifest)
        while let call = rest.range(of: ".systemLibrary(") {
            rest = rest[call.upperBound...]
            guard let nameKey = rest.range(of: "name: \""), let end = rest[nameKey.upperBound...].firstIndex(of: "\"")
            else { break }
            let target = String(rest[nameKey.upperBound..<end])
            let map = try String(
                contentsOf: repositoryRoot.appendingPathComponent("Sources/\(target)/module.modulemap"),
                encoding: .utf8
            )
            for mapLine in map.split(separator: "\n") {
                let words = mapLine.split(separator: " ")
                if words.count == 2, words[0] == "link" {
                    libraries.insert(words[1].replacingOccurrences(of: "\"", with: ""))
                }
            }
        }
        return libraries
    }

    @Test func dockerfileInstallsEveryLinkedRuntimeLibrary() throws {
        let dockerfile = try String(
            contentsOf: repositoryRoot.appendingPathComponent("docker/Dockerfile"), encoding: .utf8)
        guard let runStage = dockerfile.range(of: "AS run") else {
            Issue.record("Dockerfile has no run stage")
            return
        }
        let runText = String(dockerfile[runStage.upperBound...])
        #expect(runText.contains("debian:") || dockerfile.contains("FROM debian:"))
        let libraries = try Self.linkedLibraries()
        #expect(libraries.isSuperset(of: ["ssl", "pq", "z", "argon2", "opus", "opusenc", "ogg"]))
        for library in libraries {
            let package = try #require(
                Self.runtimePackageForLibrary[library], "no runtime package known for -l\(library)")
            #expect(runText.contains(" \(package)"), "run stage does not install \(package) for -l\(library)")
        }
        #expect(dockerfile.contains("FROM swift:"), "build stage should use the Swift toolchain image")
        // The run stage carries the web app and points the server at it.
        let copy = try #require(
            runText.split(separator: "\n").first { $0.hasPrefix("COPY web ") }, "run stage does not copy web/")
        let target = String(copy.split(separator: " ").last ?? "")
        #expect(runText.contains("SWITCHBOARD_WEB_ROOT=\(target)"))
        #expect(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent("web/index.html").path))
    }

    @Test func composeFileParsesAndWiresPostgres() throws {
        let path = repositoryRoot.appendingPathComponent("docker/compose.yaml").path
        let script = "import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))"
        let result = try runProcess("/usr/bin/env", ["python3", "-c", script, path])
        #expect(result.status == 0, "compose.yaml does not parse: \(result.output)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        )
        let services = try #require(json["services"] as? [String: Any])
        let server = try #require(services["switchboard"] as? [String: Any])
        #expect(services["postgres"] != nil)
        let environment = try #require(server["environment"] as? [String: Any])
        let url = try #require(environment["DATABASE_URL"] as? String)
        #expect(url.contains("@postgres:5432/"))
        let build = try #require(server["build"] as? [String: Any])
        #expect(build["dockerfile"] as? String == "docker/Dockerfile")
    }

    /// docker/cluster.yaml: PostgreSQL, Redis, two nodes from one image on the same database and Redis, and
    /// HAProxy in front (the only published ports) with docker/haproxy.cfg: no stickiness, WebSocket tunnel
    /// timeout, /readyz health checks, a server line for each node and none for anything else.
    @Test func clusterComposeAndHAProxyConfiguration() throws {
        let path = repositoryRoot.appendingPathComponent("docker/cluster.yaml").path
        let script = "import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))"
        let result = try runProcess("/usr/bin/env", ["python3", "-c", script, path])
        #expect(result.status == 0, "cluster.yaml does not parse: \(result.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let services = try #require(json["services"] as? [String: Any])
        #expect(Set(services.keys) == ["postgres", "redis", "switchboard-1", "switchboard-2", "haproxy"])
        var images = Set<String>()
        for name in ["switchboard-1", "switchboard-2"] {
            let node = try #require(services[name] as? [String: Any])
            let environment = try #require(node["environment"] as? [String: Any])
            #expect((environment["DATABASE_URL"] as? String)?.contains("@postgres:5432/") == true)
            #expect(environment["SWITCHBOARD_REDIS_URL"] as? String == "redis://redis:6379")
            #expect((node["build"] as? [String: Any])?["dockerfile"] as? String == "docker/Dockerfile")
            #expect(node["ports"] == nil, "\(name) must be reached through HAProxy only")
            images.insert(try #require(node["image"] as? String))
        }
        #expect(images.count == 1)
        let haproxy = try #require(services["haproxy"] as? [String: Any])
        #expect((haproxy["ports"] as? [String])?.contains("8080:8080") == true)
        #expect((haproxy["volumes"] as? [String])?.contains { $0.hasPrefix("./haproxy.cfg:") } == true)
        // The nodes trust X-Forwarded-For from HAProxy's fixed address only, and it is a valid entry.
        let haproxyAddress =
            ((haproxy["networks"] as? [String: Any])?["default"] as? [String: Any])?["ipv4_address"] as? String
        for name in ["switchboard-1", "switchboard-2"] {
            let environment = (services[name] as? [String: Any])?["environment"] as? [String: Any]
            let trusted = try #require(environment?["SWITCHBOARD_TRUSTED_PROXIES"] as? String)
            #expect(trusted == haproxyAddress)
            #expect(try TrustedProxies([trusted]).contains(trusted))
        }

        let cfg = try String(contentsOf: repositoryRoot.appendingPathComponent("docker/haproxy.cfg"), encoding: .utf8)
        let lines = cfg.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.hasPrefix("#")
        }
        #expect(lines.contains("balance leastconn") || lines.contains("balance roundrobin"))
        #expect(
            !lines.contains { $0.hasPrefix("cookie") || $0.hasPrefix("stick") || $0 == "balance source" },
            "no stickiness")
        #expect(lines.contains { $0.hasPrefix("timeout tunnel ") })
        #expect(lines.contains("option httpchk"))
        #expect(lines.contains { $0.hasPrefix("http-check send meth GET uri /readyz") })
        #expect(lines.contains("http-check expect status 200"))
        #expect(lines.contains("option forwardfor"))
        let servers = lines.filter { $0.hasPrefix("server ") }.map { $0.split(separator: " ")[2] }
        #expect(Set(servers) == ["switchboard-1:8080", "switchboard-2:8080"])
    }
}
