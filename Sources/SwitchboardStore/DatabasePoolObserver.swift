//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Told by a ``DatabasePool`` what happens to its callers as they are served: how long each lease waited, and each
/// caller refused because the bounded wait queue was full. The server implements it with its metrics; the store
/// does not depend on a metrics library.
///
/// The pool's gauges (connections in use, callers waiting) are not pushed through here: read them when needed
/// with ``DatabasePool/statistics`` (the server does at each scrape), so the lease path pays nothing for them.
///
/// - Warning: Called on the lease path of every database call, outside the pool's lock, on whichever thread
///   asked for the connection or released it (a Swift task, a connection's worker queue, an engine's queue). Keep
///   it cheap (no allocation, no blocking) and never call back into the pool.
public protocol DatabasePoolObserver: AnyObject, Sendable {
    /// A caller got a connection.
    /// - Parameters:
    ///   - urgent: It asked as urgent (served before the bounded wait queue).
    ///   - waitedNanoseconds: From its request to its lease (monotonic); 0 when a connection was idle.
    func leased(urgent: Bool, waitedNanoseconds: UInt64)

    /// An async caller was refused with ``PostgresError/Kind/overloaded``: ``DatabasePool/maxWaiters`` callers, or
    /// ``DatabasePool/maxWaitersPerOwner`` of its owner key, were waiting already. Its body never ran.
    func refusedOverloaded()
}
