//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import SwitchboardProtocol

/// The web client's op contract (`web/js/contract.js`), generated from the schema: every op with its traits and
/// every event name. The checked-in file must be what `render()` makes; `SWITCHBOARD_REGENERATE=1` writes it
/// (docs/web.md, "The op contract").
@Suite struct WebContractTests {
    /// The checked-in module.
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("web/js/contract.js")

    /// `web/js/contract.js` as the schema says it should be.
    static func render() -> String {
        var out = """
            // The op contract of protocol v1 for the web client: every op with its traits and every event name.
            // GENERATED from SwitchboardProtocol's schema (`ProtocolSchema.operations` and `ProtocolSchema.events`) by
            // Tests/SwitchboardProtocolTests/WebContractTests.swift: do not edit. Regenerate after changing an op or
            // an event: SWITCHBOARD_REGENERATE=1 swift test --filter WebContractTests (docs/web.md, "The op contract").

            // Per op: `stateChanging` (ordered after the connection's earlier state-changing requests), `idempotent`
            // (a resend after a lost reply is safe), `authentication` ('required', or 'authenticates' for the ops
            // that authenticate a connection) and `rateLimit` (the limit beyond the per-connection ones).
            export const OPS = Object.freeze({

            """
        for op in ProtocolSchema.operations.sorted(by: { $0.name < $1.name }) {
            let traits = op.traits
            out += "  '\(traits.name)': {stateChanging: \(traits.stateChanging), idempotent: \(traits.idempotent), "
            out += "authentication: '\(traits.authentication.rawValue)', rateLimit: '\(traits.rateLimit.rawValue)'},\n"
        }
        out += """
            });
            for (const traits of Object.values(OPS)) Object.freeze(traits);

            // Every event the server pushes (`{"ev": name, ...}`).
            export const EVENTS = Object.freeze([

            """
        for name in ProtocolSchema.eventNames.sorted() { out += "  '\(name)',\n" }
        out += """
            ]);

            // The ops whose resend after a lost reply is safe (their `idempotent` trait).
            export const RESENDABLE_OPS = new Set(Object.keys(OPS).filter((op) => OPS[op].idempotent));

            // The ops sent before authentication (`register`, `login`, `authenticate`, `password.reset`, ...).
            export const SESSION_OPS = new Set(
              Object.keys(OPS).filter((op) => OPS[op].authentication === 'authenticates'));

            """
        return out
    }

    @Test func theCheckedInContractIsTheSchemas() throws {
        let rendered = Self.render()
        if ProcessInfo.processInfo.environment["SWITCHBOARD_REGENERATE"] == "1" {
            try rendered.write(to: Self.path, atomically: true, encoding: .utf8)
        }
        let checkedIn = try? String(contentsOf: Self.path, encoding: .utf8)
        #expect(
            checkedIn == rendered,
            """
            web/js/contract.js differs from the schema: regenerate it with
            SWITCHBOARD_REGENERATE=1 swift test --filter WebContractTests
            (new content below)
            \(rendered)
            """)
    }

    @Test func theContractsLinesFitAndItsNamesNeedNoEscaping() {
        let rendered = Self.render()
        #expect(rendered.split(separator: "\n").allSatisfy { $0.count <= 120 })
        let names = ProtocolSchema.operations.map { $0.name } + ProtocolSchema.eventNames
        #expect(names.allSatisfy { name in name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" } })
    }
}
