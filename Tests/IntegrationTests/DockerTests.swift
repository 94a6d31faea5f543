//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

/// No Docker engine runs here, so these check the files themselves: the compose file parses and wires
/// the server to PostgreSQL, and the runtime image installs a package for every library the build links.
@Suite struct DockerTests {
    /// Debian runtime packages providing each library that a system-library target links.
    static let runtimePackageForLibrary = [
        "ssl": "libssl3", "crypto": "libssl3", "z": "zlib1g", "pq": "libpq5", "argon2": "libargon2-1",
        "opus": "libopus0", "opusenc": "libopusenc0", "opusfile": "libopusfile0", "ogg": "libogg0", "hiredis": "libhiredis0.14",
    ]

    /// Every `link "x"` in the module maps of the system-library targets that Package.swift declares.
    static func linkedLibraries() throws -> Set<String> {
        let manifest = try String(contentsOf: repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        var libraries = Set<String>()
        // `.systemLibrary(name: "X"` or `.systemLibrary(\n    name: "X"`: the first `name:` after each.
        var rest = Substring(manifest)
        while let call = rest.range(of: ".systemLibrary(") {
            rest = rest[call.upperBound...]
            guard let nameKey = rest.range(of: "name: \""), let end = rest[nameKey.upperBound...].firstIndex(of: "\"") else { break }
            let target = String(rest[nameKey.upperBound..<end])
            let map = try String(
                contentsOf: repositoryRoot.appendingPathComponent("Sources/\(target)/module.modulemap"),
                encoding: .utf8
            )
            for mapLine in map.split(separator: "\n") {
                let words = mapLine.split(separator: " ")
                if words.count == 2, words[0] == "link" { libraries.insert(words[1].replacingOccurrences(of: "\"", with: "")) }
            }
        }
        return libraries
    }

    @Test func dockerfileInstallsEveryLinkedRuntimeLibrary() throws {
        let dockerfile = try String(contentsOf: repositoryRoot.appendingPathComponent("docker/Dockerfile"), encoding: .utf8)
        guard let runStage = dockerfile.range(of: "AS run") else {
            Issue.record("Dockerfile has no run stage")
            return
        }
        let runText = String(dockerfile[runStage.upperBound...])
        #expect(runText.contains("debian:") || dockerfile.contains("FROM debian:"))
        let libraries = try Self.linkedLibraries()
        #expect(libraries.isSuperset(of: ["ssl", "pq", "z", "argon2", "opus", "opusenc", "ogg"]))
        for library in libraries {
            let package = try #require(Self.runtimePackageForLibrary[library], "no runtime package known for -l\(library)")
            #expect(runText.contains(" \(package)"), "run stage does not install \(package) for -l\(library)")
        }
        #expect(dockerfile.contains("FROM swift:"), "build stage should use the Swift toolchain image")
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
}
