//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A feature's typed error: one enum per feature (`MomentError`), a case per rule with a doc line, mapped to the
/// wire once. The database seam turns a store failure inside the feature's transaction into
/// `database(_:)`, so a service's methods can be `throws(MomentError)` all the way down.
public protocol FeatureError: WireMappable {
    /// The database failed under this feature's work.
    static func database(_ failure: DatabaseError) -> Self
}
