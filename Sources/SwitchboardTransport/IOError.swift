//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if canImport(Glibc)
import Glibc
#endif

/// A failed system call.
public struct IOError: Error, CustomStringConvertible, Sendable {
    public let errno: Int32
    public let function: String
    public init(errno: Int32, function: String) {
        self.errno = errno
        self.function = function
    }
    public var description: String { "\(function): \(String(cString: strerror(errno))) (errno \(errno))" }
}
