//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardWebSocket

#if canImport(Glibc)
import Glibc
#endif

/// What identifies a file's version on disk without reading it.
struct FileSignature: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int
    var modified: Int64
    var changed: Int64

    init(_ s: stat) {
        device = UInt64(s.st_dev)
        inode = UInt64(s.st_ino)
        size = Int(s.st_size)
        modified = Int64(s.st_mtim.tv_sec) * 1_000_000_000 + Int64(s.st_mtim.tv_nsec)
        changed = Int64(s.st_ctim.tv_sec) * 1_000_000_000 + Int64(s.st_ctim.tv_nsec)
    }
}
