//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

/// The checked-in configuration reference.
private let configurationDocument = repositoryRoot.appendingPathComponent("docs/configuration.md")

/// The rows of the tables of `serve`'s section of `docs/configuration.md`: (flags, environment variables), as
/// written in backticks.
private func documentedConfiguration() throws -> [(flags: [String], variables: [String])] {
    let document = try String(contentsOf: configurationDocument, encoding: .utf8)
    let lines = document.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0.hasPrefix(ConfigurationReference.serveHeading) }) else { return [] }
    var rows: [(flags: [String], variables: [String])] = []
    for line in lines[(start + 1)...] {
        if line.hasPrefix("## ") { break }
        let cells = line.split(separator: "|", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard cells.count > 3, cells[1].hasPrefix("`--") else { continue }
        func ticked(_ cell: String) -> [String] {
            cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
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

/// Issue 13, item 5: the configuration reference (`docs/configuration.md`, once README's Configuration table) and
/// the executable agree; issue 36, item 6: the reference is generated from the option definitions.
@Suite("Configuration reference")
struct ConfigurationDocsTests {
    /// The checked-in `docs/configuration.md` is what `ConfigurationReference` renders from the executable's
    /// option definitions now. `SWITCHBOARD_REGENERATE=1` (`scripts/gen-config-docs.sh`) rewrites it instead.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: serverBinary)))
    func theReferenceIsGeneratedFromTheOptionDefinitions() throws {
        let root = try ConfigurationReference.dump(binary: serverBinary)
        let cores = try ConfigurationReference.coreCountVariables(
            sources: repositoryRoot.appendingPathComponent("Sources/switchboard"))
        #expect(cores.contains("SWITCHBOARD_LOOPS"), "the options defaulting to the core count were not found")
        let generated = ConfigurationReference.render(root, coreCountVariables: cores)
        #expect(generated.contains("`--port`"), "the dump has no serve --port: \(generated.prefix(300))")
        let current = (try? String(contentsOf: configurationDocument, encoding: .utf8)) ?? ""
        let expected = ConfigurationReference.splice(generated, into: current)
        if ProcessInfo.processInfo.environment["SWITCHBOARD_REGENERATE"] == "1" {
            if expected != current { try expected.write(to: configurationDocument, atomically: true, encoding: .utf8) }
            return
        }
        let checkedIn = current.split(separator: "\n", omittingEmptySubsequences: false)
        let rendered = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let line =
            zip(checkedIn, rendered).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(checkedIn.count, rendered.count)
        let upToDate = current == expected  // not in #expect: it would print both whole files
        #expect(
            upToDate,
            """
            docs/configuration.md differs from the option definitions of `switchboard` at line \(line + 1); run \
            scripts/gen-config-docs.sh. Checked in: \(checkedIn.dropFirst(line).first ?? "(end)"); generated: \
            \(rendered.dropFirst(line).first ?? "(end)")
            """)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: serverBinary)))
    func everyDocumentedFlagIsAcceptedAndEveryAcceptedFlagIsDocumented() throws {
        let rows = try documentedConfiguration()
        #expect(rows.count > 40, "the serve tables were not found in docs/configuration.md")
        let result = try runProcess(serverBinary, ["serve", "--help"])
        #expect(result.status == 0)
        let accepted = helpFlags(result.output)
        #expect(accepted.contains("--port"))
        let documented = Set(rows.flatMap(\.flags))
        for flag in documented.sorted() {
            #expect(accepted.contains(flag), "docs/configuration.md lists \(flag), but `serve --help` does not")
        }
        for flag in accepted.subtracting(["--help", "--version"]).sorted() {
            #expect(documented.contains(flag), "`serve --help` lists \(flag), but docs/configuration.md does not")
        }
    }

    @Test func everyDocumentedEnvironmentVariableIsRead() throws {
        let rows = try documentedConfiguration()
        let sources = allSources()
        let variables = rows.flatMap(\.variables)
        #expect(variables.count > 40)
        for variable in variables {
            #expect(
                variable.allSatisfy { $0.isUppercase || $0 == "_" || $0.isNumber }, "not a variable name: \(variable)")
            #expect(
                sources.contains("\"\(variable)\""), "docs/configuration.md lists \(variable), but no source reads it")
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
                #expect(
                    variables.contains(name),
                    "\(file.lastPathComponent) reads \(name), but docs/configuration.md does not list it")
            }
        }
    }

    /// Issue 14, item 5: a malformed environment variable stops the start with a message naming it (it used to be
    /// replaced by the option's default in silence).
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: serverBinary)),
        arguments: [
            ("SWITCHBOARD_PORT", "abc"), ("SWITCHBOARD_SHUTDOWN_GRACE", "ten"), ("SWITCHBOARD_REUSE_PORT", "maybe"),
            ("SWITCHBOARD_DEFLATE", "sometimes"), ("SWITCHBOARD_DB_POOL_SIZE", "4x"),
            ("SWITCHBOARD_BACKLOG", "99999999999"),
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
