//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Where an operation's reply and the event it announces meet, whichever comes first: `arrived` records the
/// event (its time and a value) under a key, `wait` returns it at once when it came first, else suspends until
/// it comes or the timeout passes (nil). Each key is met once; an arrival nobody waits for is kept until `forget`.
public final class Rendezvous<Value: Sendable>: Sendable {
    private enum Entry {
        case arrived(at: UInt64, Value)
        case waiting(CheckedContinuation<(at: UInt64, value: Value)?, Never>)
    }
    private let entries = Locked([Int64: Entry]())

    public init() {}

    /// The event of `key` came at `at` (nanoseconds) with `value`.
    public func arrived(_ key: Int64, at: UInt64, _ value: Value) {
        let waiter = entries.withLock { e -> CheckedContinuation<(at: UInt64, value: Value)?, Never>? in
            if case .waiting(let c) = e[key] {
                e[key] = nil
                return c
            }
            if e[key] == nil { e[key] = .arrived(at: at, value) }
            return nil
        }
        waiter?.resume(returning: (at, value))
    }

    /// The event of `key`: at once if it already came, else when it comes; nil after `timeout` seconds.
    public func wait(_ key: Int64, timeout: Double) async -> (at: UInt64, value: Value)? {
        await withCheckedContinuation { (c: CheckedContinuation<(at: UInt64, value: Value)?, Never>) in
            let ready = entries.withLock { e -> (at: UInt64, value: Value)? in
                if case .arrived(let at, let value) = e[key] {
                    e[key] = nil
                    return (at, value)
                }
                e[key] = .waiting(c)
                return nil
            }
            if let ready {
                c.resume(returning: ready)
                return
            }
            Task {
                try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1e9))
                let late = entries.withLock { e -> CheckedContinuation<(at: UInt64, value: Value)?, Never>? in
                    guard case .waiting(let c) = e[key] else { return nil }
                    e[key] = nil
                    return c
                }
                late?.resume(returning: nil)
            }
        }
    }

    /// Drops whatever is kept under `key`.
    public func forget(_ key: Int64) { entries.withLock { _ = $0.removeValue(forKey: key) } }

    /// Keys with an arrival or a waiter.
    public var pending: Int { entries.withLock { $0.count } }
}
