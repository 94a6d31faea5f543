//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A libvips operation's failure, before the pipeline says whose fault it was.
struct VipsFailure: Error {
    var message: String
}
