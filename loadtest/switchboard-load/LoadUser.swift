//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One registered user of the run and its client.
struct LoadUser: Sendable {
    let index: Int
    let userId: Int64
    let phone: String
    let password: String
    let token: String
}
