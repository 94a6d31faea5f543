//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The string check of an op's parameters: which fields are not one-line strings, and the limits.
struct StringCheck: Sendable {
    /// Kinds by field (snake_case, array indices left out: `phones` for `phones[3]`); others are `.line`.
    var kinds: [String: StringParameter]
    var limits: StringParameterLimits

    /// Throws `ParameterRule.violated` (`.invalidText` for `.message`) naming the field unless `value` passes.
    func check(_ value: String, at path: [any CodingKey]) throws {
        // The fast path: short ASCII text without controls passes every kind.
        if value.utf8.count <= 64, value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return }
        let field = ProtocolCodec.fieldPath(path)
        let kind = kinds[ProtocolCodec.fieldPath(path.filter { $0.intValue == nil })] ?? .line
        guard let problem = limits.problem(value, field: field, kind: kind) else { return }
        throw kind == .message ? ParameterRule.invalidText(problem) : ParameterRule.violated(problem)
    }

    /// Checks the strings (and optional strings) stored in `parameters`' properties: for parameters a scanner
    /// read without `JSONDecoder` (`ScannableParameters`, whose fields are flat).
    func checkStrings(of parameters: some Any) throws {
        for child in Mirror(reflecting: parameters).children {
            guard let label = child.label, let value = child.value as? String else { continue }
            try check(value, at: [AnyKey(label)])
        }
    }

    /// Where `Checked` finds the check in the decoder's `userInfo`.
    static let userInfoKey = CodingUserInfoKey(rawValue: "switchboard.strings")!
}
