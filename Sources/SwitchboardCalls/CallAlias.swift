//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A client-chosen call id: a name of a call for one user only.
struct CallAlias: Hashable, Sendable {
    /// Who chose the name (the only user who may use it).
    let user: UserID
    /// The name.
    let name: CallID
}
