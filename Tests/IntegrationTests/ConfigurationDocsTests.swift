//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

/// The rows of README's Configuration table: (flags, environment variables), as written in backticks.
private func readmeConfiguration() throws -> [(flags: [String], variables: [String])] {
    let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0.hasPrefix("## Configuration") }) else { return [] }
    var rows: [(flags: [String], variables: [String])] = []
    for line in lines[(start + 1)...] {
        if line.hasPrefix("## ") { break }
        let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard cells.count > 3, cells[1].hasPrefix("`--") else { continue }
        func ticked(_ cell: String) -> [String] {
            cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
        var flags: [String] = []
        for flag in ticked(cells[1]) {
            if flag.hasPrefix("--[no-]") {
                let name = flag.dropFirst("--[no-]".count)
                flags += ["--\(name)", "--no-\(name)"]
            } else {
                flags.append(flag)
            }
        }
        rows.append((flags, ticked(cells[2])))
    }
    return rows
}

/// The long options `serve --help` lists.
private func helpFlags(_ help: String) -> Set<String> {
    var flags = Set<String>()
    let pattern = try! NSRegularExpression(pattern: "--[a-z0-9][a-z0-9-]*")
    let range = NSRange(help.startIndex..., in: help)
    for match in pattern.matches(in: help, range: range) {
        if let r = Range(match.range, in: help) { flags.insert(String(help[r])) }
    }
    return flags
}

/// Every Swift source file's text.
private func allSources() -> String {
    let root = repositoryRoot.appendingPathComponent("Sources")
    var text = ""
    let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
    while let url = files?.nextObject() as? URL {
        if url.pathExtension == "swift", let content = try? String(contentsOf: url, encoding: .utf8) { text += content }
    }
    return text
}

/// Issue 13, item 5: README's Configuration table and the executable agree.
@Suite("Configuration table")
struct ConfigurationDocsTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: serverBinary)))
    func everyDocumentedFlagIsAcceptedAndEveryAcceptedFlagIsDocumented() throws {
        let rows = try readmeConfiguration()
        #expect(rows.count > 40, "the Configuration table was not found in README.md")
        let result = try runProcess(serverBinary, ["serve", "--help"])
        #expect(result.status == 0)
        let accepted = helpFlags(result.output)
        #expect(accepted.contains("--port"))
        let documented = Set(rows.flatMap(\.flags))
        for flag in documented.sorted() {
            #expect(accepted.contains(flag), "README lists \(flag), but `serve --help` does not")
        }
        for flag in accepted.subtracting(["--help", "--version"]).sorted() {
            #expect(documented.contains(flag), "`serve --help` lists \(flag), but README's Configuration table does not")
        }
    }

    @Test func everyDocumentedEnvironmentVariableIsRead() throws {
        let rows = try readmeConfiguration()
        let sources = allSources()
        let variables = rows.flatMap(\.variables)
        #expect(variables.count > 40)
        for variable in variables {
            #expect(variable.allSatisfy { $0.isUppercase || $0 == "_" || $0.isNumber }, "not a variable name: \(variable)")
            #expect(sources.contains("\"\(variable)\""), "README lists \(variable), but no source reads it")
        }
        // And every SWITCHBOARD_ variable the command line reads is documented.
        let command = repositoryRoot.appendingPathComponent("Sources/switchboard")
        let files = (try? FileManager.default.contentsOfDirectory(at: command, includingPropertiesForKeys: nil)) ?? []
        let pattern = try NSRegularExpression(pattern: "env(?:Flag|Value)?\\(\"([A-Z0-9_]+)\"")
        for file in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let r = Range(match.range(at: 1), in: text) else { continue }
                let name = String(text[r])
                #expect(variables.contains(name), "\(file.lastPathComponent) reads \(name), but README does not list it")
            }
        }
    }

    /// Issue 14, item 5: a malformed environment variable stops the start with a message naming it (it used to be
    /// replaced by the option's default in silence).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: serverBinary)), arguments: [
        ("SWITCHBOARD_PORT", "abc"), ("SWITCHBOARD_SHUTDOWN_GRACE", "ten"), ("SWITCHBOARD_REUSE_PORT", "maybe"),
        ("SWITCHBOARD_DEFLATE", "sometimes"), ("SWITCHBOARD_DB_POOL_SIZE", "4x"), ("SWITCHBOARD_BACKLOG", "99999999999"),
    ])
    func aMalformedEnvironmentVariableIsAStartUpError(variable: String, value: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: serverBinary)
        // `--help` would exit before the server starts; the variable is read while the options are built, first.
        process.arguments = ["serve", "--help"]
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = value
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 64)
        #expect(output.contains(variable), "the message names the variable: \(output)")
        #expect(!output.contains("USAGE"), "no help text: the start failed first")
    }
}
