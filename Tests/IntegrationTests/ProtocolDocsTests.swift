//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardProtocol
import SwitchboardServer
import Testing

/// The backticked words of a table cell.
private func ticked(_ cell: Substring) -> [String] {
    cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
        String($0.element)
    }
}

private func protocolDocument() throws -> [Substring] {
    try String(contentsOf: repositoryRoot.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        .split(separator: "\n", omittingEmptySubsequences: false)
}

/// The ops of docs/protocol.md's op tables (tables whose first header cell is `Op`): the first cell of each row.
private func documentedOps() throws -> [String] {
    var ops: [String] = []
    var inOpTable = false
    for line in try protocolDocument() {
        guard line.hasPrefix("|") else {
            inOpTable = false
            continue
        }
        let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard cells.count > 2 else { continue }
        if cells[1] == "Op" {
            inOpTable = true
            continue
        }
        guard inOpTable, !cells[1].hasPrefix("---") else { continue }
        ops += ticked(Substring(cells[1]))
    }
    return ops
}

/// The ops of the Envelopes section's table, by row (`state-changing (ordered)`, `read-only (may overtake)`).
private func laneTable() throws -> [String: [String]] {
    var rows: [String: [String]] = [:]
    for line in try protocolDocument() {
        let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard cells.count > 3, cells[1] == "state-changing (ordered)" || cells[1] == "read-only (may overtake)" else {
            continue
        }
        rows[cells[1]] = ticked(Substring(cells[2]))
    }
    return rows
}

/// The traits of every op a server's features register (a server on the test database, started and stopped).
private func registeredOperations() throws -> [OperationTraits] {
    let (server, _, database) = try startProtocolServer()
    defer {
        stop(server)
        database.close()
    }
    return server.registeredOperations
}

@Suite struct ProtocolDocsTests {
    @Test func everyRegisteredOpIsDocumentedOnceAndEveryDocumentedOpIsRegistered() throws {
        let documented = try documentedOps()
        let registered = try registeredOperations().map(\.name)
        #expect(!registered.isEmpty)
        #expect(Set(documented).subtracting(registered).sorted() == [], "documented but not registered")
        #expect(Set(registered).subtracting(documented).sorted() == [], "registered but not documented")
        let repeated = Dictionary(grouping: documented, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(repeated == [], "documented in more than one op table row")
    }

    @Test func theOrderedLaneTableMatchesTheTraits() throws {
        let table = try laneTable()
        let ops = try registeredOperations().filter { $0.authentication == .required }
        #expect(Set(table["state-changing (ordered)"] ?? []) == Set(ops.filter(\.stateChanging).map(\.name)))
        #expect(Set(table["read-only (may overtake)"] ?? []) == Set(ops.filter { !$0.stateChanging }.map(\.name)))
        #expect((table["state-changing (ordered)"] ?? []).count == ops.filter(\.stateChanging).count)
    }

    @Test func theServerRegistersExactlyTheSchemasOps() throws {
        var schema: [OperationTraits] = []
        for op in ProtocolSchema.operations { schema.append(op.traits) }
        schema.sort { $0.name < $1.name }
        let registered = try registeredOperations()
        #expect(registered == schema)
    }
}
