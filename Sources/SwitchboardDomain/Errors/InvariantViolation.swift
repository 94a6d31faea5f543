//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// A rule the code relies on did not hold (a row that must exist after an insert, a batch result left unset):
/// the cause logged with an `internal` answer, which says no more than "internal error" on the wire.
public struct InvariantViolation: Error, CustomStringConvertible, Sendable {
    /// What was expected and did not hold.
    public var what: String
    /// Where: `#fileID:#line` of the check.
    public var location: String

    public init(_ what: String, fileID: String = #fileID, line: Int = #line) {
        self.what = what
        self.location = "\(fileID):\(line)"
    }

    public var description: String { "invariant violated at \(location): \(what)" }
}

extension ServiceError {
    /// An `internal` answer whose cause is an ``InvariantViolation``; the wire message stays `message`.
    public static func invariant(
        _ what: String, message: String = "internal error", fileID: String = #fileID, line: Int = #line
    ) -> ServiceError {
        ServiceError(.internal, message, underlying: InvariantViolation(what, fileID: fileID, line: line))
    }
}
